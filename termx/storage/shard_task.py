"""The worker task of a build of several shards (docs/scale-out.md): build one shard in memory and store it in
its staged rows and class table with binary COPY, in the worker's own transaction (a foreign shard's class rows
on its storage server), so the coordinator (termx.storage.shards) never holds a shard's rows. It runs in a process
of a local pool or on a Dask worker (termx.storage.executors).
"""

from __future__ import annotations

import contextlib
import resource
import time
from dataclasses import dataclass, field

import psycopg

from termx.errors import ServerUnreachable, libpq_reason
from termx.index.build import build_shard
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.progress import Silent, Timings
from termx.storage.corpora import store_shard
from termx.storage.foreign import REMOTE_SCHEMA
from termx.storage.statements import run_internal


@dataclass(frozen=True)
class ShardTask:
    """Everything a worker needs to build and store one shard (picklable; the URL reaches the database)."""

    url: str
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
class ShardResult:
    """What a worker reports back: sizes, seconds and its peak memory."""

    shard_no: int
    tokens: int
    documents: int
    classes: int
    trivial_classes: int
    seconds: float
    peak_rss_bytes: int
    timings: dict[str, float] = field(default_factory=dict)


def build_and_store(task: ShardTask) -> ShardResult:
    """Worker: build one shard in memory and COPY it into its staged tables in one transaction."""
    t0 = time.perf_counter()
    timings = Timings()
    shard = build_shard(task.documents, task.unit, task.max_k, timings=timings, vocab=task.vocab)
    with contextlib.ExitStack() as stack:
        conns = [stack.enter_context(psycopg.connect(task.url, autocommit=True)) for _ in range(task.connections)]
        class_conns = _storage_connections(stack, task)
        try:
            store_shard(conns, task.corpus_id, task.shard_id, shard, task.rep_cap, timings, Silent(),
                        task.first_doc, vocab=False, min_freq=task.min_freq, class_conns=class_conns,
                        class_schema=REMOTE_SCHEMA if task.class_url else "termx")
        except psycopg.OperationalError as exc:
            if class_conns and any(c.broken for c in class_conns):  # the storage server went away mid-COPY
                raise _storage_lost(task, exc) from None
            raise
        seconds = time.perf_counter() - t0
        run_internal(conns[0], "shards.shard_built", tokens=shard.tokens.n_tokens, classes=len(shard.classes),
                     seconds=round(seconds, 4), id=task.shard_id)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return ShardResult(task.shard_no, shard.tokens.n_tokens, len(shard.documents), len(shard.classes),
                       shard.trivial_classes, seconds, peak, dict(timings))


def _storage_connections(stack: contextlib.ExitStack, task: ShardTask) -> list[psycopg.Connection] | None:
    """The task's connections to its storage server (None for a local shard); ServerUnreachable if it is down."""
    if not task.class_url:
        return None
    try:
        return [stack.enter_context(psycopg.connect(task.class_url, autocommit=True))
                for _ in range(task.connections)]
    except psycopg.OperationalError as exc:
        raise _storage_lost(task, exc) from None


def _storage_lost(task: ShardTask, exc: psycopg.Error) -> ServerUnreachable:
    """The worker's report of its storage server gone (the coordinator names the corpus and every shard there)."""
    return ServerUnreachable(f"storage server {task.server or 'of the shard'!r} is unreachable (shard {task.shard_no})",
                             libpq_reason(str(exc)))
