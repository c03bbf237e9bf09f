"""The worker task of a build of several shards (docs/scale-out.md): build one shard in memory and store it. A
local shard goes whole into its staged rows and class table with binary COPY, in the worker's own transactions,
so the coordinator (termx.storage.shards) never holds its rows. A foreign shard's class rows go to its storage
server the same way, and the worker returns the shard's index arrays and document offsets, which the coordinator
writes itself: a task bound for a storage server carries that server's conninfo and never the coordinator's. It
runs in a process of a local pool or on a Dask worker (termx.storage.executors).
"""

from __future__ import annotations

import contextlib
import resource
import time
from dataclasses import dataclass, field

import numpy as np
import psycopg

from termx.errors import ServerUnreachable, libpq_reason
from termx.index.build import Shard, build_shard
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.progress import Silent, Timings
from termx.storage.corpora import StoredArray, shard_arrays, store_classes, store_shard
from termx.storage.foreign import REMOTE_SCHEMA
from termx.storage.statements import run_internal


@dataclass(frozen=True)
class ShardTask:
    """Everything a worker needs to build and store one shard (picklable). `url` reaches the coordinator, for a
    local shard; a foreign shard's task has `class_url` (its storage server) instead, and no `url`."""

    url: str | None
    corpus_id: int
    shard_id: int
    shard_no: int
    first_doc: int
    documents: list[Document]
    unit: Unit
    vocab: list[str] | None
    max_k: int
    rep_cap: int
    min_freq: int = 2     # class rows only for freq >= this (corpora.store_shard)
    connections: int = 1  # to the database, for loading the shard (corpora.store_shard)
    class_url: str | None = None  # a foreign shard's storage server (termx.storage.foreign), for its class rows
    server: str | None = None     # that server's registered name (what an error names)


@dataclass
class ReturnedRows:
    """What the coordinator stores of a foreign shard: its index arrays and each document's token offsets."""

    arrays: list[StoredArray]
    doc_start: np.ndarray
    doc_len: np.ndarray


@dataclass
class ShardResult:
    """What a worker reports back: sizes, seconds and its peak memory; for a foreign shard, the rows that the
    coordinator stores (`rows`, dropped once stored)."""

    shard_no: int
    tokens: int
    documents: int
    classes: int
    trivial_classes: int
    seconds: float
    peak_rss_bytes: int
    timings: dict[str, float] = field(default_factory=dict)
    rows: ReturnedRows | None = None


def build_and_store(task: ShardTask) -> ShardResult:
    """Worker: build one shard in memory and COPY it into its staged tables (a foreign shard: its class rows)."""
    t0 = time.perf_counter()
    timings = Timings()
    shard = build_shard(task.documents, task.unit, task.max_k, timings=timings, vocab=task.vocab)
    rows = None
    if task.class_url:
        _store_foreign(task, shard, timings)
        rows = ReturnedRows(shard_arrays(shard), shard.tokens.doc_start, shard.tokens.doc_len)
    else:
        _store_local(task, shard, timings, t0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return ShardResult(task.shard_no, shard.tokens.n_tokens, len(shard.documents), len(shard.classes),
                       shard.trivial_classes, time.perf_counter() - t0, peak, dict(timings), rows)


def _store_local(task: ShardTask, shard: Shard, timings: Timings, t0: float) -> None:
    """A local shard: documents, arrays, class rows and indexes, then its figures in its shard row."""
    assert task.url is not None
    with contextlib.ExitStack() as stack:
        conns = [stack.enter_context(psycopg.connect(task.url, autocommit=True)) for _ in range(task.connections)]
        store_shard(conns, task.corpus_id, task.shard_id, shard, task.rep_cap, timings, Silent(), task.first_doc,
                    vocab=False, min_freq=task.min_freq)
        run_internal(conns[0], "shards.shard_built", tokens=shard.tokens.n_tokens, classes=len(shard.classes),
                     seconds=round(time.perf_counter() - t0, 4), id=task.shard_id)


def _store_foreign(task: ShardTask, shard: Shard, timings: Timings) -> None:
    """A foreign shard: its class rows, indexes and ANALYZE on its storage server; ServerUnreachable if the server
    cannot be reached or goes away meanwhile."""
    assert task.class_url is not None
    with contextlib.ExitStack() as stack:
        try:
            conns = [stack.enter_context(psycopg.connect(task.class_url, autocommit=True))
                     for _ in range(task.connections)]
        except psycopg.OperationalError as exc:
            raise _storage_lost(task, exc) from None
        try:
            store_classes(conns, task.shard_id, shard, task.rep_cap, timings, Silent(), task.min_freq,
                          REMOTE_SCHEMA)
        except psycopg.OperationalError as exc:
            if any(c.broken for c in conns):  # the storage server went away mid-COPY
                raise _storage_lost(task, exc) from None
            raise


def _storage_lost(task: ShardTask, exc: psycopg.Error) -> ServerUnreachable:
    """The worker's report of its storage server gone (the coordinator names the corpus and every shard there)."""
    return ServerUnreachable(f"storage server {task.server or 'of the shard'!r} is unreachable (shard {task.shard_no})",
                             libpq_reason(str(exc)))
