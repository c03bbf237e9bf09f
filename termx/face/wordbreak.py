"""Word breaking on the face: a Corpus's segmentation models (stored, trained, kept in memory) and the records of
`termx segment` (docs/design.md, "Word breaking")."""

from __future__ import annotations

import itertools
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict

from termx.errors import ForeignInput, InputError

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from termx.progress import Progress
    from termx.storage.corpora import CorpusInfo
    from termx.wordbreak.alphabet import Alphabet
    from termx.wordbreak.ngram_tables import CompactModel
    from termx.wordbreak.word_model import WordModel
    from termx.wordbreak.word_scores import WordScore

SEGMENT_BATCH = 1000
"""Lines segmented per call of the model."""
_ModelKey = tuple[int, tuple[tuple[str, float], ...]]
"""max_len and the params of a segmentation model."""
MODELS_IN_MEMORY = 3
"""Segmentation models a Corpus keeps in memory (the least recently used goes first): tens of MB each."""


class SegmentRecord(TypedDict):
    """One segmented line (`termx segment --format json`)."""

    line: int
    text: str
    words: list[str]
    boundaries: list[int]


class ScoredRecord(TypedDict):
    """One segmented line with the score the search gave each word (Corpus.segment_scores)."""

    line: int
    text: str
    words: list[str]
    boundaries: list[int]
    scores: list[WordScore]
    total: float


class WordBreaking:
    """The segmentation capability of a Corpus (needs its `engine`, `name` and `info`)."""

    engine: Engine
    name: str
    info: CorpusInfo

    def _init_models(self) -> None:
        """No model or alphabet in memory yet."""
        self._models: OrderedDict[_ModelKey, CompactModel] = OrderedDict()
        self._models_lock = threading.Lock()  # `termx serve` calls model() from several threads
        self._alphabet: Alphabet | None = None

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

    def word_model(self, max_len: int | None = None, params: Mapping[str, float] | None = None,
                   store: bool = True) -> WordModel:
        """The corpus's `words` model (docs/segment.md, "New text against a spaced corpus"): word and pair counts
        of the corpus's own spacing, counted on first use and then stored with the corpus when `store`; `params`
        (discount, min_count, min_pair, unknown, unknown_len) shape only the search, so they need no recount."""
        from termx.limits import MAX_LEN
        from termx.wordbreak.segmenter import DEFAULT_MAX_LEN
        from termx.wordbreak.word_store import word_model

        size = DEFAULT_MAX_LEN if max_len is None else MAX_LEN.check("max_len", max_len)
        return word_model(self.engine, self.name, int(size), params, store=store)[0]

    def has_model(self, max_len: int | None = None, params: Mapping[str, float] | None = None,
                  stored: bool = False) -> bool:
        """Whether model(max_len, params) is in memory (then it costs nothing), or with `stored` also whether it
        is stored with the corpus (then it needs no training)."""
        key = self._model_key(max_len, params)
        if key in self._models or not stored:
            return key in self._models
        from termx.wordbreak.corpus_model import model_stored

        return model_stored(self.engine, self.name, key[0], dict(key[1]))

    def stored_models(self) -> list[dict[str, object]]:
        """The segmentation models stored with the corpus: scorer, settings, size, training time."""
        from termx.storage.segment_models import list_models

        return list_models(self.engine, self.info)

    @staticmethod
    def _model_key(max_len: int | None, params: Mapping[str, float] | None) -> _ModelKey:
        """max_len and the parameters, checked (InputError names a bad one) and in a canonical order."""
        from termx.limits import MAX_LEN
        from termx.wordbreak.segmenter import DEFAULT_MAX_LEN, Scorer, scorer_params

        size = DEFAULT_MAX_LEN if max_len is None else MAX_LEN.check("max_len", max_len)
        scorer_params(Scorer.branching, params or {})
        return int(size), tuple(sorted((params or {}).items()))

    def segment(self, lines: Iterable[str], batch: int = SEGMENT_BATCH, max_len: int | None = None,
                params: Mapping[str, float] | None = None, store: bool = True,
                scorer: str = "branching") -> Iterator[list[str]]:
        """The words of each line, lazily, `batch` lines per call of the model (white space stays a boundary;
        `store`: as in model()). `scorer` "words": the word bigram model counted from the corpus's own spacing
        (word_model()) instead of the branching model."""
        it = iter(lines)
        chunk = list(itertools.islice(it, batch))
        self._check_alphabet(chunk)
        model: CompactModel | WordModel = self.word_model(max_len, params, store) if scorer == "words" else \
            self.model(max_len, params, store)
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
        use; words: the word bigram model of the corpus's spacing, counted and stored on first use; adaptation,
        poisson, freq: a score table over the loaded index), and the n-grams (words) of a model this call trained
        (None when it was found, or for a table scorer). `params`: checked by scorer_params()."""
        from termx.wordbreak.segmenter import DEFAULT_MAX_LEN, Scorer

        size = DEFAULT_MAX_LEN if max_len is None else max_len
        options = dict(params or {})
        if Scorer(scorer) is Scorer.words:
            from termx.wordbreak.word_store import word_model

            words, source = word_model(self.engine, self.name, size, options, progress)
            return words.segment_lines, words.words if source == "trained" else None
        if Scorer(scorer) is Scorer.branching:
            from termx.wordbreak.corpus_model import segment_model

            model, source = segment_model(self.engine, self.name, size, options, progress)
            return model.segment_lines, model.nodes if source == "trained" else None
        from termx.wordbreak.corpus_index import corpus_index
        from termx.wordbreak.segmenter import Segmenter

        segmenter = Segmenter(corpus_index(self.engine, self.name), Scorer(scorer), size, options, progress)
        return segmenter.segment_lines, None

    def segment_records(self, lines: Iterable[str], batch: int = SEGMENT_BATCH, max_len: int | None = None,
                        params: Mapping[str, float] | None = None, store: bool = True,
                        scorer: str = "branching") -> Iterator[SegmentRecord]:
        """segment() as the records `termx segment --format json` prints."""
        first, second = itertools.tee(lines)
        yield from segment_records(first, self.segment(second, batch, max_len, params, store, scorer))

    def segment_scores(self, lines: Iterable[str], others: int = 3, batch: int = SEGMENT_BATCH,
                       max_len: int | None = None, params: Mapping[str, float] | None = None, store: bool = True
                       ) -> Iterator[ScoredRecord]:
        """segment_records() with, per word, the score the model's Viterbi search gave it (weight · log P + the
        boundary term it includes) and the `others` best-scoring other words starting at the same place, and per
        line the total the search maximised (the sum of its words' scores)."""
        from termx.wordbreak.line_batches import segment_record
        from termx.wordbreak.word_scores import scored_words

        if others < 0:
            raise InputError("`others` must be 0 or more", params=("others",))
        it = iter(lines)
        chunk = list(itertools.islice(it, batch))
        self._check_alphabet(chunk)
        model = self.model(max_len, params, store)
        n = 1
        while chunk:
            found, tables = model.chunk_scores(chunk)
            for line, (scores, total) in zip(chunk, scored_words(found, tables, model.params["theta"], others),
                                             strict=True):
                record = segment_record(n, line, [w["word"] for w in scores])
                yield {**record, "scores": scores, "total": total}  # type: ignore[typeddict-item]
                n += 1
            chunk = list(itertools.islice(it, batch))

    def _forget_models(self) -> None:
        """Drop the models and the alphabet held in memory."""
        self._models.clear()
        self._alphabet = None


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
