"""Evaluation on the face: paired significance tests of two systems' per-subset scores, the sign test's critical
values and segmentation scores against gold, as the records of `termx compare|signtest-table|segscore`
(docs/evaluation.md). These read files or lines, not a database, so they are functions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from termx.defaults import SIGN_TABLE_MAX_N, SIGN_TABLE_MIN_N, CompareOptions

__all__ = ["CompareOptions", "compare_systems", "score_segmentation", "sign_test_table"]
"""The evaluation face, and the options of compare_systems with their defaults."""


def compare_systems(a: str | Path, b: str | Path, tests: str = "all", **options: Any) -> dict[str, Any]:
    """Compare system A and B, scored on the same subsets (JSON lines, one object per subset), with the paired
    tests `tests` ("all" or a comma-separated list). `options`: the fields of CompareOptions, with its defaults.
    Returns {"a", "b", "subsets", "measure", "higher_is_better", "results": one record per test, "per_subset"}."""
    from termx.evaluation import compare, pair_records, parse_tests, read_records, subset_table

    chosen = parse_tests(tests)
    knobs = CompareOptions(**options)
    data = pair_records(read_records(Path(a)), read_records(Path(b)), str(a), str(b))
    return {"a": str(a), "b": str(b), "subsets": len(data.ids), "measure": data.measure,
            "higher_is_better": data.higher_is_better, "results": compare(data, chosen, knobs),
            "per_subset": subset_table(data)}


def sign_test_table(alpha: float = CompareOptions.alpha, tails: int = 2, n_min: int = SIGN_TABLE_MIN_N,
                    n_max: int = SIGN_TABLE_MAX_N) -> list[dict[str, Any]]:
    """Critical values of the sign test for N = n_min..n_max: reject H0 when min(N+, N-) <= critical_value."""
    from termx.evaluation import sign_test_table as table

    return table(alpha, tails, n_min, n_max)


def score_segmentation(gold: Sequence[str], pred: Sequence[str], gold_name: str = "gold",
                       pred_name: str = "prediction") -> dict[str, Any]:
    """Word and boundary precision/recall/F1 of the segmented lines `pred` against `gold`, line by line (SIGHAN
    bakeoff style): {"lines", "word": {...}, "boundary": {...}, ...}."""
    from termx.evaluation import score_lines

    return score_lines(gold, pred, gold_name, pred_name)
