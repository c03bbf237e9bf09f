"""Candidate scores: the slides' adaptation scorer, a Poisson-lift scorer and the frequency baseline.

A candidate word w is a substring of the corpus with freq f >= 2 (or any single character). With N tokens, D
documents, df_k from the index, A(w) = (df_2 + 1/2) / (df_1 + 1) and P0(f) the adaptation a Poisson null
predicts when each document d draws w at the rate λ_d = f · len_d / N:

    freq        S(w) = log(f / N)        − β   (a unigram model on raw substring counts: the baseline)
    adaptation  S(w) = log A(w)          − β   (does w come back in the documents that use it?)
    poisson     S(w) = log(A(w) / P0(f)) − β   (how much more than chance does it come back?)

β is a per-word cost that sets how many words the segmentation uses; its defaults were tuned on development
documents (docs/segment.md). Candidates of one token that occur once or never get the scores of f = 1, df_1 = 1.
The `branching` scorer is a trained model, not a formula over one class (termx.wordbreak.model).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from termx.defaults import Scorer
from termx.index.loaded_index import LoadedIndex
from termx.poisson import length_aware_poisson_adaptation

DEFAULT_BETA = {Scorer.freq: 2.0, Scorer.adaptation: 0.2, Scorer.poisson: 4.0}


@dataclass
class ScoreTable:
    """Scores of every class (non-trivial candidate) and of a lone single-token candidate."""

    cls: np.ndarray   # (classes,) float64
    single: float     # a one-token candidate that occurs once or not at all


def adaptation_ratio(df1: np.ndarray, df2: np.ndarray) -> np.ndarray:
    """Smoothed adaptation A = (df_2 + 1/2) / (df_1 + 1): finite for every string, 1/4 for a hapax."""
    return (df2 + 0.5) / (df1 + 1.0)


def score_table(index: LoadedIndex, scorer: Scorer, beta: float | None = None) -> ScoreTable:
    """The score of every class of `index` under `scorer` (not `branching`), and of a lone single token."""
    if scorer not in DEFAULT_BETA:
        raise ValueError(f"{scorer.value} is not a per-class formula")
    beta = DEFAULT_BETA[scorer] if beta is None else beta
    freq = (index.cls_j - index.cls_i + 1).astype(np.float64)
    df1 = index.cls_df[:, 0].astype(np.float64)
    df2 = index.cls_df[:, 1].astype(np.float64) if index.cls_df.shape[1] > 1 else np.zeros_like(df1)
    one = np.ones(1)
    if scorer is Scorer.freq:
        cls, single = np.log(freq / index.n), np.log(one / index.n)
    elif scorer is Scorer.adaptation:
        cls, single = np.log(adaptation_ratio(df1, df2)), np.log(adaptation_ratio(one, 0 * one))
    else:
        null = length_aware_poisson_adaptation(np.concatenate([freq, one]), index.doc_len)
        cls = np.log(adaptation_ratio(df1, df2) / null[:-1])
        single = np.log(adaptation_ratio(one, 0 * one) / null[-1:])
    return ScoreTable(cls - beta, float(single[0]) - beta)
