"""Enumerate the non-trivial classes <i,j> (LCP intervals) with LBL and SIL by a stack walk over LCP.

The walk (termx/index/walk.py) is the slides' depth-first traversal of the class tree: classes come out sorted by
j ascending, then i descending (children before parents). docfreq replays exactly the same walk to count cdf_k.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from termx.index.walk import no_pop, no_push, no_rank, walk, walk_depth


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
    _fill(lcp, walk_depth(lcp), out.i, out.j, out.lbl, out.sil)
    return out


def count_classes(lcp: np.ndarray) -> int:
    """How many non-trivial classes the walk over `lcp` finds (to size their arrays before filling them)."""
    return int(_count(lcp, walk_depth(lcp)))


def empty_classes(n: int) -> Classes:
    """Arrays for `n` classes, to be filled by a walk."""
    return Classes(*(np.empty(n, dtype=np.int32) for _ in range(4)))


@nb.njit(cache=True)
def _count(lcp, depth):  # type: ignore[no-untyped-def]
    return walk(lcp, depth, (lcp,), no_push, no_rank, no_pop)


@nb.njit(cache=True)
def _fill(lcp, depth, out_i, out_j, out_lbl, out_sil):  # type: ignore[no-untyped-def]
    return walk(lcp, depth, (lcp, out_i, out_j, out_lbl, out_sil), no_push, no_rank, _write_class)


@nb.njit(inline="always")
def _write_class(state, m, sp, i, j, sil, h, closes):  # type: ignore[no-untyped-def]
    """Class m's row; LBL = max(LCP[i-1], LCP[j]) (a missing neighbour counts 0)."""
    lcp, out_i, out_j, out_lbl, out_sil = state
    out_i[m] = i
    out_j[m] = j
    out_lbl[m] = max(lcp[i - 1] if i > 0 else 0, h)
    out_sil[m] = sil
