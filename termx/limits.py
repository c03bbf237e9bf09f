"""The allowed values of every parameter a user can pass (CLI, Python API, HTTP), kept in one place.

A value outside its range (or not finite: NaN and infinity compare false with everything, and a NaN threshold made
the segmenter's search loop forever) raises InputError naming the parameter. The segmentation parameters are the
ones checked everywhere (`check_scorer_params`, called by `termx.wordbreak.scorer_params`); the per-request caps
(`HTTP`) bound what one request of `termx serve` can ask for.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

from termx.errors import InputError


@dataclass(frozen=True)
class Range:
    """Finite values from `low` to `high` (both included); whole numbers only when `integer`."""

    low: float
    high: float
    integer: bool = False

    def check(self, name: str, value: float, subject: str | None = None) -> float | int:
        """`value` as an int or float when allowed; InputError naming parameter `name` (as `subject` in the
        message when given) otherwise."""
        bad = isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) \
            or not self.low <= value <= self.high or (self.integer and value != int(value))
        if bad:
            raise InputError(f"{subject or f'`{name}`'} must be {self.describe()}, not {value!r}", params=(name,))
        return int(value) if self.integer else float(value)

    def describe(self) -> str:
        """The range in words, for messages and help."""
        kind = "a whole number" if self.integer else "a number"
        return f"{kind} from {self.low:g} to {self.high:g}"


SCORE = Range(-1000.0, 1000.0)
"""An evidence bonus, penalty or threshold (nats); the defaults lie within ±32."""
WEIGHT = Range(0.0, 1000.0)
"""A weight of the word model."""
SHARE = Range(0.0, 1.0)
"""A share or a discount."""

BRANCHING: dict[str, Range] = {
    "window": Range(1, 32, integer=True),  # n-grams of 1..window tokens: the reverse index grows with it
    "kappa": SCORE, "kappa_digit": SCORE, "kappa_han_kana": SCORE, "kappa_run": SCORE,
    "runs": Range(0, 1, integer=True),
    "theta0": SCORE, "weight": WEIGHT, "theta": SCORE,
    "smoothing": Range(1e-9, 1000.0),  # ε > 0: its logarithm is a word's value
    "autonomy": SCORE,
    "passes": Range(0, 5, integer=True),  # each pass segments the whole corpus (twice with suffixes)
    "pass_weight": WEIGHT, "pass_theta": SCORE, "pass_mix": SHARE, "pass_bigram": SHARE, "pass_pair": SCORE,
    "suffix": SHARE, "suffix_stems": Range(1, 1_000_000, integer=True),
}
"""The branching scorer's parameters (termx.wordbreak.model.BranchingParams) and their allowed values."""
BETA = SCORE
"""The length penalty β of the table scorers (adaptation, poisson, freq)."""
WORDS: dict[str, Range] = {
    "discount": SHARE, "min_count": Range(1, 1_000_000_000, integer=True),
    "min_pair": Range(1, 1_000_000_000, integer=True), "unknown": SCORE, "unknown_len": SCORE,
}
"""The words scorer's parameters (termx.wordbreak.word_model.WORD_DEFAULTS) and their allowed values."""

MAX_LEN = Range(1, 256, integer=True)
"""Longest candidate word of segmentation, in tokens."""


def scorer_ranges() -> str:
    """The allowed values of the scorer parameters in one line (`termx segment --help`, docs/segment.md)."""
    groups: dict[Range, list[str]] = {}
    for name, allowed in {**BRANCHING, "beta": BETA, **WORDS}.items():
        groups.setdefault(allowed, []).append(name)
    return "; ".join(f"{', '.join(names)}: {r.low:g} to {r.high:g}{' (whole)' if r.integer else ''}"
                     for r, names in groups.items())


def check_word_params(params: Mapping[str, float]) -> dict[str, float]:
    """The words scorer's parameters, each value checked against its range."""
    return {key: WORDS[key].check("params", value, f"parameter {key!r}") for key, value in params.items()}


def check_scorer_params(params: Mapping[str, float]) -> dict[str, float]:
    """The parameters with each value checked against its range (ints where the parameter counts something)."""
    return {key: (BRANCHING.get(key) or BETA).check("params", value, f"parameter {key!r}")
            for key, value in params.items()}


@dataclass(frozen=True)
class HttpLimits:
    """What one request of `termx serve` may ask for (docs/python.md, HTTP)."""

    patterns: int = 1000       # patterns of one /stats request
    lines: int = 10_000        # lines of one /segment request (and the body is at most --max-body bytes)
    context: int = 1000        # left / right tokens of a concordance line
    limit: int = 10_000        # concordance lines of one request
    top: int = 10_000          # terms of one request
    term_len: int = 256        # min_len / max_len of terms, in tokens
    min_df: int = 1_000_000    # least document frequency of terms
    train_tokens: int = 2_000_000  # largest corpus a model is trained on for a request's own params (~20 s)
    stored_models: int = 8     # segmentation models of a corpus beyond which `"store": true` is refused


HTTP = HttpLimits()
