"""The choices and defaults command-line options are built from, in a module that imports nothing heavy, so that
`termx --help` does not load NumPy, SciPy or SQLAlchemy. The library modules that use them import them from here."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal

DEFAULT_MAX_K = 4
"""df_1..df_K computed by default."""
DEFAULT_MAX_LEN = 20
"""Longest candidate word of the word breakers, in tokens."""
DEFAULT_REP_CAP = 100
"""Tokens of a class's longest member kept as its representative string."""
DEFAULT_STORE_MIN_FREQ = 16
"""Classes with freq >= this many occurrences get a row in termx.class; rarer ("cold") ones are computed from the
stored suffix array when looked up (docs/scale-out.md, "Store what is hot, compute what is cold"). 16 meets the
store's ≤ 20 bytes per token on Reuters + man pages (bench/bench_hotcold.py); 2 stores every class that repeats."""
MAX_STORE_MIN_FREQ = 1024
"""Largest --store-min-freq: a cold class is computed from up to this many suffixes at each look-up."""


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
    words = "words"


class Ranking(str, Enum):
    """How `termx terms` orders the candidates (one sql/terms_<name>.sql each; cvalue rescores the rows of
    terms_freq in Python, termx.terms.nested)."""

    adaptation = "adaptation"
    poisson = "poisson"
    ridf = "ridf"
    freq = "freq"
    df = "df"
    specificity = "specificity"
    cvalue = "cvalue"


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
TERMS_ENGLISH = {"documents": "files", "case": "folded", "min_df": 3, "rank": "specificity",
                 "reference": "reuters+manpages", "nested": False}
"""The flags for English term lists that bench/tune_terms.py chose on seed 0's development files (docs/terms.md):
one document per file (`termx index --input files`), `--fold-case`, `--min-df 3`, `--rank specificity` against
Reuters-21578 and the man pages indexed together as REF (word unit, folded), without `--nested`."""
TERMS_TOP = 100
"""Terms returned."""
TERMS_MIN_DF = 3
"""Fewest documents (df_1) a term candidate is in."""
TERMS_MIN_LEN = 2
"""Shortest term candidate, in tokens."""
TERMS_MAX_LEN = 40
"""Longest term candidate, in tokens."""

# The defaults of co-occurrence (Corpus.related, Corpus.sketch), stated once: `termx related|sketch` use them.
RELATED_TOP = 20
"""Related strings returned."""
RELATED_MEASURE = "g2"
"""How related() ranks (g2, pmi, dice or lift)."""
RELATED_MIN_DF = 5
"""Fewest documents a related string is in."""
SKETCH_K = 256
"""Hashes per bottom-k sketch."""
SKETCH_THRESHOLD = 20
"""Classes in at least this many documents are sketched."""

# The defaults of the adaptation studies (Corpus.adaptation, priming_summary, agreement, shape), stated once.
NEIGHBORS = 10
"""Documents in a document's neighbourhood (priming)."""
STUDY_MIN_DF = 10
"""Summaries cover the strings (or words) in at least this many documents."""

# The defaults of TBL (Database.tbl_learn), stated once.
TBL_MIN_SCORE = 2
"""Learning stops when the best rule fixes fewer than this many more errors than it makes."""
TBL_TEMPLATE_SET = "brill"
"""The template set `termx tbl templates` lists by default (Brill's 23, what tbl_learn uses by default)."""

# The defaults of the white space experiment (Database.whitespace) and of the demo (Database.demo).
WHITESPACE_SCORERS = (Scorer.branching, Scorer.adaptation, Scorer.freq)
"""The scorers the white space experiment compares by default."""
DEMO_CORPUS = "stdlib-docs"
"""The demo corpus's name."""
DEMO_TOP = 10
"""Terms per ranking in the demo."""


@dataclass(frozen=True)
class CompareOptions:
    """The knobs of the paired tests (`termx compare`, termx.face.evaluation.compare_systems), with their defaults;
    `exact` None = each test's default (exact sign/McNemar, auto Wilcoxon)."""

    alpha: float = 0.05
    alternative: str = "two-sided"   # a key of HYPOTHESES; a one-tailed test names its direction beforehand
    ties: Literal["drop", "split"] = "drop"
    zero_method: Literal["wilcox", "pratt"] = "wilcox"
    exact: bool | None = None
    resamples: int = 9999
    seed: int = 0
    min_good: int = 2


SIGN_TABLE_MIN_N = 5
"""Smallest N of the sign test's table of critical values."""
SIGN_TABLE_MAX_N = 50
"""Largest N of that table."""
