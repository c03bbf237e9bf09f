"""Paired tests against scipy.stats / statsmodels (to 1e-9) and against hand-worked and published values."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from termx.errors import EvaluationError
from termx.evaluation.paired import (
    paired_ttest,
    sign_test,
    sign_test_critical_value,
    sign_test_table,
    wilcoxon,
)
from termx.evaluation.paired_outcomes import Segment, mapsswe, mapsswe_segments, mcnemar
from termx.evaluation.resampling import approximate_randomization, paired_bootstrap

TOL = 1e-9
ALTS = st.sampled_from(["two-sided", "greater", "less"])


@st.composite
def pairs(draw: st.DrawFn, min_size: int = 0, max_size: int = 15, hi: int = 4) -> tuple[list[int], list[int]]:
    """Paired small integers: plenty of ties, zero differences and all-equal samples."""
    n = draw(st.integers(min_size, max_size))
    x = draw(st.lists(st.integers(0, hi), min_size=n, max_size=n))
    y = draw(st.lists(st.integers(0, hi), min_size=n, max_size=n))
    return x, y


@pytest.fixture(autouse=True)
def _quiet_references():
    """The references warn about degenerate inputs; the tests check those cases explicitly."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# --- sign test --------------------------------------------------------------------------------------------


def test_sign_test_contract_example():
    res = sign_test([3, 5, 2, 6, 4, 7, 5, 6], [1, 2, 2, 3, 1, 2, 4, 1])
    assert res.p_value == 0.015625 and res.n == 7 and res.ties == 1 and res.favours == "x"


@settings(max_examples=100, deadline=None)
@given(pairs(max_size=40), ALTS)
def test_sign_test_matches_binomtest(xy, alternative):
    x, y = xy
    pos = sum(a > b for a, b in zip(x, y, strict=True))
    neg = sum(a < b for a, b in zip(x, y, strict=True))
    res = sign_test(x, y, alternative=alternative)
    if pos + neg == 0:
        with pytest.raises(ValueError):
            stats.binomtest(0, 0)
        assert res.p_value is None and "tie" in (res.note or "")
    else:
        ref = stats.binomtest(pos, pos + neg, 0.5, alternative=alternative).pvalue
        assert abs(res.p_value - ref) <= TOL
        assert res.n == pos + neg and res.ties == len(x) - pos - neg


@settings(max_examples=100, deadline=None)
@given(pairs(min_size=1, max_size=40), ALTS)
def test_sign_test_split_ties_matches_binomtest(xy, alternative):
    x, y = xy
    pos = sum(a > b for a, b in zip(x, y, strict=True))
    neg = sum(a < b for a, b in zip(x, y, strict=True))
    zero = len(x) - pos - neg
    plus, minus = pos + zero // 2, neg + zero // 2
    if zero % 2:  # the odd tie goes to the side with fewer wins
        plus, minus = (plus + 1, minus) if plus < minus else (plus, minus + 1)
    res = sign_test(x, y, ties="split", alternative=alternative)
    assert res.n == len(x)
    assert abs(res.p_value - stats.binomtest(plus, len(x), 0.5, alternative=alternative).pvalue) <= TOL


def test_sign_test_is_exact_beyond_n_20():
    """sc_stats switches to a bad normal approximation above N = 20 (N = 21, min = 10 gives it 0.016)."""
    res = sign_test([1] * 11 + [0] * 10, [0] * 11 + [1] * 10)
    assert res.n == 21 and res.statistic == 10 and res.p_value == 1.0
    big = sign_test([1] * 130 + [0] * 70, [0] * 130 + [1] * 70)
    assert abs(big.p_value - stats.binomtest(130, 200).pvalue) <= TOL


def test_sign_test_normal_option_is_continuity_corrected():
    res = sign_test([1] * 230 + [0] * 170, [0] * 230 + [1] * 170, method="normal")
    z = (170 + 0.5 - 200) / (math.sqrt(400) / 2)
    assert abs(res.p_value - 2 * stats.norm.cdf(z)) <= TOL
    assert abs(res.p_value - stats.binomtest(230, 400).pvalue) < 1e-3
    assert sign_test([1, 0], [0, 1], method="normal").p_value == 1.0


