"""Paired resampling tests of two systems' per-subset scores: the paired bootstrap and approximate randomization
(any metric of the subsets' rows). Conventions as in termx.evaluation.paired: "greater" means x is better, an
undefined test returns `p_value=None` with a `note`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from termx.errors import EvaluationError
from termx.evaluation.paired import (
    Alternative,
    PairedResult,
    _check_alternative,
    _favours,
)

# --- resampling tests -------------------------------------------------------------------------------------

Metric = Callable[[NDArray[np.float64]], float]


def _samples(x: ArrayLike, y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    xa, ya = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if xa.ndim not in (1, 2) or xa.shape != ya.shape:
        raise EvaluationError(f"paired samples must have equal shapes (got {xa.shape} and {ya.shape})")
    if not (np.isfinite(xa).all() and np.isfinite(ya).all()):
        raise EvaluationError("paired samples contain NaN or infinite values")
    return xa, ya


def _mean(a: NDArray[np.float64]) -> float:
    return float(a.mean())


def _resampling_input(x: ArrayLike, y: ArrayLike, alternative: str,
                      resamples: int) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """The checked inputs of a resampling test: x and y as arrays (rows = subsets) and the number of subsets."""
    _check_alternative(alternative)
    if resamples < 1:
        raise EvaluationError(f"resamples must be at least 1 (got {resamples})")
    xa, ya = _samples(x, y)
    return xa, ya, int(xa.shape[0])


def _tolerance(observed: float) -> float:
    """How far a resampled statistic may lie from the observed one and still count as reaching it (rounding)."""
    return float(100 * np.finfo(np.float64).eps * abs(observed))


def paired_bootstrap(
    x: ArrayLike,
    y: ArrayLike,
    metric: Metric = _mean,
    *,
    resamples: int = 9999,
    seed: int = 0,
    alternative: Alternative = "two-sided",
) -> PairedResult:
    """Paired bootstrap over subsets for any corpus-level metric (rows of x, y are subsets; larger = better):
    δ = metric(x) − metric(y); c counts resamples whose δ* strays from δ by at least |δ| towards the null side
    (both sides when two-sided); p = (c + 1) / (R + 1)."""
    xa, ya, n = _resampling_input(x, y, alternative, resamples)
    base: dict[str, Any] = {
        "test": "bootstrap",
        "method": f"paired bootstrap, {resamples} resamples, seed {seed}",
        "statistic_name": "metric(x) - metric(y)",
        "n": n,
        "alternative": alternative,
    }
    if n < 2:
        return PairedResult.undefined(f"{n} subset(s): the bootstrap needs at least 2", **base)
    delta = metric(xa) - metric(ya)
    rng = np.random.default_rng(seed)
    shifted = np.empty(resamples)
    for r in range(resamples):
        idx = rng.integers(0, n, n)
        shifted[r] = metric(xa[idx]) - metric(ya[idx]) - delta
    tol = _tolerance(delta)
    if alternative == "greater":
        c = int((shifted >= delta - tol).sum())
    elif alternative == "less":
        c = int((shifted <= delta + tol).sum())
    else:
        c = int((np.abs(shifted) >= abs(delta) - tol).sum())
    return PairedResult(
        statistic=delta,
        p_value=(c + 1) / (resamples + 1),
        favours=_favours(delta),
        details={"count": c, "resamples": resamples, "seed": seed},
        **base,
    )


def approximate_randomization(
    x: ArrayLike,
    y: ArrayLike,
    metric: Metric = _mean,
    *,
    resamples: int = 9999,
    seed: int = 0,
    alternative: Alternative = "two-sided",
) -> PairedResult:
    """Approximate randomization: swap each subset's x and y rows with probability 1/2 and recompute
    metric(x) − metric(y); p = (c + 1) / (R + 1). When 2^n <= R every assignment is enumerated (p = c / 2^n,
    as scipy.stats.permutation_test does). Two-sided p = 2 · min(one-sided p's), capped at 1."""
    xa, ya, n = _resampling_input(x, y, alternative, resamples)
    base: dict[str, Any] = {
        "test": "permutation",
        "statistic_name": "metric(x) - metric(y)",
        "n": n,
        "alternative": alternative,
    }
    if n < 2:
        return PairedResult.undefined(f"{n} subset(s): the randomization test needs at least 2",
                                      method="approximate randomization", **base)
    observed = metric(xa) - metric(ya)
    exact = 2**n <= resamples
    if exact:
        swaps = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(bool)
        method = f"exact randomization (all {2**n} assignments)"
    else:
        swaps = np.random.default_rng(seed).random((resamples, n)) < 0.5
        method = f"approximate randomization, {resamples} resamples, seed {seed}"
    shape = (n,) + (1,) * (xa.ndim - 1)
    null = np.empty(len(swaps))
    for r, swap in enumerate(swaps):
        mask = swap.reshape(shape)
        null[r] = metric(np.where(mask, ya, xa)) - metric(np.where(mask, xa, ya))
    tol = _tolerance(observed)
    c_ge, c_le = int((null >= observed - tol).sum()), int((null <= observed + tol).sum())
    if exact:
        p_ge, p_le = c_ge / len(swaps), c_le / len(swaps)
    else:
        p_ge, p_le = (c_ge + 1) / (resamples + 1), (c_le + 1) / (resamples + 1)
    p = p_ge if alternative == "greater" else p_le if alternative == "less" else min(1.0, 2 * min(p_ge, p_le))
    return PairedResult(
        method=method,
        statistic=observed,
        p_value=p,
        favours=_favours(observed),
        details={"count_ge": c_ge, "count_le": c_le, "assignments": len(swaps), "exact": exact},
        **base,
    )
