"""Paired tests on per-item outcomes (1 = right, 0 = wrong) of two systems: McNemar's test and NIST's matched-pairs
sentence-segment word error test (MAPSSWE, as sc_stats computes it). Conventions as in termx.evaluation.paired:
"greater" means x is better, an undefined test returns `p_value=None` with a `note`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from termx.errors import EvaluationError
from termx.evaluation.paired import (
    Alternative,
    PairedResult,
    _check_alternative,
    _favours,
    _normal_p,
    sign_test_p,
)

# --- McNemar ----------------------------------------------------------------------------------------------


def _outcomes(values: Sequence[int] | ArrayLike, what: str) -> NDArray[np.int64]:
    arr = np.asarray(values)
    if arr.ndim != 1 or not np.isin(arr, (0, 1)).all():
        raise EvaluationError(f"{what} must be a list of 0/1 outcomes (1 = right)")
    return arr.astype(np.int64)


def mcnemar(
    x: Sequence[int] | ArrayLike,
    y: Sequence[int] | ArrayLike,
    *,
    method: Literal["exact", "chi2"] = "exact",
    alternative: Alternative = "two-sided",
) -> PairedResult:
    """McNemar's test on per-item right(1)/wrong(0) pairs: exact binomial on the discordant pairs, or chi2
    with continuity correction max(0, |b − c| − 1)² / (b + c)."""
    _check_alternative(alternative)
    xa, ya = _outcomes(x, "x outcomes"), _outcomes(y, "y outcomes")
    if xa.size != ya.size:
        raise EvaluationError(f"outcome lists differ in length ({xa.size} vs {ya.size})")
    b, c = int(((xa == 1) & (ya == 0)).sum()), int(((xa == 0) & (ya == 1)).sum())
    n = b + c
    details = {
        "x_only_right": b,
        "y_only_right": c,
        "both_right": int(((xa == 1) & (ya == 1)).sum()),
        "both_wrong": int(((xa == 0) & (ya == 0)).sum()),
        "items": int(xa.size),
    }
    base: dict[str, Any] = {
        "test": "mcnemar",
        "n": n,
        "alternative": alternative,
        "favours": _favours(b - c),
        "details": details,
        "ties": int(xa.size) - n,
    }
    if n == 0:
        return PairedResult.undefined(f"no discordant pairs among {xa.size} items: McNemar's test is undefined",
                                      method=method, statistic_name="min(b, c)", **base)
    if method == "exact":
        k = min(b, c) if alternative == "two-sided" else (c if alternative == "greater" else b)
        p = float(sign_test_p(k, n, 2 if alternative == "two-sided" else 1))
        name = "min(b, c)" if alternative == "two-sided" else ("c" if alternative == "greater" else "b")
        return PairedResult(
            method="exact binomial", statistic=float(k), statistic_name=name, p_value=p, **base
        )
    if method != "chi2":
        raise EvaluationError(f"unknown McNemar method {method!r}", "use exact or chi2")
    chi2 = max(0, abs(b - c) - 1) ** 2 / n
    z = math.copysign(math.sqrt(chi2), b - c)
    p = float(stats.chi2.sf(chi2, 1)) if alternative == "two-sided" else _normal_p(z, alternative)
    return PairedResult(
        method="chi-square (continuity corrected)", statistic=chi2, statistic_name="chi2", p_value=p, **base
    )


# --- MAPSSWE ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Segment:
    """One MAPSSWE segment: items start..end (inclusive) of subset `subset`, each system's error count."""

    subset: int
    start: int
    end: int
    x_errors: int
    y_errors: int


def _subset_segments(s: int, xa: NDArray[np.int64], ya: NDArray[np.int64], min_good: int) -> list[Segment]:
    """sc_stats's state machine over one subset: b = no error yet, e = in errors, g = counting right items."""
    segments: list[Segment] = []

    def close(begin: int, end: int) -> None:
        begin = max(begin, 0)
        ex, ey = int((xa[begin : end + 1] == 0).sum()), int((ya[begin : end + 1] == 0).sum())
        if ex or ey:
            segments.append(Segment(s, begin, end, ex, ey))

    state, good, last_good = "b", 0, 0
    for i in range(xa.size):
        both = bool(xa[i] and ya[i])
        if state == "b":
            if both:
                last_good = i
            else:
                state = "e"
        elif both:
            good = 1 if state == "e" else good + 1
            state = "g"
            if good == min_good:
                close(last_good - (min_good - 1), i)
                state, last_good = "b", i
        else:
            state = "e"
    if state != "b":
        close(last_good - (min_good - 1), xa.size - 1)
    return segments


def mapsswe_segments(
    x: Sequence[Sequence[int]], y: Sequence[Sequence[int]], min_good: int = 2
) -> list[Segment]:
    """Split each subset's item sequence as NIST's sc_stats does: a segment closes once both systems have been
    right on `min_good` consecutive items, and starts `min_good` − 1 items before the first error after the
    last jointly-right item, so bounding right items belong to it. Error-free segments are dropped."""
    if min_good < 1:
        raise EvaluationError(f"min_good must be at least 1 (got {min_good})")
    if len(x) != len(y):
        raise EvaluationError(f"x has {len(x)} subsets, y has {len(y)}")
    segments: list[Segment] = []
    for s, (xs, ys) in enumerate(zip(x, y, strict=True)):
        xa, ya = _outcomes(xs, f"x outcomes of subset {s}"), _outcomes(ys, f"y outcomes of subset {s}")
        if xa.size != ya.size:
            raise EvaluationError(f"subset {s}: outcome lists differ in length ({xa.size} vs {ya.size})")
        segments.extend(_subset_segments(s, xa, ya, min_good))
    return segments


def mapsswe(
    x: Sequence[Sequence[int]],
    y: Sequence[Sequence[int]],
    *,
    min_good: int = 2,
    alternative: Alternative = "two-sided",
) -> PairedResult:
    """Matched-pair sentence-segment word error test (Gillick & Cox 1989, as in sc_stats): Z = mean / (s / √n)
    over segments of (y errors − x errors), so Z > 0 means x made fewer errors; p from the standard normal."""
    _check_alternative(alternative)
    segments = mapsswe_segments(x, y, min_good)
    diff = np.array([seg.y_errors - seg.x_errors for seg in segments], dtype=np.float64)
    n = int(diff.size)
    details: dict[str, Any] = {
        "segments": n,
        "min_good": min_good,
        "x_errors": sum(s.x_errors for s in segments),
        "y_errors": sum(s.y_errors for s in segments),
    }
    base: dict[str, Any] = {
        "test": "mapsswe",
        "method": "normal",
        "statistic_name": "Z",
        "n": n,
        "alternative": alternative,
        "ties": int((diff == 0).sum()),
        "details": details,
    }
    if n < 2:
        return PairedResult.undefined(f"{n} segment(s) with errors: MAPSSWE needs at least 2",
                                      favours=_favours(float(diff.sum())), **base)
    mean, sd = float(diff.mean()), float(diff.std(ddof=1))
    details.update(mean_difference=mean, sd=sd)
    if sd == 0:
        return PairedResult.undefined(f"every segment's error difference is {mean:g}: zero variance, Z is undefined",
                                      favours=_favours(mean), **base)
    z = mean / (sd / math.sqrt(n))
    return PairedResult(statistic=z, p_value=_normal_p(z, alternative), favours=_favours(mean), **base)