PUBLISHED_TWO_TAILED_05 = {6: 0, 7: 0, 8: 0, 9: 1, 10: 1, 11: 1, 12: 2, 13: 2, 14: 2, 15: 3, 16: 3, 17: 4,
                           18: 4, 19: 4, 20: 5, 21: 5, 22: 5, 23: 6, 24: 6, 25: 7}


@pytest.mark.parametrize("tails", [1, 2])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
def test_critical_values_equal_an_exact_computation(alpha, tails):
    for row in sign_test_table(alpha, tails):
        n = row["n"]
        qualifying = [c for c in range(n + 1) if tails * stats.binom.cdf(c, n, 0.5) <= alpha * (1 + 1e-12)]
        assert row["critical_value"] == (max(qualifying) if qualifying else None)
    assert [r["n"] for r in sign_test_table(alpha, tails)] == list(range(5, 51))


def test_critical_values_match_the_published_table():
    got = {r["n"]: r["critical_value"] for r in sign_test_table(0.05, 2)}
    assert {n: got[n] for n in PUBLISHED_TWO_TAILED_05} == PUBLISHED_TWO_TAILED_05
    assert got[5] is None  # 2 / 32 > 0.05: nothing is significant with five subsets
    assert sign_test_critical_value(5, 0.0625, 2) == 0  # P = alpha exactly counts


def test_critical_value_rejects_bad_arguments():
    for args in ((0, 0.05, 2), (10, 1.5, 2), (10, 0.05, 3)):
        with pytest.raises(EvaluationError):
            sign_test_critical_value(*args)


# --- Wilcoxon ---------------------------------------------------------------------------------------------


@st.composite
def distinct_differences(draw: st.DrawFn) -> list[int]:
    """Differences with distinct non-zero magnitudes: the case scipy's exact distribution is exact for."""
    n = draw(st.integers(1, 25))
    mags = draw(st.permutations(range(1, 40)))[:n]
    signs = draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
    return [m * s for m, s in zip(mags, signs, strict=True)]


@settings(max_examples=100, deadline=None)
@given(distinct_differences(), ALTS, st.sampled_from(["wilcox", "pratt"]))
def test_wilcoxon_exact_matches_scipy_exact(d, alternative, zero_method):
    res = wilcoxon(d, [0] * len(d), zero_method=zero_method, alternative=alternative, method="exact")
    ref = stats.wilcoxon(d, zero_method=zero_method, alternative=alternative, method="exact")
    assert abs(res.p_value - ref.pvalue) <= TOL and res.statistic == ref.statistic


@settings(max_examples=60, deadline=None)
@given(pairs(max_size=9, hi=3), ALTS, st.sampled_from(["wilcox", "pratt"]))
def test_wilcoxon_exact_with_ties_and_zeros_matches_scipy_permutation(xy, alternative, zero_method):
    """With ties or zeros termx's exact p is the permutation distribution of T+, which scipy enumerates
    completely when 2^n <= n_resamples."""
    x, y = xy
    res = wilcoxon(x, y, zero_method=zero_method, alternative=alternative, method="exact")
    d = np.subtract(x, y)
    if not d.any():
        assert res.p_value is None and ("zero" in (res.note or "") or "no pairs" in (res.note or ""))
        # scipy's method="exact" answers 1 (wilcox) or 0.5 (pratt, [0, 0]) here, from a null distribution
        # with nothing to sign; termx reports the test as undefined and says why
        return
    # scipy's permutation test refuses one observation; with one pair the exact distribution is the same
    method = stats.PermutationMethod(n_resamples=9999) if d.size > 1 else "exact"
    ref = stats.wilcoxon(x, y, zero_method=zero_method, alternative=alternative, method=method)
    assert abs(res.p_value - ref.pvalue) <= TOL
    assert res.statistic == ref.statistic


@settings(max_examples=100, deadline=None)
@given(pairs(max_size=60, hi=6), ALTS, st.sampled_from(["wilcox", "pratt"]), st.booleans())
def test_wilcoxon_normal_matches_scipy_asymptotic(xy, alternative, zero_method, correction):
    x, y = xy
    res = wilcoxon(x, y, zero_method=zero_method, alternative=alternative, method="normal", correction=correction)
    if not np.subtract(x, y).any():
        ref = stats.wilcoxon(x, y, zero_method=zero_method, method="asymptotic") if x else None
        assert ref is None or math.isnan(ref.pvalue)
        assert res.p_value is None and res.note
        return
    ref = stats.wilcoxon(x, y, zero_method=zero_method, correction=correction, alternative=alternative,
                         method="asymptotic")
    assert abs(res.p_value - ref.pvalue) <= TOL
    assert res.statistic == ref.statistic
    z_ref = ref.zstatistic if alternative != "two-sided" else -abs(ref.zstatistic)
    z = res.details["z"] if alternative != "two-sided" else -abs(res.details["z"])
    assert abs(z - z_ref) <= TOL


