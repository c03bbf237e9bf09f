"""jdf from two bottom-k sketches, with a standard error and a 95 % interval (docs/jdf.md derives them).

U = the hashes of S_x ∪ S_y up to τ (the smaller of the largest hashes of the sketches that are full, i.e. hold
k) is a uniform random sample without replacement of k' = |U| ≥ k documents from x ∪ y (a random hash orders
documents at random; every document of x ∪ y below τ is in the sketches), and a document of U is in x ∩ y
exactly when its hash is in both sketches. So c = |U ∩ S_x ∩ S_y| is hypergeometric: Ĵ = c / k' estimates
the Jaccard J = |x∩y| / |x∪y| with Var(Ĵ) = J(1 − J)/k' · (n − k')/(n − 1), n = |x∪y|. With df_x and df_y known exactly,
jdf = J/(1 + J) · (df_x + df_y); its standard error follows by the delta method, and the interval maps a
Wilson score interval for J (finite-population corrected) through the same increasing function.
When both sketches hold fewer than k hashes they are the whole document sets and the answer is exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    """An estimated jdf with its standard error and 95 % interval; `exact` when the sketches were whole sets."""

    jdf: float
    stderr: float
    low: float
    high: float
    exact: bool


def estimate_jdf(sx: np.ndarray, sy: np.ndarray, df_x: int, df_y: int, k: int, documents: int) -> Estimate:
    """jdf(x, y) from the sorted bottom-k sketches of x and y (df_x, df_y and D exact)."""
    c, kk = union_count(sx, sy, k)
    if len(sx) < k and len(sy) < k:  # both sketches are complete document sets
        return Estimate(float(c), 0.0, float(c), float(c), True)
    return from_count(c, kk, df_x, df_y, documents)


@nb.njit(cache=True)
def union_count(sx, sy, k):  # type: ignore[no-untyped-def]
    """(c, k'): the union's hashes up to τ = the smaller largest hash of the sketches that hold k (the others
    are whole sets), k' of them, c of them in both sketches. Every document of x ∪ y hashing below τ is in
    the sketches, so these k' (between k and 2k) are a uniform sample of x ∪ y — more than the bottom k alone,
    as DataSketches' theta intersection also uses."""
    tau = np.iinfo(np.int64).max
    if len(sx) >= k:
        tau = sx[len(sx) - 1]
    if len(sy) >= k:
        tau = min(tau, sy[len(sy) - 1])
    a = 0
    b = 0
    taken = 0
    shared = 0
    while a < len(sx) or b < len(sy):
        if b >= len(sy) or (a < len(sx) and sx[a] < sy[b]):
            h = sx[a]
            a += 1
        elif a >= len(sx) or sy[b] < sx[a]:
            h = sy[b]
            b += 1
        else:
            h = sx[a]
            a += 1
            b += 1
            shared += 1 if h <= tau else 0
        if h > tau:
            break
        taken += 1
    return shared, taken


@nb.njit(cache=True)
def point(c, kk, df_x, df_y):  # type: ignore[no-untyped-def]
    """ĵdf = Ĵ/(1 + Ĵ)·(df_x + df_y) with Ĵ = c / k', at most min(df_x, df_y)."""
    j = c / kk
    return min(j / (1.0 + j) * (df_x + df_y), float(min(df_x, df_y)))


def from_count(c: int, kk: int, df_x: int, df_y: int, documents: int) -> Estimate:
    """The estimate from c shared documents among the kk smallest hashes of the union (clipped to what the
    margins allow: max(0, df_x + df_y − D) ≤ jdf ≤ min(df_x, df_y))."""
    total = df_x + df_y
    lo_bound, hi_bound = max(0, total - documents), min(df_x, df_y)
    j = c / kk
    est = max(point(c, kk, df_x, df_y), float(lo_bound))
    n = max(total - est, kk)  # estimated |x ∪ y|
    fpc = (n - kk) / (n - 1) if n > 1 else 0.0
    se_j = math.sqrt(max(j * (1 - j), 0.0) / kk * fpc)
    stderr = total / (1 + j) ** 2 * se_j
    jl, jh = _wilson(c, kk, fpc)
    low = min(max(_jdf(jl, total), lo_bound), est)
    high = max(min(_jdf(jh, total), hi_bound), est)
    return Estimate(est, stderr, low, high, False)


def _jdf(j: float, total: int) -> float:
    return j / (1 + j) * total


def _wilson(c: int, n: int, fpc: float) -> tuple[float, float]:
    """Wilson score interval for a proportion c / n, with the variance scaled by the finite-population factor."""
    p = c / n
    z2 = Z95 * Z95 * fpc
    if z2 <= 0:
        return p, p
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = math.sqrt(z2) / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)
