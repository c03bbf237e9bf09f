"""Enumerate the non-trivial classes <i,j> (LCP intervals) with LBL and SIL by a stack walk over LCP.

The walk is the slides' depth-first traversal of the class tree: classes come out sorted by j ascending,
then i descending (children before parents). docfreq replays exactly the same walk to count cdf_k.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np


@dataclass
class Classes:
    """Non-trivial classes in walk order (j ascending, then i descending)."""

    i: np.ndarray    # int32
    j: np.ndarray    # int32
    lbl: np.ndarray  # int32, members have length in (lbl, sil]
    sil: np.ndarray  # int32

    def __len__(self) -> int:
        return len(self.i)


def enumerate_classes(lcp: np.ndarray) -> Classes:
    """Every non-trivial class of the suffix array whose clipped LCP is `lcp`."""
    depth = int(lcp.max()) + 2 if len(lcp) else 2
    n = _walk(lcp, depth, np.empty(0, np.int32), np.empty(0, np.int32), np.empty(0, np.int32), True)
    out = [np.empty(n, dtype=np.int32) for _ in range(3)]
    _walk(lcp, depth, out[0], out[1], out[2], False)
    i, j, sil = out
    return Classes(i, j, _bounding_lcp(lcp, i, j), sil)


@nb.njit(cache=True)
def _bounding_lcp(lcp, ci, cj):  # type: ignore[no-untyped-def]
    """LBL = max(LCP[i-1], LCP[j]) of every class, without N-sized temporaries."""
    out = np.empty(len(ci), dtype=np.int32)
    for m in range(len(ci)):
        left = lcp[ci[m] - 1] if ci[m] > 0 else 0
        out[m] = max(left, lcp[cj[m]])
    return out


@nb.njit(cache=True)
def _walk(lcp, depth, out_i, out_j, out_sil, count_only):  # type: ignore[no-untyped-def]
    """The slides' stack walk; frame 0 is a sentinel with SIL -1, frames with SIL 0 hold no strings."""
    st_start = np.zeros(depth + 1, dtype=np.int32)
    st_sil = np.zeros(depth + 1, dtype=np.int32)
    st_sil[0] = -1
    sp = 0
    m = 0
    for w in range(len(lcp)):
        h = lcp[w]
        if h > st_sil[sp]:
            sp += 1
            st_start[sp] = w
            st_sil[sp] = h
        while h < st_sil[sp]:
            if not count_only:
                out_i[m] = st_start[sp]
                out_j[m] = w
                out_sil[m] = st_sil[sp]
            m += 1
            if h <= st_sil[sp - 1]:
                sp -= 1
            else:
                st_sil[sp] = h
    return m


@nb.njit(cache=True)
def trivial_class_count(lcp, sa, doc_of_rank, doc_start, doc_len):  # type: ignore[no-untyped-def]
    """Valid trivial classes <w,w>: the suffix (to its document end) is longer than both bounding LCPs."""
    count = 0
    for w in range(len(lcp)):
        d = doc_of_rank[w]
        bound = max(lcp[w - 1] if w > 0 else 0, lcp[w])
        if bound < doc_start[d] + doc_len[d] - sa[w]:
            count += 1
    return count
