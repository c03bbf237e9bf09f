"""`termx index` as a library call: read documents, build the shard(s), store them, summarise."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine

from termx.defaults import DEFAULT_REP_CAP, DEFAULT_STORE_MIN_FREQ
from termx.errors import InputError
from termx.index.build import DEFAULT_MAX_K, build_shard
from termx.index.fold import fold_case as fold
from termx.index.ingest import Document, InputMode, OnInvalid, ReadReport, read_documents
from termx.index.sharding import cut_shards
from termx.index.units import Unit
from termx.progress import Progress, Silent, Timings
from termx.storage.corpora import dependents, get_corpus, require_new_corpus, save_corpus
from termx.storage.executors import Runner
from termx.storage.shards import save_shards


@dataclass
class IndexSummary:
    """What a build did: sizes and seconds per stage."""

    corpus: str
    unit: str
    max_k: int
    tokens: int
    documents: int
    classes: int
    trivial_classes: int
    empty_documents_skipped: int
    replaced_bytes: int
    seconds: dict[str, float]
    deleted: dict[str, int]  # what --replace removed with the old version: term lists, white space runs, models
    shards: int = 1          # shards this build stored (for --append: the new ones)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return dict(self.__dict__)


def check_corpus_name(name: str) -> None:
    """A corpus name is 1 to 200 printable characters, not all spaces and with none at either end (`c1 ` would
    print as another corpus `c1`): no control, format (bidi) or separator characters other than the space, since
    names are shown on terminals and passed around in shells and URLs."""
    if not name or len(name) > 200:
        raise InputError("a corpus name must have 1 to 200 characters")
    if not name.strip():
        raise InputError(f"a corpus name must not be blank: {name!r}", "use letters, digits, spaces and punctuation")
    if name != name.strip():
        raise InputError(f"a corpus name must not start or end with white space: {name!r}",
                         f"name it {name.strip()!r}")
    bad = next((c for c in name if not c.isprintable()), None)
    if bad is not None:
        shown = bad.encode("unicode_escape").decode("ascii")
        raise InputError(f"a corpus name must be printable: {name!r} holds {shown}",
                         "use letters, digits, spaces and punctuation")


def index_paths(engine: Engine, name: str, paths: list[str], unit: Unit = Unit.byte, max_k: int = DEFAULT_MAX_K,
                mode: InputMode = InputMode.auto, on_invalid: OnInvalid = OnInvalid.reject,
                replace: bool = False, progress: Progress | None = None, fold_case: bool = False,
                shard_size: int | None = None, append: bool = False, runner: Runner | None = None,
                store_min_freq: int = DEFAULT_STORE_MIN_FREQ, server: str | None = None) -> IndexSummary:
    """Index files/directories/stdin as corpus `name` (an existing name is an error unless `replace`; `append`
    adds them to the existing corpus as new shards); `shard_size` cuts them into shards of at most that many
    bytes of text, built by `runner` (default: a pool of worker processes, one per core); `store_min_freq`: see
    index_documents."""
    check_corpus_name(name)
    if not append:
        require_new_corpus(engine, name, replace)
    timings = Timings()
    with timings.stage("read", progress or Silent()):
        docs, report = read_documents(paths, mode, on_invalid)
    return index_documents(engine, name, docs, unit, max_k, replace, progress, timings, report,
                           {"paths": paths, "input": mode.value, "invalid": on_invalid.value}, fold_case, shard_size,
                           append, runner, store_min_freq, server)


def index_documents(engine: Engine, name: str, docs: Sequence[Document], unit: Unit = Unit.byte,
                    max_k: int = DEFAULT_MAX_K, replace: bool = False, progress: Progress | None = None,
                    timings: Timings | None = None, report: ReadReport | None = None,
                    params: dict[str, Any] | None = None, fold_case: bool = False, shard_size: int | None = None,
                    append: bool = False, runner: Runner | None = None,
                    store_min_freq: int = DEFAULT_STORE_MIN_FREQ, server: str | None = None) -> IndexSummary:
    """Index documents already in memory (the demo and the experiments use this directly).

    Only classes that occur at least `store_min_freq` times get a row in termx.class (the corpus's params record
    it; an append keeps the corpus's); look-ups compute the rarer ones from the suffix array, with the same answers.

    `fold_case` indexes the texts lower-cased (termx.index.fold: lengths kept, so offsets are the original's);
    the corpus's params record it and every look-up folds its pattern the same way. Documents that make one
    shard are built in this process; several shards (or `append`) go through termx.storage.shards (workers
    build and store shards; one transaction makes them visible).
    """
    check_corpus_name(name)
    if max_k < 1:
        raise InputError("`max_k` must be at least 1", params=("max_k",))
    if replace and append:
        raise InputError("`replace` and `append` exclude each other", params=("replace", "append"))
    if store_min_freq < 2:
        raise InputError("`store_min_freq` must be at least 2", params=("store_min_freq",))
    timings = timings if timings is not None else Timings()
    report = report or ReadReport()
    deleted = dependents(engine, name) if replace else {}
    if fold_case:
        docs = [dataclasses.replace(d, text=fold(d.text)) for d in docs]
    groups = cut_shards(docs, shard_size)
    t0 = time.perf_counter()
    params = {**(params or {}), "unit": unit.value, "max_k": max_k, "rep_cap": DEFAULT_REP_CAP, "fold_case": fold_case}
    if len(groups) > 1 or append or runner is not None or server is not None:  # a foreign shard: by a worker
        params["shard_size"] = shard_size
        _, results = save_shards(engine, name, groups, unit, max_k, replace, append, params, runner, progress,
                                 timings, min_freq=store_min_freq, server=server)
        trivial = sum(r.trivial_classes for r in results)
    else:
        shard = build_shard(docs, unit, max_k, progress, timings, ngram_filter=False)  # one shard: no reader
        params["build_seconds"] = round(time.perf_counter() - t0, 4)
        save_corpus(engine, name, shard, replace, params, progress, timings, min_freq=store_min_freq)
        trivial = shard.trivial_classes
    info = get_corpus(engine, name)
    return IndexSummary(name, info.unit, info.max_k, info.tokens, info.documents, info.classes, trivial,
                        report.empty_documents, report.replaced_bytes, {k: round(v, 3) for k, v in timings.items()},
                        deleted, len(groups))
