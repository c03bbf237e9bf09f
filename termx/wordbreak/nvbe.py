"""Autonomy of a string from the normalized variation of branching entropy (nVBE; Magistry & Sagot 2012).

The variation of branching entropy of a string s = x_1..x_n is how much more unpredictable the next token
becomes once s is complete, δh_R(s) = h_R(x_1..x_n) − h_R(x_1..x_{n−1}), and likewise to the left,
δh_L(s) = h_L(x_1..x_n) − h_L(x_2..x_n). Entropies of longer strings are smaller on the whole, so each
variation is normalized by the mean μ_n and standard deviation σ_n of the variation over the strings of its
length n in the corpus, and the autonomy of s is

    a(s) = (δh_L(s) − μ_L,n) / σ_L,n + (δh_R(s) − μ_R,n) / σ_R,n

(for n = 1 the empty string's entropy is a constant that the normalization removes). A segmentation is scored
by Σ a(w) · |w| over its words. h comes from the class trees of termx.wordbreak.entropy: a string occurring once
has one follower (h = 0), a shorter member of a class is always followed by the same token (h = 0), and the
longest member has its class's entropy. The mean and deviation are taken over string types (each distinct
string once), as in the paper.
"""

from __future__ import annotations

from collections.abc import Iterator

import numba as nb
import numpy as np

from termx.index.loaded_index import LoadedIndex
from termx.wordbreak.candidates import ClassTree, corpus_candidates
from termx.wordbreak.entropy import Branching


def autonomy_table(index: LoadedIndex, tree: ClassTree, branching: Branching, window: int,
                   chunks: list[tuple[int, int, int, int]], type_offset: np.ndarray, size: int
                   ) -> tuple[np.ndarray, float]:
    """a(s) of every string of 1..`window` tokens occurring twice or more, at type_offset[c] + n − LBL(c) − 1 of
    its class c (NaN for longer strings), and a(x) of a single token occurring once."""
    freq = np.append(index.cls_j - index.cls_i + 1, 1).astype(np.float64)  # last: a string occurring once
    sums = np.zeros((2, 3, window))  # direction, (weight, Σ w·δ, Σ w·δ²), length
    for fcand, delta in _chunk_variations(index, tree, branching, window, chunks):
        # each string type counts once in total: an occurrence of a string occurring f times weighs 1/f
        weight = ~np.isnan(delta[0]) / freq[np.where(fcand >= 0, fcand, len(freq) - 1)]
        for side in range(2):
            d = np.nan_to_num(delta[side])
            sums[side] += [weight.sum(axis=0), (weight * d).sum(axis=0), (weight * d * d).sum(axis=0)]
    total = np.maximum(sums[:, 0], 1e-300)
    mean = sums[:, 1] / total
    var = sums[:, 2] / total - mean ** 2
    # equal variations (e.g. a single type of that length): the one-pass variance is rounding noise, not spread
    std = np.where(var > 1e-12 * np.maximum(1.0, mean ** 2), np.sqrt(np.maximum(var, 0.0)), 1.0)
    values = np.full(size, np.nan)
    lengths = np.arange(1, window + 1)
    for fcand, delta in _chunk_variations(index, tree, branching, window, chunks):
        a = (delta[0] - mean[0]) / std[0] + (delta[1] - mean[1]) / std[1]
        keep = (fcand >= 0) & ~np.isnan(a)
        c = fcand[keep]
        values[type_offset[c] + np.broadcast_to(lengths, fcand.shape)[keep] - index.cls_lbl[c] - 1] = a[keep]
    # a token occurring once: h = 0 both ways
    single = float(-mean[0, 0] / std[0, 0] - mean[1, 0] / std[1, 0])
    return values, single


def _chunk_variations(index: LoadedIndex, tree: ClassTree, branching: Branching, window: int,
                      chunks: list[tuple[int, int, int, int]]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Per chunk of whole documents: the candidates (n, window) of its positions and (δh_R, δh_L) of the string
    at each (position, length), NaN where it would leave its document."""
    rev, rtree = branching.reverse, branching.reverse_tree
    starts = index.doc_start.astype(np.int64)
    lengths = index.doc_len.astype(np.int64)
    for d, e, lo, hi in chunks:
        fcand = corpus_candidates(index, tree, lo, hi, window)
        rcand = corpus_candidates(rev, rtree, lo, hi, window)
        delta = np.full((2, hi - lo, window), np.nan)
        _variations_of_chunk(fcand, rcand, starts[d:e] - lo, lengths[d:e], index.cls_sil, tree.branches,
                             rev.cls_sil, rtree.branches, delta)
        yield fcand, delta


@nb.njit(cache=True)
def _h(cand, sil, branch, q, length):  # type: ignore[no-untyped-def]
    """h of the string at row q, length `length` (one follower when it occurs once; 0 for the empty string)."""
    if length == 0:
        return 0.0
    c = cand[q, length - 1]
    if c < 0:
        return 0.0
    return branch[c] if sil[c] == length else 0.0


@nb.njit(cache=True)
def _variations(f, r, fsil, fbranch, rsil, rbranch, n, p, length):  # type: ignore[no-untyped-def]
    """(δh_R, δh_L) of the string at p, `length` tokens, in a document of n tokens (f, r: its candidates)."""
    right = _h(f, fsil, fbranch, p, length) - _h(f, fsil, fbranch, p, length - 1)
    q = n - p - length  # the reversed string starts here in the reversed document
    left = _h(r, rsil, rbranch, q, length) - _h(r, rsil, rbranch, q, length - 1)
    return right, left


@nb.njit(cache=True)
def _variations_of_chunk(fcand, rcand, starts, lengths, fsil, fbranch, rsil, rbranch, delta):  # type: ignore[no-untyped-def]
    window = delta.shape[2]
    for d in range(len(starts)):
        s = starts[d]
        n = lengths[d]
        f = fcand[s:s + n]
        r = rcand[s:s + n]
        for p in range(n):
            for length in range(1, min(window, n - p) + 1):
                right, left = _variations(f, r, fsil, fbranch, rsil, rbranch, n, p, length)
                delta[0, s + p, length - 1] = right
                delta[1, s + p, length - 1] = left
