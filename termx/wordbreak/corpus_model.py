"""The branching model of a corpus, trained the first time it is needed and stored with the corpus.

`segment_model` looks in this process's memo, then the disk cache, then PostgreSQL (termx.segment_model), and
only then trains (reverse index, self-training: tens of seconds on Reuters) and stores the result. A rebuilt or
dropped corpus loses its models (the rows cascade; the cache is keyed by the corpus's id and build time).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

from sqlalchemy.engine import Engine

from termx.progress import Progress, Silent, Timings
from termx.storage.corpora import get_corpus
from termx.storage.segment_models import cache_model, find_model, model_exists, save_model
from termx.wordbreak.model import DEFAULTS
from termx.wordbreak.ngram_tables import FORMAT, CompactModel, compact_model
from termx.wordbreak.scoring import Scorer
from termx.wordbreak.segmenter import DEFAULT_MAX_LEN, scorer_params

SCORER = Scorer.branching.value

_memo: dict[tuple[str, int, str, str], CompactModel] = {}


def model_key(max_len: int, options: Mapping[str, float] | None, shards: int = 1) -> str:
    """The settings a model is trained with, as canonical JSON (the look-up key of a stored model). The defaults
    are part of it, so a model stored before a default changed is trained again; a corpus of several shards adds
    its shard count: an --append keeps the corpus row, so this is what retires its model."""
    scorer_params(Scorer.branching, options or {})  # bad parameters fail before anything is loaded
    key: dict[str, object] = {"format": FORMAT, "max_len": max_len, "options": dict(sorted((options or {}).items())),
                              "defaults": {kind: p.as_dict() for kind, p in DEFAULTS.items()}}
    if shards > 1:
        key["shards"] = shards
    return json.dumps(key, sort_keys=True)


def model_stored(engine: Engine, corpus: str, max_len: int = DEFAULT_MAX_LEN,
                 options: Mapping[str, float] | None = None) -> bool:
    """Whether segment_model would find the model stored (no training), without loading it."""
    info = get_corpus(engine, corpus)
    return model_exists(engine, info, SCORER, model_key(max_len, options, info.shards))


def segment_model(engine: Engine, corpus: str, max_len: int = DEFAULT_MAX_LEN,
                  options: Mapping[str, float] | None = None,
                  progress: Progress | None = None, store: bool = True) -> tuple[CompactModel, str]:
    """The corpus's branching model and where it came from: "memory", "cache", "database" or "trained" (and
    then stored, unless not `store`: a model for one request of `termx serve` is kept by no one)."""
    info = get_corpus(engine, corpus)
    key = model_key(max_len, options, info.shards)
    memo_key = (engine.url.render_as_string(hide_password=True), info.id, info.created_at, key)
    if memo_key in _memo:
        return _memo[memo_key], "memory"
    progress = progress or Silent()
    with Timings().stage("loading model", progress):  # no total known: a spinner
        stored = find_model(engine, info, SCORER, key)
    if stored is not None:
        model, source = CompactModel.from_stored(stored.meta, stored.arrays), stored.source
    else:
        from termx.wordbreak.corpus_index import corpus_index
        from termx.wordbreak.segmenter import Segmenter

        started = time.perf_counter()
        with Timings().stage("loading index", progress):
            index = corpus_index(engine, corpus)
        segmenter = Segmenter(index, Scorer.branching, max_len, options, progress)
        assert segmenter.model is not None
        model = compact_model(segmenter.model, index.unit, index.vocab)
        if not store:
            return model, "trained"
        save_model(engine, info, SCORER, key, model.meta(), model.arrays(), model.nodes,
                   time.perf_counter() - started)
        source = "trained"
    if source != "cache":  # the cache also keeps the hash tables, so that loading is a memory map
        cache_model(engine, info, SCORER, key, model.meta(), {**model.arrays(), **model.tables()})
    _memo.clear()  # one model per process is plenty; they are large
    _memo[memo_key] = model
    return model, source