def test_wilcoxon_auto_is_exact_up_to_50():
    d = list(range(1, 51))
    assert wilcoxon(d, [0] * 50).method == "exact"
    assert wilcoxon(list(range(1, 52)), [0] * 51).method.startswith("normal")


def test_wilcoxon_counts_dropped_zeros_and_pratt_keeps_them():
    x, y = [1, 2, 3, 4, 4], [0, 0, 0, 0, 4]
    assert wilcoxon(x, y).n == 4 and wilcoxon(x, y).ties == 1
    assert wilcoxon(x, y, zero_method="pratt").n == 5


# --- paired t ---------------------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(pairs(max_size=30, hi=9), ALTS)
def test_paired_t_matches_scipy(xy, alternative):
    x, y = xy
    res = paired_ttest(x, y, alternative=alternative)
    d = np.subtract(x, y)
    if len(x) < 2:
        assert res.p_value is None and "at least 2" in (res.note or "")
        return
    ref = stats.ttest_rel(x, y, alternative=alternative)
    if np.all(d == d[0]):
        assert res.p_value is None and "zero variance" in (res.note or "")
        assert math.isnan(ref.pvalue) or ref.pvalue in (0.0, 1.0)  # scipy: NaN for all-equal, inf t otherwise
        return
    assert abs(res.statistic - ref.statistic) <= TOL * max(1.0, abs(ref.statistic))
    assert abs(res.p_value - ref.pvalue) <= TOL


# --- McNemar ----------------------------------------------------------------------------------------------


@st.composite
def outcome_pairs(draw: st.DrawFn, max_size: int = 60) -> tuple[list[int], list[int]]:
    n = draw(st.integers(0, max_size))
    bits = st.lists(st.integers(0, 1), min_size=n, max_size=n)
    return draw(bits), draw(bits)


def _table(x, y):
    x, y = np.asarray(x), np.asarray(y)
    return [[int(((x == 1) & (y == 1)).sum()), int(((x == 1) & (y == 0)).sum())],
            [int(((x == 0) & (y == 1)).sum()), int(((x == 0) & (y == 0)).sum())]]


@settings(max_examples=100, deadline=None)
@given(outcome_pairs())
def test_mcnemar_matches_statsmodels(xy):
    x, y = xy
    table = _table(x, y)
    b, c = table[0][1], table[1][0]
    exact, chi2 = mcnemar(x, y), mcnemar(x, y, method="chi2")
    if b + c == 0:
        # statsmodels answers p = 1 (exact) and p = 0 with an infinite statistic (chi2) here
        assert exact.p_value is None and chi2.p_value is None and "discordant" in (exact.note or "")
        return
    ref = sm_mcnemar(table, exact=True)
    assert abs(exact.p_value - ref.pvalue) <= TOL and exact.statistic == ref.statistic
    ref = sm_mcnemar(table, exact=False, correction=True)
    if b != c:
        assert abs(chi2.p_value - ref.pvalue) <= TOL and abs(chi2.statistic - ref.statistic) <= TOL
    else:
        # statsmodels computes (|b - c| - 1)^2 / n = 1 / n here; the corrected statistic cannot go below 0
        assert chi2.statistic == 0 and chi2.p_value == 1.0


@settings(max_examples=60, deadline=None)
@given(outcome_pairs(), ALTS)
def test_mcnemar_exact_is_the_sign_test_on_discordant_items(xy, alternative):
    x, y = xy
    got, ref = mcnemar(x, y, alternative=alternative), sign_test(x, y, alternative=alternative)
    assert got.p_value == ref.p_value and got.n == ref.n


def test_mcnemar_rejects_non_binary_outcomes():
    with pytest.raises(EvaluationError):
        mcnemar([0, 1, 2], [0, 1, 1])
    with pytest.raises(EvaluationError):
        mcnemar([0, 1], [0, 1, 1])


