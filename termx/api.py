"""The typed Python API: `termx.open(name)` gives a `Corpus` whose methods return exactly the records that
`termx stats|concordance|class|terms|segment --format json` print (both call the same record functions).

    import termx
    with termx.open("reuters") as corpus:          # db: a URL, else TERMX_DATABASE_URL, else the embedded server
        corpus.stats(["Bundesbank", "James Baker"])
        corpus.terms(rank="adaptation", top=100)
        for words in corpus.segment(lines):        # batched generator, one list of words per line
            ...

A Corpus keeps its index and segmentation model in memory after first use, so repeated calls are cheap.
"""

from __future__ import annotations

import itertools
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import TracebackType
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
from termx.errors import ForeignInput, InputError
from termx.json_values import jsonable

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from termx.index.loaded_index import LoadedIndex
    from termx.jdf.pairs import Part
    from termx.progress import Progress
    from termx.storage.corpora import CorpusInfo
    from termx.wordbreak.alphabet import Alphabet
    from termx.wordbreak.ngram_tables import CompactModel

SEGMENT_BATCH = 1000
"""Lines segmented per call of the model."""
_ModelKey = tuple[int, tuple[tuple[str, float], ...]]
"""max_len and the params of a segmentation model."""
MODELS_IN_MEMORY = 3
"""Segmentation models a Corpus keeps in memory (the least recently used goes first): tens of MB each."""


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


class SegmentRecord(TypedDict):
    """One segmented line (`termx segment --format json`)."""

    line: int
    text: str
    words: list[str]
    boundaries: list[int]


