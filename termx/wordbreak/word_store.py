"""The `words` model of a corpus: its word and pair counts, counted the first time they are needed and stored with
the corpus (termx.segment_model, scorer "words"), like the branching model (termx.wordbreak.corpus_model).

The stored counts depend on nothing but the corpus (no parameter enters them), so one row serves every
`max_len` and `--param` value: those only shape the search tables built from the counts on load.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping

from sqlalchemy.engine import Engine

from termx.index.loaded_index import LoadedIndex
from termx.progress import Progress, Silent, Timings
from termx.storage.corpora import get_corpus
from termx.storage.segment_models import cache_model, find_model, save_model
from termx.wordbreak.word_model import FORMAT, WordCounts, WordModel, count_words, word_params

SCORER = "words"
_KEY = json.dumps({"format": FORMAT}, sort_keys=True)
_counts_memo: dict[tuple[str, int, str, int], WordCounts] = {}
_models_memo: dict[tuple[object, ...], tuple[WordCounts, WordModel]] = {}


def documents_text(index: LoadedIndex) -> Iterator[str]:
    """The text of each document of an index (a word corpus's words joined by spaces)."""
    tokens = index.tokens
    for start, length in zip(index.doc_start.tolist(), index.doc_len.tolist(), strict=True):
        yield index.decode(tokens[start:start + length])


def word_counts(engine: Engine, corpus: str, progress: Progress | None = None,
                store: bool = True) -> tuple[WordCounts, str]:
    """The corpus's word and pair counts and where they came from ("memory", "cache", "database", "trained":
    then stored, unless not `store`)."""
    info = get_corpus(engine, corpus)
    memo_key = (engine.url.render_as_string(hide_password=True), info.id, info.created_at, info.shards)
    if memo_key in _counts_memo:
        return _counts_memo[memo_key], "memory"
    progress = progress or Silent()
    with Timings().stage("loading model", progress):
        stored = find_model(engine, info, SCORER, _KEY)
    if stored is not None:
        counts, source = WordCounts.from_stored(stored.arrays), stored.source
    else:
        from termx.wordbreak.corpus_index import corpus_index

        started = time.perf_counter()
        with Timings().stage("loading index", progress):
            index = corpus_index(engine, corpus)
        with Timings().stage("counting words", progress):
            counts = count_words(documents_text(index))
        source = "trained"
        if not store:
            return counts, source
        save_model(engine, info, SCORER, _KEY, counts.meta(), counts.arrays(), len(counts.words),
                   time.perf_counter() - started)
    if source != "cache":
        cache_model(engine, info, SCORER, _KEY, counts.meta(), counts.arrays())
    _counts_memo.clear()
    _counts_memo[memo_key] = counts
    return counts, source


def word_model(engine: Engine, corpus: str, max_len: int, options: Mapping[str, float] | None = None,
               progress: Progress | None = None, store: bool = True) -> tuple[WordModel, str]:
    """The corpus's `words` model for `max_len` and `options` (word_params), and where its counts came from."""
    params = word_params(options or {})
    counts, source = word_counts(engine, corpus, progress, store)
    key = (id(counts), max_len, tuple(sorted(params.items())))
    if key not in _models_memo or _models_memo[key][0] is not counts:
        if len(_models_memo) >= 3:
            _models_memo.clear()
        _models_memo[key] = counts, WordModel(counts, max_len, params)
    return _models_memo[key][1], source
