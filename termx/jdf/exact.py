"""Exact joint document frequency from the documents of two suffix-array intervals (any strings, stored or not).

The suffixes that start with x form the interval <i,j> of the suffix array (two binary searches, as in
lookup.find_class); the documents of those suffixes are x's documents, and jdf(x, y) is the size of the
intersection of the two document sets.
"""

from __future__ import annotations

import numpy as np

from termx.errors import PatternError
from termx.index.loaded_index import LoadedIndex
from termx.lookup import ClassMatch, find_class

CANNOT_OCCUR = "it cannot occur in this corpus"  # lookup.pattern_length's hint for a pattern longer than any document


def interval_documents(index: LoadedIndex, i: int, j: int) -> np.ndarray:
    """Sorted distinct document numbers of the suffixes at ranks i..j."""
    if j < i:
        return np.empty(0, dtype=np.int64)
    positions = np.asarray(index.sa[i: j + 1], dtype=np.int64)
    return np.unique(np.searchsorted(index.doc_start, positions, side="right") - 1)


def locate(index: LoadedIndex, pattern: str) -> ClassMatch | None:
    """The pattern's class, or None when it does not occur (also when it is longer than every document; an empty
    or invalid pattern is still a PatternError)."""
    try:
        m = find_class(index, pattern)
    except PatternError as exc:
        if exc.hint == CANNOT_OCCUR:
            return None
        raise
    return m if m.found else None


def documents(index: LoadedIndex, pattern: str) -> np.ndarray:
    """Sorted distinct numbers of the documents holding `pattern` (empty when it does not occur)."""
    m = locate(index, pattern)
    if m is None:
        return np.empty(0, dtype=np.int64)
    assert m.i is not None and m.j is not None
    return interval_documents(index, m.i, m.j)


def joint(docs_x: np.ndarray, docs_y: np.ndarray) -> int:
    """Size of the intersection of two sorted document sets."""
    return int(len(np.intersect1d(docs_x, docs_y, assume_unique=True)))
