"""The typed Python API: `termx.open(name)` (termx.database) gives a `Corpus` whose methods return exactly the
records that `termx stats|concordance|class|terms|segment --format json` print (both call the same record
functions).

    import termx
    with termx.open("reuters") as corpus:          # db: a URL, else TERMX_DATABASE_URL, else the embedded server
        corpus.stats(["Bundesbank", "James Baker"])
        corpus.terms(rank="adaptation", top=100)
        for words in corpus.segment(lines):        # batched generator, one list of words per line
            ...

A Corpus keeps its index and segmentation model in memory after first use, so repeated calls are cheap.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from termx.defaults import (  # the defaults, stated once (`termx` and `termx serve` use them too)
    LEFT,
    LIMIT,
    RIGHT,
    TERMS_MAX_LEN,
    TERMS_MIN_DF,
    TERMS_MIN_LEN,
    TERMS_RANK,
    TERMS_TOP,
)
from termx.face.closing import Closing
from termx.face.cooccurrence import CoOccurrence
from termx.face.studies import Studies
from termx.face.wordbreak import (
    MODELS_IN_MEMORY,
    SEGMENT_BATCH,
    SegmentRecord,
    WordBreaking,
    scorer_params,
    segment_records,
)
from termx.json_values import jsonable

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from termx.index.loaded_index import LoadedIndex
    from termx.progress import Progress
    from termx.storage.corpora import CorpusInfo

__all__ = ["MODELS_IN_MEMORY", "SEGMENT_BATCH", "ConcordanceRecord", "Corpus", "SegmentRecord", "StatsRecord",
           "record_fields", "scorer_params", "segment_records"]
"""The Corpus, its records, and the word-breaking helpers the CLI and HTTP app share."""


class StatsRecord(TypedDict):
    """One pattern's statistics (`termx stats --format json`)."""

    pattern: str
    freq: int
    df: list[int]
    adaptation: float | None
    poisson_adaptation: float | None
    ridf: float | None
    i: int | None
    j: int | None
    lbl: int | None
    sil: int | None
    shortest: str | None
    longest: str | None
    error: NotRequired[str]  # only in the record of a bad pattern (every other field None but the pattern)


class ConcordanceRecord(TypedDict):
    """One occurrence (`termx concordance --format json`)."""

    rank: int
    doc: str
    doc_no: int
    offset: int
    left: str
    match: str
    right: str


