"""Term extraction: term candidates from the classes, ranked by adaptation, the Poisson null, RIDF or baselines.

A shard's candidates are computed once from its loaded index (candidates, kinds) and stored in termx.candidate
(store, built on first use); every ranking is a commented query in sql/terms_<rank>.sql over that table
(ranking), so the library and an analyst in psql see the same list. Specificity compares with a reference
corpus's counts (reference). docs/terms.md states the candidate rules and score formulas exactly.
"""

from termx.terms.candidate_store import ensure_candidates, save_terms
from termx.terms.candidates import CANDIDATE_RULES, NULL_BINS, SPACED_FRACTION, Candidates, candidate_classes
from termx.terms.ranking import Ranking, extract_terms
from termx.terms.reference import ensure_reference, reference_counts
from termx.terms.token_kinds import PREPOSITIONS, STOP_WORDS, char_kind, token_kinds, word_kind

__all__ = ["CANDIDATE_RULES", "NULL_BINS", "PREPOSITIONS", "SPACED_FRACTION", "STOP_WORDS", "Candidates", "Ranking",
           "candidate_classes", "char_kind", "ensure_candidates", "ensure_reference", "extract_terms",
           "reference_counts", "save_terms", "token_kinds", "word_kind"]