# --- MAPSSWE ----------------------------------------------------------------------------------------------

# Hand-worked example (outcome 1 = right). Both-right items are marked '.', errors by the erring system.
#   subset 0  i: 0 1 2 3 4 5 6 7 8 9 10 11
#             x: 1 1 0 1 1 1 1 0 1 0 1  1
#             y: 1 1 1 1 1 1 0 0 1 1 1  1
#     error at 2 -> segment starts 1 item before the last jointly-right item (1), i.e. at 0; items 3, 4 are
#     right for both -> closes at 4: [0..4] x 1 error, y 0.  Error again at 6 (last jointly-right = 5 ->
#     start 4, so item 4 bounds both segments); 8 right, 9 x wrong, 10, 11 right -> closes at 11: [4..11]
#     x errors at 7, 9 = 2, y errors at 6, 7 = 2.
#   subset 1  x: 0 1 1 1 / y: 1 1 0 1 -> never two jointly-right items after an error: [0..3], 1 vs 1.
#   subset 2  x: 1 1 1 1 0 / y: all right -> the subset's end closes [2..4], 1 vs 0.
#   subset 3  all right for both -> no segment.
#   subset 4  x: 1 0 1 1 0 1 1 / y: 0 1 1 1 1 1 1 -> [0..3] 1 vs 1, then [2..6] 1 vs 0.
# Differences y − x per segment: -1, 0, 0, -1, 0, -1: n = 6, mean = -1/2, s² = 6·(1/4)/5 = 0.3,
# Z = -0.5 / (sqrt(0.3) / sqrt(6)) = -sqrt(5); two-sided p = 2·(1 − Φ(sqrt 5)).
MAPSSWE_X = [[1, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1], [0, 1, 1, 1], [1, 1, 1, 1, 0], [1, 1, 1], [1, 0, 1, 1, 0, 1, 1]]
MAPSSWE_Y = [[1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1], [1, 1, 0, 1], [1, 1, 1, 1, 1], [1, 1, 1], [0, 1, 1, 1, 1, 1, 1]]


def test_mapsswe_hand_worked_segments():
    assert mapsswe_segments(MAPSSWE_X, MAPSSWE_Y) == [
        Segment(0, 0, 4, 1, 0), Segment(0, 4, 11, 2, 2), Segment(1, 0, 3, 1, 1), Segment(2, 2, 4, 1, 0),
        Segment(4, 0, 3, 1, 1), Segment(4, 2, 6, 1, 0)]


def test_mapsswe_hand_worked_statistic():
    res = mapsswe(MAPSSWE_X, MAPSSWE_Y)
    assert res.n == 6 and res.favours == "y"
    assert abs(res.statistic - (-math.sqrt(5))) <= TOL
    assert abs(res.p_value - 2 * stats.norm.sf(math.sqrt(5))) <= TOL
    assert abs(mapsswe(MAPSSWE_X, MAPSSWE_Y, alternative="less").p_value - stats.norm.sf(math.sqrt(5))) <= TOL


def test_mapsswe_min_good_one_closes_on_the_first_right_item():
    assert mapsswe_segments([[1, 0, 1, 0, 1]], [[1, 1, 1, 1, 1]], min_good=1) == [
        Segment(0, 0, 2, 1, 0), Segment(0, 2, 4, 1, 0)]


@settings(max_examples=100, deadline=None)
@given(st.lists(outcome_pairs(max_size=20), min_size=1, max_size=6))
def test_mapsswe_segments_cover_every_error_once(subsets):
    x = [a for a, _ in subsets]
    y = [b for _, b in subsets]
    segs = mapsswe_segments(x, y)
    assert sum(s.x_errors for s in segs) == sum(v.count(0) for v in x)
    assert sum(s.y_errors for s in segs) == sum(v.count(0) for v in y)
    assert all(s.x_errors + s.y_errors > 0 for s in segs)
    res = mapsswe(x, y)
    if res.p_value is None:
        assert res.note
    else:
        diff = [s.y_errors - s.x_errors for s in segs]
        ref = np.mean(diff) / (np.std(diff, ddof=1) / math.sqrt(len(diff)))
        assert abs(res.statistic - ref) <= TOL * max(1.0, abs(ref))