class Corpus(Closing, WordBreaking, CoOccurrence, Studies):
    """An indexed corpus: look-ups and terms here; word breaking, co-occurrence and the studies from the
    capability classes of termx.face."""

    def __init__(self, name: str, db: str | None = None, load: bool = False) -> None:
        """CorpusNotFound if there is no corpus `name`; with `load`, its index is loaded now (in the one snapshot
        that also finds the corpus: a look-up then costs no extra query)."""
        from termx.storage.db import get_engine

        self.engine: Engine = get_engine(db)
        self.name = name
        self._shards: list[LoadedIndex] | None = None
        if load:
            self.info: CorpusInfo = self.shards[0].corpus
        else:
            from termx.storage.corpora import get_corpus

            self.info = get_corpus(self.engine, name)
        self._init_models()
        self._init_parts()

    @property
    def shards(self) -> list[LoadedIndex]:
        """The in-memory index of each shard (loaded on first use); one for a corpus built in one piece."""
        if self._shards is None:
            from termx.storage.index_loader import load_shards

            self._shards = load_shards(self.engine, self.name)
        return self._shards

    @property
    def index(self) -> LoadedIndex:
        """The in-memory index of a one-shard corpus (MultiShardUnsupported for several: use `shards`)."""
        if len(self.shards) != 1:
            from termx.storage.index_loader import load_index

            return load_index(self.engine, self.name, "Corpus.index")
        return self.shards[0]

    def stats(self, patterns: Iterable[str] | str) -> list[StatsRecord]:
        """freq, df_1..df_K, adaptation, Poisson adaptation, RIDF and the class of each pattern (several shards:
        freq and df summed, the class fields per shard under "shards", as `termx stats --format json`).

        `patterns`: one string, or any iterable of them (a generator too). A bad pattern (empty, longer than every
        document) does not abort the batch: its record has every field None and an `error` naming it and its
        position, as `termx stats --format json` prints it."""
        return list(self.iter_stats(patterns))

    def iter_stats(self, patterns: Iterable[str] | str) -> Iterator[StatsRecord]:
        """stats() lazily: one record per pattern as the iterable yields them (for a pattern list too big to hold)."""
        from termx.lookup import stats_each

        for record in stats_each(self.shards, [patterns] if isinstance(patterns, str) else patterns):
            yield jsonable(record)

    def document(self, doc_no: int, offset: int = 0, pattern: str | None = None,
                 limit: int | None = None) -> dict[str, Any]:
        """Document `doc_no` (a concordance line's doc_no) split around `pattern` at `offset` (a concordance line's
        offset) into before, match and after, with at most `limit` tokens either side of the match (None: the whole
        document), as termx.lookup.document."""
        from termx.lookup import document

        return jsonable(document(self.shards, doc_no, offset, pattern, limit))  # type: ignore[no-any-return]

    def concordance(self, pattern: str, left: int = LEFT, right: int = RIGHT,
                    limit: int | None = LIMIT) -> list[ConcordanceRecord]:
        """KWIC lines of the pattern's occurrences (suffix-array order; several shards: document order), at
        most `limit` (None: all)."""
        from termx.lookup import concordance

        return jsonable(concordance(self.shards, pattern, left, right, limit))  # type: ignore[no-any-return]

    def iter_concordance(self, patterns: Iterable[str], left: int = LEFT, right: int = RIGHT,
                         limit: int | None = LIMIT) -> Iterator[dict[str, Any]]:
        """concordance() of each pattern, lazily: its lines, each with its "pattern" (`termx concordance --patterns
        FILE --format jsonl`); a bad pattern gets an error record, as in iter_stats()."""
        from termx.lookup import concordance_each

        for record in concordance_each(self.shards, patterns, left, right, limit):
            yield jsonable(record)

    def occurrences(self, pattern: str) -> int:
        """How often the pattern occurs (summed over the shards)."""
        from termx.lookup import find_in_shards

        return find_in_shards(self.shards, pattern)[0]

    def classes(self, pattern: str, members: bool = False, limit: int | None = LIMIT) -> list[dict[str, Any]]:
        """The class holding the pattern in each shard where it occurs (one record on a one-shard corpus, as
        `termx class --format json`); with `members`, each with its members shortest first (at most `limit`)."""
        from termx.lookup import class_listing

        return jsonable(class_listing(self.shards, pattern, members, limit))  # type: ignore[no-any-return]

    def class_of(self, pattern: str, members: bool = False, limit: int | None = LIMIT) -> dict[str, Any]:
        """The class holding the pattern in a one-shard corpus (a class exists per shard: `classes` for several)."""
        from termx.lookup import class_listing

        return jsonable(class_listing(self.index, pattern, members, limit)[0])  # type: ignore[no-any-return]

    def iter_classes(self, patterns: Iterable[str], members: bool = False,
                     limit: int | None = LIMIT) -> Iterator[dict[str, Any]]:
        """classes() of each pattern, lazily (`termx class --patterns FILE --format jsonl`); a bad pattern gets an
        error record, as in iter_stats()."""
        from termx.lookup import class_each

        for record in class_each(self.shards, patterns, members, limit):
            yield jsonable(record)

    def terms(self, rank: str = TERMS_RANK, top: int = TERMS_TOP, min_df: int = TERMS_MIN_DF,
              min_len: int = TERMS_MIN_LEN, max_len: int = TERMS_MAX_LEN, reference: str | None = None, *,
              nested: bool = False, save: str | None = None, replace: bool = False,
              progress: Progress | None = None) -> list[dict[str, Any]]:
        """The top terms by `rank` (adaptation, poisson, ridf, specificity with `reference`, freq, df, cvalue).
        `nested` (freq, specificity) scores with C-value's discounted frequency (docs/terms.md). With `save`,
        also stored as term list `save` (termx.term_list, its rows in termx.term; `replace` overwrites one)."""
        from termx.terms import extract_terms, save_terms

        rows = extract_terms(self.engine, self.name, rank, top, min_df, min_len, max_len, progress,
                             reference=reference, nested=nested)
        if save:
            params: dict[str, Any] = {"rank": str(getattr(rank, "value", rank)), "top": top, "min_df": min_df,
                                      "min_len": min_len, "max_len": max_len}
            if reference is not None:
                params["reference"] = reference
            if nested:
                params["nested"] = True
            save_terms(self.engine, save, self.name, rows, params, replace)
        return jsonable(rows)  # type: ignore[no-any-return]

    def close(self) -> None:
        """Forget the in-memory index and models (the database stays as it is)."""
        self._shards = None
        self._jdf_parts.clear()
        self._forget_models()

    def __repr__(self) -> str:
        return f"Corpus({self.name!r}, unit={self.info.unit!r}, documents={self.info.documents})"


def record_fields(command: str) -> tuple[str, ...]:
    """The fields of the records of `command` (stats, dist, class, concordance or related), in the order the CLI
    shows them."""
    if command == "dist":
        from termx.studies.distribution import DIST_FIELDS

        return DIST_FIELDS
    if command == "related":
        from termx.jdf.related import RELATED_FIELDS

        return RELATED_FIELDS
    from termx.lookup import CLASS_FIELDS, CONCORDANCE_FIELDS, STATS_FIELDS

    return {"stats": STATS_FIELDS, "class": CLASS_FIELDS, "concordance": CONCORDANCE_FIELDS}[command]
