"""The choices and defaults command-line options are built from, in a module that imports nothing heavy, so that
`termx --help` does not load NumPy, SciPy or SQLAlchemy. The library modules that use them import them from here."""

from __future__ import annotations

from enum import Enum

DEFAULT_MAX_K = 4
"""df_1..df_K computed by default."""
DEFAULT_MAX_LEN = 20
"""Longest candidate word of the word breakers, in tokens."""
DEFAULT_REP_CAP = 100
"""Tokens of a class's longest member kept as its representative string."""


class Unit(str, Enum):
    """What one token of the corpus is."""

    byte = "byte"
    char = "char"
    word = "word"


class Scorer(str, Enum):
    """How a candidate's statistics become its score."""

    branching = "branching"
    adaptation = "adaptation"
    poisson = "poisson"
    freq = "freq"


class Ranking(str, Enum):
    """How `termx terms` orders the candidates (one sql/terms_<name>.sql each)."""

    adaptation = "adaptation"
    poisson = "poisson"
    ridf = "ridf"
    freq = "freq"
    df = "df"
    specificity = "specificity"


class Condition(str, Enum):
    """What the white space recovery experiment deletes from the spaced text."""

    alnum = "alnum"
    raw = "raw"
