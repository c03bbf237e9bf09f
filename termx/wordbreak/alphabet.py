"""Is the text to segment written in the corpus's characters at all? A cheap check on the first lines of input.

Text in another script than its corpus (Chinese into an English corpus) has no statistics to break it with: the
model trains for minutes and then answers single characters. Before any of that, the most common characters of
a sample of the input are looked up in the corpus (its vocabulary for char and word corpora; termx.stats over
the characters for byte corpora), and a notice says so when most of the sample's characters never occur in it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from termx.errors import ForeignInput
from termx.index.fold import fold_case
from termx.storage.store import CorpusInfo

SAMPLE_LINES = 1000
SAMPLE_CHARS = 64   # distinct characters looked up: the most common ones carry nearly all of a sample
MOSTLY = 0.5        # the share of unseen characters that makes the notice


def unseen_share(engine: Engine, corpus: CorpusInfo, lines: Sequence[str]) -> float | None:
    """The share of the sample's characters (white space aside, counted with repeats, over its SAMPLE_CHARS most
    common ones) that never occur in the corpus; None for a sample with no characters."""
    sample = "".join(lines[:SAMPLE_LINES])
    if corpus.params.get("fold_case"):
        sample = fold_case(sample)
    counts = Counter(ch for ch in sample if not ch.isspace() and ch.isprintable()
                     and not "\ud800" <= ch <= "\udfff").most_common(SAMPLE_CHARS)  # nothing SQL cannot take
    if not counts:
        return None
    chars = [ch for ch, _ in counts]
    with engine.connect() as conn:
        if corpus.unit == "byte":  # no vocabulary: each character's freq (a row with an error counts as unseen)
            seen = {r[0] for r in conn.execute(sa.text("SELECT pattern FROM termx.stats(:c, CAST(:p AS text[])) "
                                                       "WHERE freq > 0"), {"c": corpus.name, "p": chars})}
        else:
            tokens = conn.execute(sa.text("SELECT token FROM termx.vocab WHERE corpus_id = :id"), {"id": corpus.id})
            seen = set().union(*(set(t) for (t,) in tokens))
    unseen = sum(n for ch, n in counts if ch not in seen)
    return unseen / sum(n for _, n in counts)


def foreign_input(engine: Engine, corpus: CorpusInfo, lines: Sequence[str]) -> ForeignInput | None:
    """A ForeignInput notice when most of the sample's characters never occur in the corpus, else None."""
    share = unseen_share(engine, corpus, lines)
    if share is None or share <= MOSTLY:
        return None
    return ForeignInput(f"{share:.0%} of the input's characters never occur in corpus {corpus.name!r}: it has no "
                        "statistics for them, so expect single characters rather than words (is the input in "
                        "another script or language than the corpus?)")
