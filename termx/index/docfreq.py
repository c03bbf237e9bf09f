"""Neighbors and cumulative document frequencies cdf_k of every class, by the slides' class-tree propagation.

cdf_k(<i,j>) = #{w in [i,j] : neighbor^(k-1)[w] >= i};  freq = cdf_1;  df_k = cdf_k - cdf_(k+1).
The walk is written over a generic "unit of each position" (documents, or halves of documents) and a
"bucket of each rank" (e.g. first/second half of the collection), so the same kernel serves cross-validation.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from termx.index.classes import Classes, empty_classes
from termx.index.walk import walk, walk_depth


@nb.njit(cache=True)
def neighbors(unit_of_rank, n_units):  # type: ignore[no-untyped-def]
    """neighbor[w] = the largest rank w' < w whose suffix lies in the same unit as w's, or -1."""
    last = np.full(n_units, -1, dtype=np.int32)
    out = np.empty(len(unit_of_rank), dtype=np.int32)
    for w in range(len(unit_of_rank)):
        u = unit_of_rank[w]
        out[w] = last[u]
        last[u] = w
    return out


def fill_classes(lcp: np.ndarray, doc: np.ndarray, n_docs: int, max_k: int) -> tuple[Classes, np.ndarray]:
    """Every non-trivial class <i,j> with LBL and SIL in walk order, and their df_1..df_max_k, shape (classes,
    max_k) int32, all from one walk of the class tree (`doc`: the document of each rank, of `n_docs`).

    The arrays are allocated for the bound of N classes and cut to the count the walk finds, instead of sized by
    a counting walk first: pages past the last class are never written, so they never take memory."""
    classes = empty_classes(len(lcp))
    df = np.empty((len(lcp), max_k), dtype=np.int32)
    m = _class_walk(lcp, doc, n_docs, max_k + 1, walk_depth(lcp), classes.i, classes.j, classes.lbl, classes.sil,
                    df)
    return Classes(classes.i[:m], classes.j[:m], classes.lbl[:m], classes.sil[:m]), df[:m]


@nb.njit(cache=True)
def _find(st_start, sp, p):  # type: ignore[no-untyped-def]
    """Deepest open frame (1..sp) whose start <= p; frames are sorted by start."""
    lo = 1
    hi = sp
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if st_start[mid] <= p:
            lo = mid
        else:
            hi = mid - 1
    return lo


@nb.njit(cache=True)
def _class_walk(lcp, doc, n_docs, kmax, depth, ci, cj, clbl, csil, df):  # type: ignore[no-untyped-def]
    """The class walk (termx/index/walk.py) with the cdf_k count of the slides: each rank w adds 1 per k to the
    deepest open frame holding neighbor^(k-1)[w], and a popped frame writes its class (i, j, LBL, SIL,
    df_k = cdf_k - cdf_(k+1)) and hands its counts to its parent: O(N * k) plus the frames stepped over.

    Only neighbor^1 is searched (a step down the stack from the top). The frame holding an earlier rank q is the
    lowest the stack came down to since q (frames below that were never popped, the one above was pushed after
    q), so the frame for neighbor^k is min(frame for neighbor^(k-1), the lowest frame between neighbor^k and
    neighbor^(k-1)) -- and that lowest frame is what the search found when neighbor^(k-1) was w's document's
    newest rank. Those minima are kept per document (`low`, a few kB): no search, no branch for k >= 2.
    Frame 0 (the sentinel, never popped) collects the counts of chains shorter than k."""
    counts = np.zeros((depth + 1, kmax), dtype=np.int32)
    last = np.full(n_docs, -1, dtype=np.int32)  # the newest rank of each document so far: neighbor[w]
    low = np.zeros((n_docs, max(kmax - 2, 1)), dtype=np.int32)  # low[d, k - 2]: frame between neighbor^k, ^(k-1)
    return walk(lcp, depth, (lcp, doc, kmax, counts, last, low, ci, cj, clbl, csil, df), _zero_counts,
                _count_neighbors, _write_df)


@nb.njit(inline="always")
def _zero_counts(state, sp, w):  # type: ignore[no-untyped-def]
    state[3][sp, :] = 0


@nb.njit(inline="always")
def _count_neighbors(state, sp, w, st_start):  # type: ignore[no-untyped-def]
    """Rank w adds 1 to the top frame (neighbor^0[w] = w) and, per k, to the frame holding neighbor^k[w].

    Every array's last use is unconditional: a last use inside a branch made numba keep the array in a
    loop-carried variable, and this walk 1.38x slower (bench/bench_walk.py)."""
    _, doc, kmax, counts, last, low, _, _, _, _, _ = state
    counts[sp, 0] += 1
    d = doc[w]
    p = last[d]
    last[d] = w
    f = 0
    if p >= 0:
        f = sp  # frame 1 starts at rank 0 and is never popped: the steps stop there
        while st_start[f] > p:
            f -= 1
    counts[f, 1] += p >= 0
    g = f
    for k in range(2, kmax):
        g = min(g, low[d, k - 2])
        counts[g, k] += 1
    for k in range(kmax - 3, 0, -1):
        low[d, k] = low[d, k - 1]
    low[d, 0] = f  # (never read when kmax = 2)


@nb.njit(inline="always")
def _write_df(state, m, sp, i, j, sil, h, closes):  # type: ignore[no-untyped-def]
    """Class m's row and df_k; a closing frame hands its counts to its parent."""
    lcp, _, kmax, counts, _, _, ci, cj, clbl, csil, df = state
    ci[m] = i
    cj[m] = j
    csil[m] = sil
    clbl[m] = max(lcp[i - 1] if i > 0 else 0, h)
    for k in range(kmax - 1):
        df[m, k] = counts[sp, k] - counts[sp, k + 1]
    if closes:
        for k in range(kmax):
            counts[sp - 1, k] += counts[sp, k]