def test_mapsswe_undefined_cases_say_why():
    assert "at least 2" in (mapsswe([[1, 1, 1]], [[1, 1, 1]]).note or "")
    assert "zero variance" in (mapsswe([[0, 1, 1], [0, 1, 1]], [[1, 1, 1], [1, 1, 1]]).note or "")


# --- resampling tests -------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(pairs(min_size=1, max_size=8, hi=5), ALTS)
def test_randomization_matches_scipy_permutation_test(xy, alternative):
    x, y = xy
    res = approximate_randomization(x, y, alternative=alternative)
    if len(x) < 2:  # scipy refuses a single observation too
        assert res.p_value is None and "at least 2" in (res.note or "")
        return
    ref = stats.permutation_test((np.array(x, float), np.array(y, float)),
                                 lambda a, b, axis: np.mean(a, axis=axis) - np.mean(b, axis=axis),
                                 permutation_type="samples", vectorized=True, n_resamples=9999,
                                 alternative=alternative)
    assert abs(res.p_value - ref.pvalue) <= TOL and res.details["exact"]


def test_randomization_sampled_is_seeded_and_uses_c_plus_one():
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=30), rng.normal(size=30) + 0.3
    one, two = approximate_randomization(x, y, resamples=999, seed=3), approximate_randomization(
        x, y, resamples=999, seed=3)
    assert one.p_value == two.p_value and not one.details["exact"]
    # the same 999 seeded assignments recomputed by hand: counts and p = 2 min((c + 1) / (R + 1)) must match
    swaps = np.random.default_rng(3).random((999, 30)) < 0.5
    null = np.array([np.where(s, y, x).mean() - np.where(s, x, y).mean() for s in swaps])
    observed = x.mean() - y.mean()
    c_ge, c_le = int((null >= observed).sum()), int((null <= observed).sum())
    assert (one.details["count_ge"], one.details["count_le"]) == (c_ge, c_le)
    assert one.p_value == pytest.approx(min(1.0, 2 * (min(c_ge, c_le) + 1) / 1000))
    strong = approximate_randomization(np.arange(30) + 10.0, np.arange(30.0), resamples=999, alternative="greater")
    assert strong.p_value == 1 / 1000


def test_bootstrap_is_seeded_and_extreme_cases_are_exact():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=40), rng.normal(size=40)
    res = paired_bootstrap(x, y, resamples=500, seed=9)
    # the 500 resamples of seed 9 recomputed by hand: c counts |δ* - δ| >= |δ|, p = (c + 1) / (R + 1)
    draws = np.random.default_rng(9)
    delta = x.mean() - y.mean()
    picks = [draws.integers(0, 40, 40) for _ in range(500)]
    shifted = np.array([x[idx].mean() - y[idx].mean() - delta for idx in picks])
    c = int((np.abs(shifted) >= abs(delta) * (1 - 100 * np.finfo(float).eps)).sum())
    assert 0 < c < 500 and res.details["count"] == c and res.p_value == (c + 1) / 501
    assert paired_bootstrap(x, y, resamples=500, seed=9).p_value == res.p_value  # the same seed, the same answer
    assert paired_bootstrap(x, x, resamples=500).p_value == 1.0  # no difference: every resample counts
    far = paired_bootstrap(np.arange(40) + 100.0, np.arange(40.0), resamples=500)
    assert far.p_value == 1 / 501 and far.favours == "x"
    assert paired_bootstrap([1.0], [2.0]).p_value is None


def test_bootstrap_accepts_corpus_level_metrics():
    x = np.array([[1, 10], [2, 10], [0, 5]], float)  # (errors, total) per subset
    y = np.array([[3, 10], [4, 10], [2, 5]], float)
    res = paired_bootstrap(x, y, lambda m: -m[:, 0].sum() / m[:, 1].sum(), resamples=200)
    assert abs(res.statistic - (9 - 3) / 25) <= TOL


def test_bad_inputs_raise():
    with pytest.raises(EvaluationError):
        sign_test([1, 2], [1])
    with pytest.raises(EvaluationError):
        wilcoxon([1.0, float("nan")], [0.0, 0.0])
    with pytest.raises(EvaluationError):
        paired_ttest([1, 2], [0, 0], alternative="sideways")  # type: ignore[arg-type]
