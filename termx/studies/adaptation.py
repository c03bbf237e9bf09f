"""Adaptation, method 1 (slides, "Adaptation: Method 1"): each document's history (its first ⌊n/2⌋ tokens) and
test (the rest); per string the documents where it occurs in both (a), history only (b), test only (c), neither
(d). Pr(+adapt) = a/(a+b), prior = (a+c)/D, Pr(−adapt) = c/(c+d). Method 2 is df_2/df_1.

A string counts in a half when one of its occurrences lies wholly inside it. Named patterns are counted from
their suffix-array interval; all strings at once by one walk over the history/test class tree (split.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from termx.index import docfreq
from termx.index.classes import enumerate_classes
from termx.index.loaded_index import LoadedIndex
from termx.lookup import adaptation, find_class
from termx.studies.halves import doc_of_rank
from termx.studies.split import SplitIndex, split_index

ADAPT_FIELDS = ("pattern", "a", "b", "c", "d", "p_adapt", "prior", "p_neg_adapt", "adaptation", "df")


@dataclass
class Contingency:
    """Method-1 counts over documents (a + b + c + d = D)."""

    a: int
    b: int
    c: int
    d: int

    @property
    def p_adapt(self) -> float | None:
        """Pr(+adapt) = Pr(test | hist) = a / (a + b)."""
        return self.a / (self.a + self.b) if self.a + self.b else None

    @property
    def prior(self) -> float:
        """Pr(test) = (a + c) / D."""
        total = self.a + self.b + self.c + self.d
        return (self.a + self.c) / total if total else 0.0

    @property
    def p_neg_adapt(self) -> float | None:
        """Pr(−adapt) = Pr(test | not hist) = c / (c + d)."""
        return self.c / (self.c + self.d) if self.c + self.d else None


def halves_of_occurrences(index: LoadedIndex, ranks: np.ndarray, length: int,
                          dor: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Documents (sorted, distinct) where the occurrences at `ranks` of a string of `length` tokens lie wholly in
    the history, and where they lie in the test."""
    docs = index.doc_start.searchsorted(index.sa[ranks], side="right") - 1 if dor is None else dor[ranks]
    cut = index.doc_start[docs] + index.doc_len[docs] // 2
    start = index.sa[ranks]
    return np.unique(docs[start + length <= cut]), np.unique(docs[start >= cut])


def contingency(index: LoadedIndex, pattern: str) -> Contingency:
    """Method-1 counts of one pattern from its interval <i,j> (O(freq))."""
    match = find_class(index, pattern)
    if not match.found:
        return Contingency(0, 0, 0, index.n_docs)
    assert match.i is not None and match.j is not None and match.ids is not None
    hist, test = halves_of_occurrences(index, np.arange(match.i, match.j + 1), len(match.ids))
    a = len(np.intersect1d(hist, test, assume_unique=True))
    b, c = len(hist) - a, len(test) - a
    return Contingency(a, b, c, index.n_docs - a - b - c)


def adapt_rows(index: LoadedIndex, patterns: Sequence[str]) -> list[dict[str, Any]]:
    """Method 1 and method 2 side by side for named patterns (the contract's fields)."""
    rows = []
    for p in patterns:
        t = contingency(index, p)
        df = find_class(index, p).df
        rows.append({"pattern": p, "a": t.a, "b": t.b, "c": t.c, "d": t.d, "p_adapt": t.p_adapt, "prior": t.prior,
                     "p_neg_adapt": t.p_neg_adapt, "adaptation": adaptation(df), "df": list(df)})
    return rows


@dataclass
class SplitCounts:
    """Method-1 counts of every class of the history/test tree (walk order), and the tree itself."""

    split: SplitIndex
    cls_i: np.ndarray
    cls_j: np.ndarray
    cls_lbl: np.ndarray
    cls_sil: np.ndarray
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    n_docs: int


def split_counts(index: LoadedIndex, dor: np.ndarray | None = None) -> SplitCounts:
    """(a, b, c) of every non-trivial class of the history/test tree by one pointer-count walk: per half, the
    ranks and their previous rank in the same document half give df per half; the previous rank in the same
    document gives df over both halves; a = df_hist + df_test − df_both."""
    dor = doc_of_rank(index) if dor is None else dor
    sp = split_index(index, dor)
    classes = enumerate_classes(sp.lcp)
    unit = sp.doc.astype(np.int64) * 2 + sp.half
    pointers = np.stack([docfreq.neighbors(unit, 2 * index.n_docs), docfreq.neighbors(sp.doc, index.n_docs)])
    counts = docfreq.pointer_counts(sp.lcp, len(classes), pointers, sp.half, 2)
    freq = counts[:, 0, :]
    df_half = freq - counts[:, 1, :]
    df_any = freq.sum(axis=1) - counts[:, 2, :].sum(axis=1)
    a = df_half[:, 0] + df_half[:, 1] - df_any
    return SplitCounts(sp, classes.i, classes.j, classes.lbl, classes.sil, a, df_half[:, 0] - a, df_half[:, 1] - a,
                       index.n_docs)

