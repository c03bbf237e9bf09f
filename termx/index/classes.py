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
    out = empty_classes(count_classes(lcp))
    _walk(lcp, walk_depth(lcp), out.i, out.j, out.sil, False)
    _bounding_lcp(lcp, out.i, out.j, out.lbl)
    return out


def count_classes(lcp: np.ndarray) -> int:
    """How many non-trivial classes the walk over `lcp` finds (to size their arrays before filling them)."""
    empty = np.empty(0, np.int32)
    return int(_walk(lcp, walk_depth(lcp), empty, empty, empty, True))


def empty_classes(n: int) -> Classes:
    """Arrays for `n` classes, to be filled by a walk."""
    return Classes(*(np.empty(n, dtype=np.int32) for _ in range(4)))


def walk_depth(lcp: np.ndarray) -> int:
    """A bound on the walk's stack depth (frames have strictly increasing SIL from -1)."""
    return int(lcp.max()) + 2 if len(lcp) else 2


@nb.njit(cache=True)
def _bounding_lcp(lcp, ci, cj, out):  # type: ignore[no-untyped-def]
    """LBL = max(LCP[i-1], LCP[j]) of every class, into `out`, without N-sized temporaries."""
    for m in range(len(ci)):
        left = lcp[ci[m] - 1] if ci[m] > 0 else 0
        out[m] = max(left, lcp[cj[m]])


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

