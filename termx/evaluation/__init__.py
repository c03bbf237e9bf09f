"""Evaluation toolkit: metrics, splits, baselines, paired significance tests and the NIST-style comparison."""

from __future__ import annotations

from termx.evaluation.baselines import MostFrequentClass, most_frequent_class
from termx.evaluation.inputs import PairedRecords, SubsetRecord, pair_records, read_records
from termx.evaluation.metrics import (
    PRF,
    accuracy,
    boundaries,
    boundary_outcomes,
    boundary_prf,
    error_count,
    error_counts,
    macro_average,
    micro_average,
    score_lines,
    segmentation_prf,
    segmentation_records,
    word_prf,
    word_spans,
    words_from_boundaries,
)
from termx.evaluation.paired import (
    PairedResult,
    paired_ttest,
    sign_test,
    sign_test_critical_value,
    sign_test_table,
    wilcoxon,
)
from termx.evaluation.paired_outcomes import Segment, mapsswe, mapsswe_segments, mcnemar
from termx.evaluation.report import TESTS, CompareOptions, compare, parse_tests, subset_table
from termx.evaluation.resampling import approximate_randomization, paired_bootstrap
from termx.evaluation.splits import Fold, Split, cross_validation_with_test, kfold, train_devtest_test

__all__ = [
    "PRF", "TESTS", "CompareOptions", "Fold", "MostFrequentClass", "PairedRecords", "PairedResult", "Segment",
    "Split", "SubsetRecord", "accuracy", "approximate_randomization", "boundaries", "boundary_outcomes",
    "boundary_prf", "compare", "cross_validation_with_test", "error_count", "error_counts", "kfold",
    "macro_average", "mapsswe", "mapsswe_segments", "mcnemar", "micro_average", "most_frequent_class",
    "pair_records", "paired_bootstrap", "paired_ttest", "parse_tests", "read_records",
    "score_lines", "segmentation_prf", "segmentation_records", "sign_test", "sign_test_critical_value",
    "sign_test_table", "subset_table", "train_devtest_test", "wilcoxon", "word_prf", "word_spans",
    "words_from_boundaries",
]
