"""Run the selected paired tests on two systems' per-subset records and describe each outcome the way NIST's
benchmark reports do: statistic, p-value, decision at alpha, which system is better and by how much."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from termx.defaults import CompareOptions
from termx.errors import EvaluationError
from termx.evaluation.inputs import PairedRecords
from termx.evaluation.paired import Alternative, PairedResult, paired_ttest, sign_test, wilcoxon
from termx.evaluation.paired_outcomes import mapsswe, mcnemar
from termx.evaluation.resampling import approximate_randomization, paired_bootstrap

TESTS = ("sign", "wilcoxon", "ttest", "mcnemar", "mapsswe", "bootstrap", "permutation")
ITEM_TESTS = ("mcnemar", "mapsswe")
# The hypothesis, stated before the data: two-sided, or one-tailed in a named direction (x = A, y = B).
HYPOTHESES: dict[str, Alternative] = {"two-sided": "two-sided", "A-better": "greater", "B-better": "less"}


def parse_tests(spec: str) -> list[str]:
    """`all` or a comma-separated list of test names, in the order given."""
    names = [t.strip().lower() for t in spec.split(",") if t.strip()]
    if names == ["all"]:
        return list(TESTS)
    unknown = [t for t in names if t not in TESTS]
    if unknown or not names:
        raise EvaluationError(f"unknown test {', '.join(unknown) or repr(spec)}", f"use all or {', '.join(TESTS)}")
    return list(dict.fromkeys(names))


def _check(options: CompareOptions) -> None:
    if not 0 < options.alpha < 1:
        raise EvaluationError(f"alpha must lie in (0, 1) (got {options.alpha})")
    if options.alternative not in HYPOTHESES:
        raise EvaluationError(f"unknown alternative {options.alternative!r}", f"use {', '.join(HYPOTHESES)}")


def _goodness_metric(data: PairedRecords) -> tuple[NDArray[np.float64], NDArray[np.float64],
                                                     Callable[[NDArray[np.float64]], float], str]:
    """Per-subset columns and a corpus-level metric where larger is better, for the resampling tests."""
    if data.a_errors is not None and data.b_errors is not None and data.totals is not None:
        def pooled_rate(m: NDArray[np.float64]) -> float:
            return -float(m[:, 0].sum() / m[:, 1].sum())
        return (np.column_stack([data.a_errors, data.totals]), np.column_stack([data.b_errors, data.totals]),
                pooled_rate, "pooled error rate (sum errors / sum total)")
    if data.higher_is_better:
        return data.a, data.b, lambda m: float(m.mean()), "mean score"
    return data.a, data.b, lambda m: -float(m.mean()), "mean errors per subset"


def _differences(data: PairedRecords) -> NDArray[np.float64]:
    """Per-subset A − B in the measure; error rates as (errors_A − errors_B) / total, which is exact for counts."""
    if data.a_errors is not None and data.b_errors is not None and data.totals is not None:
        return (data.a_errors - data.b_errors) / data.totals
    return data.a - data.b


def _run(test: str, data: PairedRecords, options: CompareOptions, alternative: Alternative,
         ) -> tuple[PairedResult, float | None, str]:
    """One low-level test with A as x and B as y (goodness oriented), plus its A − B difference and its name."""
    sign = 1.0 if data.higher_is_better else -1.0
    raw = _differences(data)
    # the subset tests see goodness differences against zero, so equal error differences tie exactly
    ga, gb = sign * raw, np.zeros_like(raw)
    mean_diff = float(raw.mean())
    per_subset = f"mean {data.measure} A - B per subset"
    if test == "sign":
        method: Literal["exact", "normal"] = "normal" if options.exact is False else "exact"
        res = sign_test(ga, gb, ties=options.ties, alternative=alternative, method=method)
        return res, mean_diff, per_subset
    if test == "wilcoxon":
        wmethod: Literal["auto", "exact", "normal"] = (
            "auto" if options.exact is None else "exact" if options.exact else "normal")
        res = wilcoxon(ga, gb, zero_method=options.zero_method, alternative=alternative, method=wmethod)
        return res, mean_diff, per_subset
    if test == "ttest":
        return paired_ttest(ga, gb, alternative=alternative), mean_diff, per_subset
    if test in ITEM_TESTS:
        if data.a_outcomes is None or data.b_outcomes is None:
            raise EvaluationError(f"the {test} test needs per-item `outcomes` in both inputs")
        if test == "mcnemar":
            xa = np.concatenate([np.asarray(o, dtype=np.int64) for o in data.a_outcomes])
            xb = np.concatenate([np.asarray(o, dtype=np.int64) for o in data.b_outcomes])
            res = mcnemar(xa, xb, method="chi2" if options.exact is False else "exact",
                                 alternative=alternative)
            if not xa.size:
                return res, None, "no items"
            if data.higher_is_better:
                return res, float(xa.mean() - xb.mean()), "item accuracy A - B"
            return res, float(xb.mean() - xa.mean()), "item error rate A - B"
        res = mapsswe(data.a_outcomes, data.b_outcomes, min_good=options.min_good, alternative=alternative)
        segs = res.details["segments"]
        diff = (res.details["x_errors"] - res.details["y_errors"]) / segs if segs else None
        return res, diff, "mean errors A - B per segment"
    xa, xb, metric, metric_name = _goodness_metric(data)
    run = paired_bootstrap if test == "bootstrap" else approximate_randomization
    res = run(xa, xb, metric, resamples=options.resamples, seed=options.seed, alternative=alternative)
    diff = None if res.statistic is None else sign * res.statistic
    return res, diff, f"{metric_name} A - B"


def _effect(res: PairedResult) -> tuple[float | None, str | None]:
    d = res.details
    if res.test == "sign" and res.n:
        return (d["n_plus"] - d["n_minus"]) / res.n, "(N+ - N-) / N, + = A better"
    if res.test == "wilcoxon" and d.get("r_plus", 0) + d.get("r_minus", 0):
        return (d["r_plus"] - d["r_minus"]) / (d["r_plus"] + d["r_minus"]), "matched-pairs rank-biserial r"
    if res.test == "ttest" and "cohen_dz" in d:
        return d["cohen_dz"], "Cohen's d_z (A better > 0)"
    if res.test == "mcnemar" and d["y_only_right"]:
        return d["x_only_right"] / d["y_only_right"], "odds ratio (A only right / B only right)"
    return None, None


def _ab_keys(details: dict[str, Any]) -> dict[str, Any]:
    """The low-level tests call the systems x and y; the report calls them A and B."""
    return {("a_" + k[2:] if k.startswith("x_") else "b_" + k[2:] if k.startswith("y_") else k): v
            for k, v in details.items()}


def _tested(row: dict[str, Any]) -> str:
    """How the test was run: two-tailed, or one-tailed with the direction hypothesised beforehand."""
    if row["alternative"] == "two-sided":
        return "2-tailed"
    return f"1-tailed, hypothesis {row['alternative'].replace('-better', ' better')}"


def _summary(row: dict[str, Any]) -> str:
    if row["p_value"] is None:
        return f"{row['test']}: undefined ({row['note']})"
    cmp = "<=" if row["significant"] else ">"
    verdict = (f"{row['better']} is better" if row["better"]
               else "no significant difference" if row["favours"] else "no difference")
    ties = ""
    if row["ties"] and row["test"] == "sign":
        ties = f", {row['ties']} tie(s) {'split' if row['ties_rule'] == 'split' else 'dropped'}"
    elif row["ties"] and row["test"] == "wilcoxon":
        how = "ranked" if row["details"]["zero_method"] == "pratt" else "dropped"
        ties = f", {row['ties']} zero difference(s) {how}"
    return (f"{row['test']}: p = {row['p_value']:.4g} {cmp} {row['alpha']:g} ({_tested(row)}, "
            f"N = {row['n']}{ties}): {verdict}")


def _tails(options: CompareOptions) -> int:
    return 2 if options.alternative == "two-sided" else 1


def _undefined(test: str, options: CompareOptions, why: str) -> dict[str, Any]:
    return {"test": test, "method": None, "statistic": None, "statistic_name": None, "p_value": None,
            "alpha": options.alpha, "tails": _tails(options), "alternative": options.alternative,
            "n": 0, "ties": 0, "ties_rule": options.ties,
            "significant": None, "decision": "undefined", "better": None, "favours": None, "difference": None,
            "difference_name": None, "effect": None, "effect_name": None, "note": why, "details": {},
            "summary": f"{test}: undefined ({why})"}


def compare(data: PairedRecords, tests: Sequence[str], options: CompareOptions | None = None,
            ) -> list[dict[str, Any]]:
    """One result dict per test. A test that needs per-item outcomes the input lacks is reported as undefined
    when the full battery runs, and is an error when asked for alone."""
    options = options or CompareOptions()
    _check(options)
    side = {"x": "A", "y": "B", None: None}
    rows = []
    for test in tests:
        if test not in TESTS:
            raise EvaluationError(f"unknown test {test!r}", f"use {', '.join(TESTS)}")
        if test in ITEM_TESTS and data.a_outcomes is None and len(tests) > 1:
            rows.append(_undefined(test, options, "needs per-item `outcomes` in both inputs"))
            continue
        res, diff, diff_name = _run(test, data, options, HYPOTHESES[options.alternative])
        significant = None if res.p_value is None else res.p_value <= options.alpha
        effect, effect_name = _effect(res)
        row = {"test": test, "method": res.method, "statistic": res.statistic,
               "statistic_name": res.statistic_name, "p_value": res.p_value, "alpha": options.alpha,
               "tails": _tails(options), "alternative": options.alternative,
               "n": res.n, "ties": res.ties, "ties_rule": options.ties,
               "significant": significant,
               "decision": "undefined" if significant is None else "reject H0" if significant else "keep H0",
               "better": side[res.favours] if significant else None, "favours": side[res.favours],
               "difference": diff, "difference_name": diff_name, "effect": effect, "effect_name": effect_name,
               "note": res.note, "details": _ab_keys(res.details)}
        row["summary"] = _summary(row)
        rows.append(row)
    return rows


def subset_table(data: PairedRecords) -> list[dict[str, Any]]:
    """Per-subset figures side by side with the winner of each subset."""
    rows = []
    diffs = _differences(data)
    for i, doc_id in enumerate(data.ids):
        a, b, d = float(data.a[i]), float(data.b[i]), float(diffs[i])
        a_wins = d > 0 if data.higher_is_better else d < 0
        rows.append({"id": doc_id, "A": a, "B": b, "A-B": d, "better": "tie" if d == 0 else "A" if a_wins else "B"})
    return rows
