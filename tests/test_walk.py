"""termx.index.walk, the one stack walk over LCP, against the definitions on arbitrary LCP arrays: it pops every
class <i,j> (SIL = min LCP[i..j-1] > LBL = max(LCP[i-1], LCP[j])) in walk order, with LCP[j], and says whether
the popped frame closes (its parent starts before i) or stays open as its parent (same start; the root, all ranks
with SIL 0, is a frame too); and index.tree.class_tree, built from the classes in walk order."""

from __future__ import annotations

import numba as nb
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from termx.index.classes import enumerate_classes
from termx.index.tree import class_tree
from termx.index.walk import no_push, no_rank, walk, walk_depth


@nb.njit
def _record(state, m, sp, i, j, sil, h, closes):  # type: ignore[no-untyped-def]
    state[0][m, 0] = i
    state[0][m, 1] = j
    state[0][m, 2] = sil
    state[0][m, 3] = h
    state[0][m, 4] = closes


@nb.njit
def _popped(lcp, depth, out):  # type: ignore[no-untyped-def]
    return walk(lcp, depth, (out,), no_push, no_rank, _record)


def _brute(lcp: list[int]) -> list[tuple[int, int, int, int, int]]:
    """(i, j, SIL, LCP[j], closes) of every class, j ascending then i descending, from the definitions."""
    n = len(lcp)
    found = [(i, j, min(lcp[i:j])) for j in range(n) for i in range(j - 1, -1, -1)
             if min(lcp[i:j]) > max(lcp[i - 1] if i > 0 else 0, lcp[j])]
    out = []
    for i, j, sil in found:
        parents = [(pi, pj) for pi, pj, _ in found if pi <= i and pj >= j and (pi, pj) != (i, j)]
        # the smallest enclosing class, else the root: all ranks, SIL 0, holding no strings
        parent_i = max(parents, key=lambda c: (c[0], -c[1]))[0] if parents else 0
        out.append((i, j, sil, lcp[j], int(parent_i < i)))
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=40))
def test_walk_pops_every_class_in_walk_order(values: list[int]) -> None:
    lcp = np.array([*values, 0], dtype=np.int32)  # LCP[N-1] = 0 ends every class
    out = np.zeros((len(lcp), 5), dtype=np.int64)
    m = _popped(lcp, walk_depth(lcp), out)
    assert [tuple(int(x) for x in row) for row in out[:m]] == _brute(lcp.tolist())


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=40))
def test_class_tree_from_walk_order(values: list[int]) -> None:
    """index.tree.class_tree, a pass over the classes instead of a walk: each class's smallest enclosing class,
    and each rank's smallest class."""
    lcp = np.array([*values, 0], dtype=np.int32)
    c = enumerate_classes(lcp)
    parent, deepest = class_tree(c.i, c.j, len(lcp))
    spans = list(zip(c.i.tolist(), c.j.tolist(), strict=True))

    def smallest(lo: int, hi: int, exclude: int) -> int:
        holding = [m for m, (i, j) in enumerate(spans) if i <= lo and hi <= j and m != exclude]
        return min(holding, key=lambda m: spans[m][1] - spans[m][0]) if holding else -1

    assert parent.tolist() == [smallest(i, j, m) for m, (i, j) in enumerate(spans)]
    assert deepest.tolist() == [smallest(w, w, -1) for w in range(len(lcp))]
