"""Word breaking with no dictionary: candidate statistics from the class tree or suffix-array search, scorers
(branching entropy with a self-trained word model; adaptation, Poisson lift, frequency) and a Viterbi search for
the best-scoring segmentation."""

from __future__ import annotations

from termx.wordbreak.candidates import (
    ABSENT,
    TRIVIAL,
    ClassTree,
    candidate_stats,
    char_lengths,
    class_tree,
    corpus_candidates,
    text_candidates,
    text_ids,
)
from termx.wordbreak.model import BranchingModel, BranchingParams
from termx.wordbreak.scoring import DEFAULT_BETA, Scorer, ScoreTable, score_table
from termx.wordbreak.segmenter import DEFAULT_MAX_LEN, Segmenter, scorer_params
from termx.wordbreak.viterbi import viterbi

__all__ = [
    "ABSENT", "DEFAULT_BETA", "DEFAULT_MAX_LEN", "TRIVIAL", "BranchingModel", "BranchingParams", "ClassTree",
    "ScoreTable", "Scorer", "Segmenter", "candidate_stats", "char_lengths", "class_tree", "corpus_candidates",
    "score_table", "scorer_params", "text_candidates", "text_ids", "viterbi",
]
