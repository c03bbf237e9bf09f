"""The slides' stack walk over LCP, written once: a pass over the class tree is this walk with three hooks.

The walk is a depth-first traversal of the class tree (docs/design.md, "Classes"): it pushes a frame when LCP
rises, and pops the classes <i,j> in walk order (j ascending, then i descending: children before parents). A
pass (classes, df_k, pointer buckets, the sketch merges and their stack depth) supplies what happens at each step:

- `on_push(state, sp, w)`: frame sp was just opened at rank w;
- `on_rank(state, sp, w, st_start)`: rank w lies in the top frame sp (`st_start[1..sp]`: the open frames' starts,
  ascending, for finding the deepest open frame holding an earlier rank);
- `on_pop(state, m, sp, i, j, sil, h, closes)`: frame sp is output as class number m = <i,j> with SIL `sil`
  (h = LCP[j], for LBL); if `closes`, the frame is then dropped and its parent is frame sp - 1, else it stays
  open as a new, shallower class with SIL h and the same start (the popped class is its child).

`walk` is inlined into each pass at compile time (numba `inline="always"`) with the hooks as constants: passing
@njit functions as run-time arguments instead would make numba unable to cache the pass, and the inlined walk
runs as fast as the written-out loops it replaced (bench/bench_walk.py). Two caveats of that inlining: numba's
cache of a pass is keyed on the pass's own source file, so after editing this file, clear the callers' caches
(`__pycache__/*.nbi`, `*.nbc`); and a hook should use each of its arrays for the last time outside any branch, else
numba may carry the array in a loop variable and the pass runs slower (df_k's rank hook was 1.38x slower so;
docs/design.md).
"""

from __future__ import annotations

import numba as nb
import numpy as np


def walk_depth(lcp: np.ndarray) -> int:
    """A bound on the walk's stack depth (frames have strictly increasing SIL from -1)."""
    return int(lcp.max()) + 2 if len(lcp) else 2


@nb.njit(inline="always")
def walk(lcp, depth, state, on_push, on_rank, on_pop):  # type: ignore[no-untyped-def]
    """Walk the class tree of `lcp` with a stack of at most `depth` frames; returns the number of classes popped.

    Frame 0 is a sentinel with SIL -1 (never popped); frames with SIL 0 hold no strings and are never output."""
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
            on_push(state, sp, w)
        on_rank(state, sp, w, st_start)
        while h < st_sil[sp]:
            closes = h <= st_sil[sp - 1]
            on_pop(state, m, sp, st_start[sp], w, st_sil[sp], h, closes)
            m += 1
            if closes:
                sp -= 1
            else:
                st_sil[sp] = h
    return m


@nb.njit(inline="always")
def no_push(state, sp, w):  # type: ignore[no-untyped-def]
    """A pass that keeps nothing per frame."""


@nb.njit(inline="always")
def no_rank(state, sp, w, st_start):  # type: ignore[no-untyped-def]
    """A pass that counts nothing per rank."""


@nb.njit(inline="always")
def no_pop(state, m, sp, i, j, sil, h, closes):  # type: ignore[no-untyped-def]
    """A pass that only counts the classes."""
