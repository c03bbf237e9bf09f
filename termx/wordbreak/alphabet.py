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
from termx.index.loaded_index import CorpusInfo
from termx.storage.foreign import naming_unreachable

SAMPLE_LINES = 1000
SAMPLE_CHARS = 64   # distinct characters looked up: the most common ones carry nearly all of a sample
MOSTLY = 0.5        # the share of unseen characters that makes the notice


class Alphabet:
    """Which characters occur in a corpus: looked up when first asked about and remembered, so that checking
    every call of a long-lived Corpus costs a query only for characters it has not seen yet."""

    def __init__(self, engine: Engine, corpus: CorpusInfo) -> None:
        self.engine, self.corpus = engine, corpus
        self._occurs: dict[str, bool] = {}
        self._vocab: set[str] | None = None

    def unseen_share(self, lines: Sequence[str]) -> float | None:
        """The share of the sample's characters (white space aside, counted with repeats, over its SAMPLE_CHARS
        most common ones) that never occur in the corpus; None for a sample with no characters."""
        sample = "".join(lines[:SAMPLE_LINES])
        if self.corpus.params.get("fold_case"):
            sample = fold_case(sample)
        counts = Counter(ch for ch in sample if not ch.isspace() and ch.isprintable()
                         and not "\ud800" <= ch <= "\udfff").most_common(SAMPLE_CHARS)  # nothing SQL cannot take
        if not counts:
            return None
        self._look_up([ch for ch, _ in counts if ch not in self._occurs])
        unseen = sum(n for ch, n in counts if not self._occurs[ch])
        return unseen / sum(n for _, n in counts)

    def notice(self, lines: Sequence[str]) -> ForeignInput | None:
        """A ForeignInput notice when most of the sample's characters never occur in the corpus, else None."""
        share = self.unseen_share(lines)
        if share is None or share <= MOSTLY:
            return None
        return ForeignInput(f"{share:.0%} of the input's characters never occur in corpus {self.corpus.name!r}: it "
                            "has no statistics for them, so expect single characters rather than words (is the "
                            "input in another script or language than the corpus?)")

    def _look_up(self, chars: list[str]) -> None:
        if not chars:
            return
        if self.corpus.unit == "byte":  # no vocabulary: each character's freq (a row with an error: unseen)
            with naming_unreachable(self.engine, self.corpus.name), self.engine.connect() as conn:
                seen = {r[0] for r in conn.execute(sa.text("SELECT pattern FROM termx.stats(:c, CAST(:p AS text[])) "
                                                           "WHERE freq > 0"), {"c": self.corpus.name, "p": chars})}
        else:
            if self._vocab is None:
                with self.engine.connect() as conn:
                    tokens = conn.execute(sa.text("SELECT token FROM termx.vocab WHERE corpus_id = :id"),
                                          {"id": self.corpus.id})
                    self._vocab = set().union(*(set(t) for (t,) in tokens))
            seen = self._vocab
        self._occurs.update((ch, ch in seen) for ch in chars)
