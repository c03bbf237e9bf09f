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
DEFAULT_STORE_MIN_FREQ = 2
"""Classes with freq >= this many occurrences get a row in termx.class; rarer ("cold") ones are computed from the
stored suffix array when looked up (docs/scale-out.md, "Store what is hot, compute what is cold")."""


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


# The defaults of the look-ups and of terms (termx.api.Corpus), stated once: `termx` and `termx serve` use them.
LEFT = 10
"""Tokens of left context in a concordance line."""
RIGHT = 40
"""Tokens of right context in a concordance line."""
LIMIT = 100
"""Concordance lines, or class members, returned (None: all)."""
TERMS_RANK = "adaptation"
"""The ranking of terms() (a Ranking value)."""
TERMS_TOP = 100
"""Terms returned."""
TERMS_MIN_DF = 3
"""Fewest documents (df_1) a term candidate is in."""
TERMS_MIN_LEN = 2
"""Shortest term candidate, in tokens."""
TERMS_MAX_LEN = 40
"""Longest term candidate, in tokens."""