def pointer_counts(lcp: np.ndarray, n_classes: int, pointers: np.ndarray, bucket: np.ndarray,
                   n_buckets: int) -> np.ndarray:
    """Per class and bucket of w: freq = #{w in <i,j>} and, for each of T rank-valued arrays (-1 = none),
    #{w in <i,j> : pointers[t, w] >= i}; shape (classes, 1 + T, n_buckets), freq first.

    The cdf_k walk with the neighbor chain replaced by any pointer arrays: the slides' `cdfk[half]` code
    generalised, so halves of the collection, history/test halves of documents and "previous rank of the same
    document half" all reuse the one class-tree propagation."""
    depth = walk_depth(lcp)
    out = np.zeros((n_classes, 1 + pointers.shape[0], n_buckets), dtype=np.int32)
    _pointer_walk(lcp, pointers, bucket, n_buckets, depth, out)
    return out


@nb.njit(cache=True)
def _pointer_walk(lcp, pointers, bucket, n_buckets, depth, out):  # type: ignore[no-untyped-def]
    """The class walk; rank w adds 1 to the top frame (freq) and to the deepest open frame holding
    pointers[t, w]; popped frames hand their counts to their parent (as _class_walk)."""
    counts = np.zeros((depth + 1, 1 + pointers.shape[0], n_buckets), dtype=np.int32)
    return walk(lcp, depth, (pointers, bucket, counts, out), _zero_buckets, _count_pointers, _write_buckets)


@nb.njit(inline="always")
def _zero_buckets(state, sp, w):  # type: ignore[no-untyped-def]
    state[2][sp, :, :] = 0


@nb.njit(inline="always")
def _count_pointers(state, sp, w, st_start):  # type: ignore[no-untyped-def]
    pointers, bucket, counts, _ = state
    b = bucket[w]
    counts[sp, 0, b] += 1
    for t in range(pointers.shape[0]):
        p = pointers[t, w]
        if p >= st_start[sp]:  # the top frame: no search
            counts[sp, 1 + t, b] += 1
        elif p >= 0:
            counts[_find(st_start, sp, p), 1 + t, b] += 1


@nb.njit(inline="always")
def _write_buckets(state, m, sp, i, j, sil, h, closes):  # type: ignore[no-untyped-def]
    _, _, counts, out = state
    out[m, :, :] = counts[sp, :, :]
    if closes:
        counts[sp - 1, :, :] += counts[sp, :, :]
