"""Token ids and character classes of new text in a char corpus's unit, read from tables over the Basic
Multilingual Plane (one array look-up a character, where a search of the vocabulary and a sort of the text's
code points took most of the Python time of segmenting new text with a stored model)."""

from __future__ import annotations

import numpy as np

from termx.wordbreak.entropy import _class_of_code_point

_DENSE = 0x10000
"""Code points below this are looked up in the dense tables; the rest by search."""
_UNKNOWN = -1
"""A class not yet filled in (classes are >= 0)."""


class CharTable:
    """Token id (-1: a character the corpus never uses) and class (entropy.char_class) of every code point."""

    def __init__(self, vocab: np.ndarray) -> None:
        """`vocab`: the code point of token id k at k-1 (the first id of a code point that occurs twice)."""
        order = np.argsort(vocab, kind="stable")
        self._sorted, self._sorted_ids = vocab[order], (order + 1).astype(np.int64)
        self._ids = np.full(_DENSE, -1, dtype=np.int64)
        inside = np.flatnonzero(vocab < _DENSE)[::-1]  # the first id of a code point is written last
        self._ids[vocab[inside]] = inside + 1
        self._classes = np.full(_DENSE, _UNKNOWN, dtype=np.int8)  # filled in as code points are met

    def ids(self, cps: np.ndarray) -> np.ndarray:
        """The token id of each code point of `cps` (int64)."""
        inside = cps < _DENSE
        out = self._ids[np.where(inside, cps, 0)]
        if not inside.all():
            out[~inside] = self._searched(cps[~inside])
        return out

    def _searched(self, cps: np.ndarray) -> np.ndarray:
        """Token ids by binary search of the vocabulary (code points beyond the dense table)."""
        if not len(self._sorted):
            return np.full(len(cps), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self._sorted, cps), len(self._sorted) - 1)
        return np.where(self._sorted[at] == cps, self._sorted_ids[at], -1)

    def classes(self, cps: np.ndarray) -> np.ndarray:
        """The class of each code point of `cps` (int8), as entropy.text_classes gives it."""
        inside = cps < _DENSE
        out = self._classes[np.where(inside, cps, 0)]
        new = np.unique(cps[inside & (out == _UNKNOWN)])
        if len(new):
            self._classes[new] = [_class_of_code_point(int(c)) for c in new]
            out = self._classes[np.where(inside, cps, 0)]
        if not inside.all():
            beyond, where = np.unique(cps[~inside], return_inverse=True)
            out[~inside] = np.array([_class_of_code_point(int(c)) for c in beyond], dtype=np.int8)[where.ravel()]
        return out
