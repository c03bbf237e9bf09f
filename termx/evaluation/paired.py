"""Paired significance tests for two systems x and y scored on the same subsets: the sign test, Wilcoxon's
signed-rank test and the paired t-test, and what every paired test shares (PairedResult, the alternatives).
McNemar and MAPSSWE (per-item outcomes) are in paired_outcomes.py, the resampling tests in resampling.py.

Every test takes `alternative` in {"two-sided", "greater", "less"}; "greater" always means "x is larger/better
than y". A test that is undefined for its input returns a result with `p_value=None` and a `note` saying why,
never a silent NaN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from termx.errors import EvaluationError

Alternative = Literal["two-sided", "greater", "less"]
Side = Literal["x", "y"]
ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class PairedResult:
    """One test's outcome; `favours` is the side the data point to, whatever the p-value."""

    test: str
    method: str
    statistic: float | None
    statistic_name: str
    p_value: float | None
    n: int
    alternative: str
    favours: Side | None = None
    ties: int = 0
    note: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def undefined(cls, note: str, **fields: Any) -> PairedResult:
        """The result of a test that is undefined for its input: no statistic, no p-value, and `note` says why."""
        return cls(statistic=None, p_value=None, note=note, **fields)


def _check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise EvaluationError(f"unknown alternative {alternative!r}", "use two-sided, greater or less")


