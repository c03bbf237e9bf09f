"""The Viterbi search of the slides' word-breaking procedure: the segmentation with the largest total score."""

from __future__ import annotations

import numba as nb
import numpy as np

from termx.errors import InputError


def viterbi(scores: np.ndarray) -> np.ndarray:
    """Cut offsets (interior word boundaries, ascending) maximising the sum of word scores.

    `scores[p, L-1]` is the score of the word of length L starting at p; -inf forbids it. Ties go to the
    longest last word.
    """
    n = scores.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    back = np.zeros(n + 1, dtype=np.int64)
    total = _forward(np.ascontiguousarray(scores, dtype=np.float64), back)
    if not np.isfinite(total):
        raise InputError("no segmentation is possible", "every character needs a finite single-character score")
    return _cuts(back, n)


@nb.njit(cache=True)
def _forward(scores, back):  # type: ignore[no-untyped-def]
    """best[q] = max over L of best[q-L] + scores[q-L, L-1]; back[q] = the maximising L."""
    n, max_len = scores.shape
    best = np.full(n + 1, -np.inf)
    best[0] = 0.0
    for q in range(1, n + 1):
        top = min(q, max_len)
        for length in range(top, 0, -1):
            v = best[q - length] + scores[q - length, length - 1]
            if v > best[q]:
                best[q] = v
                back[q] = length
    return best[n]


@nb.njit(cache=True)
def _cuts(back, n):  # type: ignore[no-untyped-def]
    m = 0
    q = n
    while q > 0:
        q -= back[q]
        if q > 0:
            m += 1
    out = np.empty(m, dtype=np.int64)
    q = n
    while q > 0:
        q -= back[q]
        if q > 0:
            m -= 1
            out[m] = q
    return out
