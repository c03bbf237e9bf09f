"""The class tree of a loaded index as parent pointers, and the deepest class holding each rank: what joins the
strings of one tree (history/test) to their classes in another (the whole documents)."""

from __future__ import annotations

import numba as nb
import numpy as np

from termx.index.walk import walk_depth


def class_tree(lcp: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """(parent of each non-trivial class or -1, deepest non-trivial class holding each rank or -1), by
    replaying the classes walk (children are popped before their parents)."""
    return _tree(lcp, n_classes, walk_depth(lcp))


@nb.njit(cache=True)
def _tree(lcp, n_classes, depth):  # type: ignore[no-untyped-def]
    """The class walk (termx/index/walk.py) written out: as walk.walk with hooks this pass measured ~1.54x
    slower (bench/bench_walk.py), so it keeps its own loop."""
    n = len(lcp)
    st_start = np.zeros(depth + 1, dtype=np.int32)
    st_sil = np.zeros(depth + 1, dtype=np.int32)
    st_pid = np.zeros(depth + 1, dtype=np.int64)  # pending id: the class a frame will be output as
    out_of_pending = np.full(2 * n + 2, -1, dtype=np.int32)
    parent_pending = np.full(n_classes, -1, dtype=np.int64)
    deepest = np.full(n, -1, dtype=np.int32)
    skip = np.arange(n + 1, dtype=np.int32)  # next rank not yet given a deepest class (path-halving)
    st_sil[0] = -1
    sp = 0
    m = 0
    pid = 0
    for w in range(n):
        h = lcp[w]
        if h > st_sil[sp]:
            sp += 1
            st_start[sp] = w
            st_sil[sp] = h
            st_pid[sp] = pid
            pid += 1
        while h < st_sil[sp]:
            out_of_pending[st_pid[sp]] = m
            r = st_start[sp]
            while r <= w:  # ranks [start, w] without a deeper class get this one
                while skip[r] != r:
                    skip[r] = skip[skip[r]]
                    r = skip[r]
                if r > w:
                    break
                deepest[r] = m
                skip[r] = r + 1
                r += 1
            if h <= st_sil[sp - 1]:
                parent_pending[m] = st_pid[sp - 1]
                sp -= 1
            else:
                st_sil[sp] = h
                st_pid[sp] = pid
                parent_pending[m] = pid
                pid += 1
            m += 1
    parent = np.full(n_classes, -1, dtype=np.int32)
    for c in range(n_classes):
        parent[c] = out_of_pending[parent_pending[c]]
    return parent, deepest