class Corpus:
    """An indexed corpus: look-ups, terms and word breaking with its statistics."""

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
        self._models: OrderedDict[_ModelKey, CompactModel] = OrderedDict()
        self._models_lock = threading.Lock()  # `termx serve` calls model() from several threads
        self._alphabet: Alphabet | None = None
        self._jdf_parts: dict[str, list[Part]] = {}  # by method: "sketch" parts carry the stored sketches

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

    def iter_dist(self, patterns: Iterable[str] | str) -> Iterator[dict[str, Any]]:
        """Each pattern's document-count distribution, lazily (`termx stats --dist --format json`): Pr(k) for
        k = 0..K-1, the tail Pr(k >= K), mean, variance, entropy and the Poisson / negative binomial / Katz fits
        (docs/adaptation.md); a bad pattern gets an error record, as in iter_stats()."""
        from termx.lookup import error_record
        from termx.studies.distribution import DIST_FIELDS, dist_row

        n_docs = sum(s.n_docs for s in self.shards)
        for r in self.iter_stats(patterns):
            yield jsonable(error_record(DIST_FIELDS, r["pattern"], r["error"]) if "error" in r else
                           dist_row(r["pattern"], r["freq"], r["df"], n_docs))

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
              save: str | None = None, replace: bool = False, progress: Progress | None = None) -> list[dict[str, Any]]:
        """The top terms by `rank` (adaptation, poisson, ridf, specificity with `reference`, freq, df). With `save`,
        also stored as term list `save` (termx.term_list, its rows in termx.term; `replace` overwrites one)."""
        from termx.terms import extract_terms, save_terms

        rows = extract_terms(self.engine, self.name, rank, top, min_df, min_len, max_len, progress,
                             reference=reference)
        if save:
            params: dict[str, Any] = {"rank": str(getattr(rank, "value", rank)), "top": top, "min_df": min_df,
                                      "min_len": min_len, "max_len": max_len}
            if reference is not None:
                params["reference"] = reference
            save_terms(self.engine, save, self.name, rows, params, replace)
        return jsonable(rows)  # type: ignore[no-any-return]

    def model(self, max_len: int | None = None, params: Mapping[str, float] | None = None,
              store: bool = True) -> CompactModel:
        """The corpus's branching segmentation model for `max_len` and `params` (termx.limits gives their
        ranges): found stored with the corpus, else trained, and then stored when `store`. The last
        MODELS_IN_MEMORY models used stay in memory."""
        key = self._model_key(max_len, params)
        with self._models_lock:
            if key in self._models:
                self._models.move_to_end(key)
                return self._models[key]
        from termx.wordbreak.corpus_model import segment_model

        model = segment_model(self.engine, self.name, key[0], dict(key[1]), store=store)[0]
        with self._models_lock:
            self._models[key] = model
            while len(self._models) > MODELS_IN_MEMORY:
                self._models.popitem(last=False)
        return model

    def has_model(self, max_len: int | None = None, params: Mapping[str, float] | None = None,
                  stored: bool = False) -> bool:
        """Whether model(max_len, params) is in memory (then it costs nothing), or with `stored` also whether it
        is stored with the corpus (then it needs no training)."""
        key = self._model_key(max_len, params)
        if key in self._models or not stored:
            return key in self._models
        from termx.wordbreak.corpus_model import model_stored

        return model_stored(self.engine, self.name, key[0], dict(key[1]))

    @staticmethod
    def _model_key(max_len: int | None, params: Mapping[str, float] | None) -> _ModelKey:
        """max_len and the parameters, checked (InputError names a bad one) and in a canonical order."""
        from termx.limits import MAX_LEN
        from termx.wordbreak.segmenter import DEFAULT_MAX_LEN, Scorer, scorer_params

        size = DEFAULT_MAX_LEN if max_len is None else MAX_LEN.check("max_len", max_len)
        scorer_params(Scorer.branching, params or {})
        return int(size), tuple(sorted((params or {}).items()))

    def segment(self, lines: Iterable[str], batch: int = SEGMENT_BATCH, max_len: int | None = None,
                params: Mapping[str, float] | None = None, store: bool = True) -> Iterator[list[str]]:
        """The words of each line, lazily, `batch` lines per call of the model (white space stays a boundary;
        `store`: as in model())."""
        it = iter(lines)
        chunk = list(itertools.islice(it, batch))
        self._check_alphabet(chunk)
        model = self.model(max_len, params, store)
        while chunk:
            yield from model.segment_lines(chunk)
            chunk = list(itertools.islice(it, batch))

    def _check_alphabet(self, lines: list[str]) -> None:
        """warnings.warn a ForeignInput when most characters of these lines never occur in the corpus (before a
        model is trained for them)."""
        notice = self.foreign_notice(lines)
        if notice is not None:
            warnings.warn(notice, stacklevel=3)

    def foreign_notice(self, lines: Sequence[str]) -> ForeignInput | None:
        """A ForeignInput notice when most characters of these lines never occur in the corpus, else None."""
        if self._alphabet is None:
            from termx.wordbreak.alphabet import Alphabet

            self._alphabet = Alphabet(self.engine, self.info)
        return self._alphabet.notice(lines)

    def word_breaker(self, scorer: str = "branching", max_len: int | None = None,
                     params: Mapping[str, float] | None = None,
                     progress: Progress | None = None) -> tuple[Callable[[list[str]], list[list[str]]], int | None]:
        """lines -> their words with `scorer` (branching: the corpus's stored model, trained and stored on first
        use; adaptation, poisson, freq: a score table over the loaded index), and the n-grams of a model this call
        trained (None when it was found, or for a table scorer). `params`: checked by scorer_params()."""
        from termx.wordbreak.segmenter import DEFAULT_MAX_LEN, Scorer

        size = DEFAULT_MAX_LEN if max_len is None else max_len
        options = dict(params or {})
        if Scorer(scorer) is Scorer.branching:
            from termx.wordbreak.corpus_model import segment_model

            model, source = segment_model(self.engine, self.name, size, options, progress)
            return model.segment_lines, model.nodes if source == "trained" else None
        from termx.wordbreak.corpus_index import corpus_index
        from termx.wordbreak.segmenter import Segmenter

        segmenter = Segmenter(corpus_index(self.engine, self.name), Scorer(scorer), size, options, progress)
        return segmenter.segment_lines, None

    def segment_records(self, lines: Iterable[str], batch: int = SEGMENT_BATCH, max_len: int | None = None,
                        params: Mapping[str, float] | None = None, store: bool = True) -> Iterator[SegmentRecord]:
        """segment() as the records `termx segment --format json` prints."""
        first, second = itertools.tee(lines)
        yield from segment_records(first, self.segment(second, batch, max_len, params, store))

    def jdf(self, x: str, ys: Iterable[str] | str, method: str = "exact") -> list[dict[str, Any]]:
        """Joint document frequency of `x` with each of `ys` (one string or an iterable), as `termx jdf CORPUS X
        Y... --format json`: df_x, df_y, jdf, the 2x2 document table, PMI, Dice, lift, G2 and its p-value.
        `method`: exact, or sketch (estimated from the stored sketches). A bad `x` raises PatternError; a bad y
        gets a record with an `error`, as in stats()."""
        from termx.jdf.pairs import documents

        parts = self._parts(method)
        documents(parts, x)  # a bad x is one error, not one per pair
        return list(self.iter_jdf(((x, y) for y in ([ys] if isinstance(ys, str) else ys)), method))

    def iter_jdf(self, pairs: Iterable[tuple[str, str]], method: str = "exact") -> Iterator[dict[str, Any]]:
        """jdf() of (x, y) pairs, lazily, one record per pair (`termx jdf CORPUS --patterns FILE` of X<TAB>Y
        lines); a pair with a bad string gets a record with an `error` naming its position."""
        from termx.jdf.pairs import jdf_each

        for record in jdf_each(self._parts(method), pairs, method):
            yield jsonable(record)

    def related(self, term: str, top: int = 20, measure: str = "g2", min_df: int = 5) -> list[dict[str, Any]]:
        """The `top` strings that share documents with `term` more than chance, ranked by `measure` (g2, pmi, dice
        or lift), in at least `min_df` documents, as `termx related --format json` (needs the corpus's sketches:
        termx sketch, or index(..., sketches=True))."""
        from termx.jdf.related import related

        return jsonable(related(self._parts("sketch"), term, top, measure, min_df))  # type: ignore[no-any-return]

    def sketch(self, k: int = 256, threshold: int = 20, progress: Progress | None = None) -> dict[str, Any]:
        """Compute and store bottom-k MinHash sketches of the document sets of the classes in at least `threshold`
        documents, for jdf(method="sketch") and related(); the summary `termx sketch --format json` prints."""
        from termx.jdf.sketch_store import build_sketches

        summary = build_sketches(self.engine, self.name, k, threshold, progress)
        self._jdf_parts.pop("sketch", None)  # the next jdf or related reads the new sketches
        return summary

    def _parts(self, method: str) -> list[Part]:
        """The shards as jdf parts, with their sketches for method "sketch" (loaded once, then kept)."""
        from termx.jdf.pairs import METHODS, load_parts

        if method not in METHODS:
            raise InputError(f"`method` {method!r} is not one of {', '.join(METHODS)}", params=("method",))
        if method not in self._jdf_parts:
            self._jdf_parts[method] = load_parts(self.engine, self.name, with_sketches=method == "sketch")
        return self._jdf_parts[method]

    def close(self) -> None:
        """Forget the in-memory index and models (the database stays as it is)."""
        self._shards = None
        self._jdf_parts.clear()
        self._models.clear()
        self._alphabet = None

    def __enter__(self) -> Corpus:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Corpus({self.name!r}, unit={self.info.unit!r}, documents={self.info.documents})"


