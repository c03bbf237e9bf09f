"""Paired significance tests for two systems x and y scored on the same subsets or items.

Every test takes `alternative` in {"two-sided", "greater", "less"}; "greater" always means "x is larger/better
than y". A test that is undefined for its input returns a result with `p_value=None` and a `note` saying why,
never a silent NaN.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
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
        return PairedResult(
            method=method,
            statistic=None,
            p_value=None,
            note=f"all {zero} pairs tie: the sign test needs at least one untied pair",
            **base,
        )
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
        return PairedResult(
            method=method,
            statistic=None,
            statistic_name="T",
            p_value=None,
            note=f"{why}: the signed-rank test is undefined",
            **base,
        )
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
        return PairedResult(
            statistic=None, p_value=None, note=f"{n} pair(s): the t-test needs at least 2", **base
        )
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    details = {"mean_difference": mean, "sd": sd, "df": n - 1}
    if sd == 0 or sd <= 1e-14 * abs(mean):
        return PairedResult(
            statistic=None,
            p_value=None,
            favours=_favours(mean),
            details=details,
            note=f"all {n} differences equal {mean:g}: zero variance, t is undefined",
            **base,
        )
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
        return PairedResult(
            method=method,
            statistic=None,
            statistic_name="min(b, c)",
            p_value=None,
            note=f"no discordant pairs among {xa.size} items: McNemar's test is undefined",
            **base,
        )
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
        return PairedResult(
            statistic=None,
            p_value=None,
            note=f"{n} segment(s) with errors: MAPSSWE needs at least 2",
            favours=_favours(float(diff.sum())),
            **base,
        )
    mean, sd = float(diff.mean()), float(diff.std(ddof=1))
    details.update(mean_difference=mean, sd=sd)
    if sd == 0:
        return PairedResult(
            statistic=None,
            p_value=None,
            favours=_favours(mean),
            note=f"every segment's error difference is {mean:g}: zero variance, Z is undefined",
            **base,
        )
    z = mean / (sd / math.sqrt(n))
    return PairedResult(statistic=z, p_value=_normal_p(z, alternative), favours=_favours(mean), **base)


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
        return PairedResult(
            statistic=None, p_value=None, note=f"{n} subset(s): the bootstrap needs at least 2", **base
        )
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
        return PairedResult(
            method="approximate randomization",
            statistic=None,
            p_value=None,
            note=f"{n} subset(s): the randomization test needs at least 2",
            **base,
        )
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