def _differences(x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
    """x − y as floats, after checking the two samples pair up and are finite."""
    xa, ya = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if xa.ndim != 1 or xa.shape != ya.shape:
        raise EvaluationError(
            f"paired samples must be 1-D and of equal length (got {xa.shape} and {ya.shape})"
        )
    if not (np.isfinite(xa).all() and np.isfinite(ya).all()):
        raise EvaluationError("paired samples contain NaN or infinite values")
    return xa - ya


def _favours(signed: float) -> Side | None:
    return "x" if signed > 0 else "y" if signed < 0 else None


def _normal_p(z: float, alternative: str) -> float:
    """p-value of a standard-normal statistic (upper tail = 'greater')."""
    if alternative == "greater":
        return float(stats.norm.sf(z))
    if alternative == "less":
        return float(stats.norm.cdf(z))
    return float(min(1.0, 2.0 * stats.norm.sf(abs(z))))


# --- sign test --------------------------------------------------------------------------------------------


def binomial_half_cdf(c: int, n: int) -> Fraction:
    """Exact P(B(n, 1/2) <= c) as a fraction: the sign test's tail at every N (no normal switch-over)."""
    if c < 0:
        return Fraction(0)
    return Fraction(sum(math.comb(n, i) for i in range(min(c, n) + 1)), 2**n)


def sign_test_p(c: int, n: int, tails: int = 2) -> Fraction:
    """Exact sign-test p-value for the count c of n untied subsets: P(C <= c), doubled if two-tailed."""
    p = binomial_half_cdf(c, n) * (2 if tails == 2 else 1)
    return min(p, Fraction(1))


def sign_test(
    x: ArrayLike,
    y: ArrayLike,
    *,
    ties: Literal["drop", "split"] = "drop",
    alternative: Alternative = "two-sided",
    method: Literal["exact", "normal"] = "exact",
) -> PairedResult:
    """Sign test on paired values: exact binomial B(N, 1/2) by default; ties dropped (the seed's rule) or
    split half and half as NIST's sc_stats does, an odd tie going to the side with fewer wins."""
    _check_alternative(alternative)
    if ties not in ("drop", "split"):
        raise EvaluationError(f"unknown tie handling {ties!r}", "use drop or split")
    d = _differences(x, y)
    pos, neg, zero = int((d > 0).sum()), int((d < 0).sum()), int((d == 0).sum())
    plus, minus = pos, neg
    if ties == "split":
        plus, minus = plus + zero // 2, minus + zero // 2
        if zero % 2:
            if plus < minus:
                plus += 1
            else:
                minus += 1
    n = plus + minus
    details: dict[str, Any] = {"x_better": pos, "y_better": neg, "ties": zero, "n_plus": plus, "n_minus": minus}
    name = "min(N+, N-)" if alternative == "two-sided" else ("N-" if alternative == "greater" else "N+")
    base: dict[str, Any] = {
        "test": "sign",
        "statistic_name": name,
        "n": n,
        "alternative": alternative,
        "ties": zero,
        "favours": _favours(plus - minus),
        "details": details,
    }
    if n == 0:
        return PairedResult.undefined(f"all {zero} pairs tie: the sign test needs at least one untied pair",
                                      method=method, **base)
    c = min(plus, minus) if alternative == "two-sided" else (minus if alternative == "greater" else plus)
    tails = 2 if alternative == "two-sided" else 1
    if method == "exact":
        p = float(sign_test_p(c, n, tails))
        label = "exact binomial"
    elif method == "normal":
        z = (c + 0.5 - n / 2) / (math.sqrt(n) / 2)  # continuity-corrected lower tail
        p = float(min(1.0, tails * stats.norm.cdf(z)))
        label = "normal approximation (continuity corrected)"
        details["z"] = z
    else:
        raise EvaluationError(f"unknown sign-test method {method!r}", "use exact or normal")
    return PairedResult(method=label, statistic=float(c), p_value=p, **base)


def sign_test_critical_value(n: int, alpha: float = 0.05, tails: int = 2) -> int | None:
    """Largest c with P(C <= c) <= alpha for N = n untied subsets, exactly; None if no c qualifies."""
    if n < 1:
        raise EvaluationError(f"N must be at least 1 (got {n})")
    if not 0 < alpha < 1:
        raise EvaluationError(f"alpha must lie in (0, 1) (got {alpha})")
    if tails not in (1, 2):
        raise EvaluationError(f"tails must be 1 or 2 (got {tails})")
    level = Fraction(repr(alpha))  # the decimal the user typed, not its binary neighbour
    best = None
    for c in range(n // 2 + 1):
        if sign_test_p(c, n, tails) > level:
            break
        best = c
    return best


def sign_test_table(
    alpha: float = 0.05, tails: int = 2, n_min: int = 5, n_max: int = 50
) -> list[dict[str, Any]]:
    """Critical values of the sign test for N = n_min..n_max: reject H0 when min(N+, N-) <= critical_value."""
    if n_min < 1 or n_max < n_min:
        raise EvaluationError(f"bad N range {n_min}..{n_max}")
    rows = []
    for n in range(n_min, n_max + 1):
        c = sign_test_critical_value(n, alpha, tails)
        rows.append(
            {"n": n, "critical_value": c, "p_value": None if c is None else float(sign_test_p(c, n, tails))}
        )
    return rows


# --- Wilcoxon signed-rank ---------------------------------------------------------------------------------


def _signed_rank_exact(doubled_ranks: NDArray[np.int64], r2_plus: int) -> tuple[float, float]:
    """(P(T+ <= t), P(T+ >= t)) under random signs, in doubled-rank units so midranks stay integers."""
    total = int(doubled_ranks.sum())
    pmf = np.zeros(total + 1)
    pmf[0] = 1.0
    for r in doubled_ranks:
        shifted = np.zeros_like(pmf)
        shifted[r:] = pmf[: total + 1 - r]
        pmf = 0.5 * (pmf + shifted)
    return float(pmf[: r2_plus + 1].sum()), float(pmf[r2_plus:].sum())


def wilcoxon(
    x: ArrayLike,
    y: ArrayLike,
    *,
    zero_method: Literal["wilcox", "pratt"] = "wilcox",
    alternative: Alternative = "two-sided",
    method: Literal["auto", "exact", "normal"] = "auto",
    correction: bool = True,
) -> PairedResult:
    """Wilcoxon signed-rank test. Exact = the permutation distribution of T+ (exact with ties and Pratt zeros
    too); normal = z with tie correction (and Pratt's zero adjustment) and an optional continuity correction.
    `auto` is exact up to 50 ranked pairs. Zeros: dropped (wilcox) or ranked unsigned (pratt)."""
    _check_alternative(alternative)
    if zero_method not in ("wilcox", "pratt"):
        raise EvaluationError(f"unknown zero method {zero_method!r}", "use wilcox or pratt")
    if method not in ("auto", "exact", "normal"):
        raise EvaluationError(f"unknown Wilcoxon method {method!r}", "use auto, exact or normal")
    d = _differences(x, y)
    n_zero = int((d == 0).sum())
    ranked = d[d != 0] if zero_method == "wilcox" else d
    n = int(ranked.size)
    favours: Side | None = None
    base: dict[str, Any] = {"test": "wilcoxon", "n": n, "alternative": alternative, "ties": n_zero}
    if n_zero == d.size:
        why = "no pairs" if d.size == 0 else f"all {n_zero} differences are zero"
        return PairedResult.undefined(f"{why}: the signed-rank test is undefined",
                                      method=method, statistic_name="T", **base)
    ranks = stats.rankdata(np.abs(ranked))
    r_plus, r_minus = float(ranks[ranked > 0].sum()), float(ranks[ranked < 0].sum())
    favours = _favours(r_plus - r_minus)
    statistic = min(r_plus, r_minus) if alternative == "two-sided" else r_plus
    name = "min(T+, T-)" if alternative == "two-sided" else "T+"
    details: dict[str, Any] = {"r_plus": r_plus, "r_minus": r_minus, "zero_method": zero_method}
    use_exact = method == "exact" or (method == "auto" and n <= 50)
    if use_exact:
        doubled = np.rint(2 * ranks[ranked != 0]).astype(np.int64)
        p_le, p_ge = _signed_rank_exact(doubled, int(round(2 * r_plus)))
        p = (
            p_ge
            if alternative == "greater"
            else p_le
            if alternative == "less"
            else min(1.0, 2 * min(p_le, p_ge))
        )
        return PairedResult(
            method="exact",
            statistic=statistic,
            statistic_name=name,
            p_value=p,
            favours=favours,
            details=details,
            **base,
        )
    mean = n * (n + 1) / 4
    var24 = float(n * (n + 1) * (2 * n + 1))
    _, counts = np.unique(np.abs(ranked), return_counts=True)
    if zero_method == "pratt" and n_zero:
        mean -= n_zero * (n_zero + 1) / 4
        var24 -= n_zero * (n_zero + 1) * (2 * n_zero + 1)
        counts = counts[1:]  # the zeros' tie group is not tie-corrected
    var24 -= float((counts**3 - counts).sum()) / 2
    se = math.sqrt(var24 / 24)
    z = (r_plus - mean) / se
    if correction:
        sign = 1.0 if alternative == "greater" else -1.0 if alternative == "less" else float(np.sign(z))
        z -= sign * 0.5 / se
    details["z"] = z
    label = "normal approximation" + (" (tie and continuity corrected)" if correction else " (tie corrected)")
    return PairedResult(
        method=label,
        statistic=statistic,
        statistic_name=name,
        p_value=_normal_p(z, alternative),
        favours=favours,
        details=details,
        **base,
    )


# --- paired t ---------------------------------------------------------------------------------------------


def paired_ttest(x: ArrayLike, y: ArrayLike, *, alternative: Alternative = "two-sided") -> PairedResult:
    """Paired t-test on x − y (Student t with N − 1 degrees of freedom); Cohen's d_z in the details."""
    _check_alternative(alternative)
    d = _differences(x, y)
    n = int(d.size)
    base: dict[str, Any] = {
        "test": "ttest",
        "method": "Student t",
        "statistic_name": "t",
        "n": n,
        "alternative": alternative,
        "ties": int((d == 0).sum()),
    }
    if n < 2:
        return PairedResult.undefined(f"{n} pair(s): the t-test needs at least 2", **base)
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    details = {"mean_difference": mean, "sd": sd, "df": n - 1}
    if sd == 0 or sd <= 1e-14 * abs(mean):
        return PairedResult.undefined(f"all {n} differences equal {mean:g}: zero variance, t is undefined",
                                      favours=_favours(mean), details=details, **base)
    t = mean / (sd / math.sqrt(n))
    dist = stats.t(n - 1)
    p = float(
        dist.sf(t)
        if alternative == "greater"
        else dist.cdf(t)
        if alternative == "less"
        else min(1.0, 2 * dist.sf(abs(t)))
    )
    details["cohen_dz"] = mean / sd
    return PairedResult(statistic=t, p_value=p, favours=_favours(mean), details=details, **base)
