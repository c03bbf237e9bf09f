"""Candidate words and their statistics: for every (position, length) of a text, the class that holds the substring.

Two paths give the same answer (tested): text inside the corpus reads its candidates straight off the class
tree (the classes on the path from a suffix's leaf to the root hold all its prefixes, docs/design.md "Word
breaking"); new text narrows a suffix-array interval one token at a time and looks the interval up among the
classes. A candidate is a class index c >= 0 (a substring occurring at least twice), TRIVIAL (it occurs once:
freq 1, df_1 = 1) or ABSENT (not in the corpus, or running past the end of the text or document).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit

TRIVIAL = -1
ABSENT = -2


@dataclass
class ClassTree:
    """The class tree of a loaded index: parents, each rank's deepest class and the inverse suffix array."""

    parent: np.ndarray    # (classes,) int32, -1 at the top level
    deepest: np.ndarray   # (N,) int32, deepest non-trivial class holding rank w, -1 if none
    rank: np.ndarray      # (len(tokens),) int32, rank of the suffix at each position, -1 at separators
    branches: np.ndarray  # (classes,) float64, entropy (nats) of the token that follows a class's longest member


def class_tree(index: LoadedIndex) -> ClassTree:
    """The index's class tree (built once per index, LoadedIndex.tree) with the inverse suffix array and each
    class's branch entropy: O(N + classes)."""
    parent, deepest = index.tree
    branches = np.zeros(len(index.cls_i), dtype=np.float64)
    _branch_entropy(index.cls_i, index.cls_j, parent, branches)
    rank = np.full(len(index.tokens), -1, dtype=np.int32)
    rank[index.sa] = np.arange(index.n, dtype=np.int32)
    return ClassTree(parent, deepest, rank, branches)


@nb.njit(cache=True)
def _branch_entropy(ci, cj, parent, branches):  # type: ignore[no-untyped-def]
    """The token after a class's longest member is shared by each child's ranks and unique for every other rank.
    Children are visited right to left (walk order backwards), the order the sums had when the tree was built
    here, so the entropies stay bit-identical."""
    inner = np.zeros(len(ci), dtype=np.int64)
    for t in range(len(ci) - 1, -1, -1):
        c = parent[t]
        if c >= 0:
            total = cj[c] - ci[c] + 1
            size = cj[t] - ci[t] + 1
            branches[c] -= size / total * np.log(size / total)
            inner[c] += size
    for c in range(len(ci)):
        total = cj[c] - ci[c] + 1
        branches[c] += (total - inner[c]) / total * np.log(total)


def corpus_candidates(index: LoadedIndex, tree: ClassTree, start: int, stop: int, max_len: int) -> np.ndarray:
    """Candidates of token positions start..stop-1 of the corpus itself, from the class tree: (n, max_len) int32,
    column L-1 for the substring of length L (ABSENT where it would run past `stop` or a document end)."""
    out = np.full((max(stop - start, 0), max_len), ABSENT, dtype=np.int32)
    _tree_candidates(index.tokens, tree.rank, tree.deepest, tree.parent, index.cls_lbl, index.cls_sil,
                     start, stop, out)
    return out


@nb.njit(cache=True, parallel=True)
def _tree_candidates(tokens, rank, deepest, parent, lbl, sil, start, stop, out):  # type: ignore[no-untyped-def]
    """Longest length first: climbing from the deepest class to the one with LBL < L <= SIL."""
    max_len = out.shape[1]
    for p in nb.prange(start, stop):
        if tokens[p] == 0:
            continue
        room = 0
        while room < max_len and p + room < stop and tokens[p + room] != 0:
            room += 1
        c = deepest[rank[p]]
        for length in range(room, 0, -1):
            while c >= 0 and lbl[c] >= length:
                c = parent[c]
            out[p - start, length - 1] = c if c >= 0 and length <= sil[c] else TRIVIAL


def text_ids(index: LoadedIndex, text: str) -> np.ndarray:
    """A text as the corpus's token ids (int64); a character the corpus never uses becomes -1 (matches nothing)."""
    if index.unit is Unit.byte:
        return np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.int64)
    assert index.vocab is not None and index.unit is Unit.char
    table = {ch: n for n, ch in enumerate(index.vocab, 1)}
    return np.array([table.get(ch, -1) for ch in text], dtype=np.int64)


def text_candidates(index: LoadedIndex, ids: np.ndarray, max_len: int) -> np.ndarray:
    """Candidates of any token sequence by suffix-array search (ids <= 0 never match): (n, max_len) int32."""
    out = np.full((len(ids), max_len), ABSENT, dtype=np.int32)
    _search_candidates(index.tokens, index.sa, index.cls_keys, index.cls_order, np.asarray(ids, np.int64), out)
    return out


@nb.njit(cache=True, parallel=True)
def _search_candidates(tokens, sa, keys, order, ids, out):  # type: ignore[no-untyped-def]
    """Extending a pattern by one token narrows its interval <lo, hi> by two binary searches on that token."""
    n_ranks = len(sa)
    max_len = out.shape[1]
    for p in nb.prange(len(ids)):
        lo = 0
        hi = n_ranks - 1
        for length in range(1, max_len + 1):
            q = p + length - 1
            if q >= len(ids) or ids[q] <= 0:
                break
            a = ids[q]
            off = length - 1
            left, right = lo, hi + 1
            while left < right:
                mid = (left + right) // 2
                if tokens[sa[mid] + off] < a:
                    left = mid + 1
                else:
                    right = mid
            first = left
            right = hi + 1
            while left < right:
                mid = (left + right) // 2
                if tokens[sa[mid] + off] <= a:
                    left = mid + 1
                else:
                    right = mid
            lo, hi = first, left - 1
            if hi < lo:
                break
            if hi == lo:
                out[p, length - 1] = TRIVIAL
                continue
            key = lo * (n_ranks + 1) + hi
            k = np.searchsorted(keys, key)
            out[p, length - 1] = order[k]


def char_lengths(ids: np.ndarray, unit: Unit) -> np.ndarray:
    """Tokens of the character starting at each token: 1 in char corpora; in byte corpora the UTF-8 length at a
    lead byte and 0 at a continuation byte (no word may start or end there)."""
    if unit is not Unit.byte:
        return np.ones(len(ids), dtype=np.int64)
    out = np.zeros(len(ids), dtype=np.int64)
    _utf8_lengths(np.asarray(ids, dtype=np.int64), out)
    return out


@nb.njit(cache=True)
def _utf8_lengths(ids, out):  # type: ignore[no-untyped-def]
    for p in range(len(ids)):
        b = ids[p]
        if b & 0xC0 == 0x80:
            continue
        n = 1 if b < 0x80 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
        out[p] = min(n, len(ids) - p)


def candidate_stats(index: LoadedIndex, cand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """freq and df_1..df_K of every candidate (freq 1, df_1 1 where TRIVIAL; zeros where ABSENT)."""
    n_cls, k = index.cls_df.shape
    freq = np.concatenate([index.cls_j - index.cls_i + 1, [1, 0]]).astype(np.int64)
    df = np.concatenate([index.cls_df, np.eye(1, k, dtype=np.int32), np.zeros((1, k), np.int32)]).astype(np.int64)
    row = np.where(cand >= 0, cand, np.where(cand == TRIVIAL, n_cls, n_cls + 1))
    return freq[row], df[row]