def segment_records(lines: Iterable[str], words: Iterable[list[str]], first: int = 1) -> Iterator[SegmentRecord]:
    """The records of lines and their words, numbered from `first`, as `termx segment --format json` prints them."""
    from termx.wordbreak.line_batches import segment_record

    for n, (line, of_line) in enumerate(zip(lines, words, strict=True), first):
        yield segment_record(n, line, of_line)  # type: ignore[misc]


def scorer_params(scorer: str, params: Mapping[str, float]) -> dict[str, float]:
    """The parameters of segmentation `scorer` (branching, adaptation, poisson, freq): its defaults overridden by
    `params` (InputError names a bad key or value; termx.limits gives the ranges)."""
    from termx.wordbreak.segmenter import Scorer
    from termx.wordbreak.segmenter import scorer_params as checked

    return checked(Scorer(scorer), params)


def record_fields(command: str) -> tuple[str, ...]:
    """The fields of the records of `command` (stats, dist, class or concordance), in the order the CLI shows them."""
    if command == "dist":
        from termx.studies.distribution import DIST_FIELDS

        return DIST_FIELDS
    from termx.lookup import CLASS_FIELDS, CONCORDANCE_FIELDS, STATS_FIELDS

    return {"stats": STATS_FIELDS, "class": CLASS_FIELDS, "concordance": CONCORDANCE_FIELDS}[command]


def open(name: str, db: str | None = None) -> Corpus:  # noqa: A001 - termx.open, like io.open
    """The corpus `name` in the database `db` (default: TERMX_DATABASE_URL, else the embedded server):
    `termx.Database(db).corpus(name)`."""
    from termx.database import Database

    return Database(db).corpus(name)
