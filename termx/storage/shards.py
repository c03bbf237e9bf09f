"""Build a corpus of several shards in parallel and store it beside the live corpora (docs/scale-out.md).

The coordinator stages a nameless corpus row, one row and one standalone class table per shard, and the global
vocabulary; each worker (a process of a local pool, or a task on a Dask cluster) builds its shard's arrays and
class rows in memory and streams them into PostgreSQL itself with binary COPY, in its own transaction, so the
coordinator never holds a shard's rows. When every shard is stored, one short transaction swaps the corpus in
(store._swap), or, for --append, moves the new shards, documents and tokens under the existing corpus. If a
worker fails or dies, the staged rows are purged and the database is as before.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import json
import os
import resource
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

import psycopg
from sqlalchemy.engine import Engine

from termx.defaults import DEFAULT_REP_CAP
from termx.errors import (
    BuildFailed,
    CorpusExists,
    CorpusInUse,
    InputError,
    MissingDependency,
    TermxError,
)
from termx.faults import fault_point
from termx.index.build import build_shard
from termx.index.ingest import Document
from termx.index.units import Unit, vocabulary
from termx.progress import Progress, Silent, Timings
from termx.storage import transactions
from termx.storage.copyrows import copy_binary
from termx.storage.corpora import STORE_CONNECTIONS, CorpusInfo, _swap, _url, corpus_not_found, get_corpus, store_shard
from termx.storage.foreign import REMOTE_SCHEMA, server_conninfo, stage_partition


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
    connections: int = 1  # to the database, for loading the shard (store.store_shard)
    class_url: str | None = None  # a foreign shard's storage server (termx.storage.foreign), for its class rows


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
        class_conns = [stack.enter_context(psycopg.connect(task.class_url, autocommit=True))
                       for _ in range(task.connections)] if task.class_url else None
        store_shard(conns, task.corpus_id, task.shard_id, shard, task.rep_cap, timings, Silent(), task.first_doc,
                    vocab=False, class_conns=class_conns, class_schema=REMOTE_SCHEMA if task.class_url else "termx")
        seconds = time.perf_counter() - t0
        conns[0].execute("UPDATE termx.shard SET tokens = %s, classes = %s, built_at = now(), seconds = %s"
                         " WHERE id = %s", (shard.tokens.n_tokens, len(shard.classes), round(seconds, 4),
                                            task.shard_id))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return ShardResult(task.shard_no, shard.tokens.n_tokens, len(shard.documents), len(shard.classes),
                       shard.trivial_classes, seconds, peak, dict(timings))


Runner = Callable[[list[ShardTask]], Iterator[ShardResult]]
SCHEDULER_PROBE_SECONDS = 5.0
DASK_TASKS_PER_WORKER = 2  # one building, one with its documents already on the worker
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def pool_runner(workers: int | None = None) -> Runner:
    """Run shard tasks in `workers` spawned processes (default: the cores); one worker runs them in this process."""
    count = workers or os.cpu_count() or 1
    if count < 1:
        raise InputError("`workers` must be at least 1", params=("workers",))

    def run(tasks: list[ShardTask]) -> Iterator[ShardResult]:
        if count == 1 or len(tasks) == 1:  # one shard at a time, here: it may load over several connections
            for task in tasks:
                yield build_and_store(dataclasses.replace(task, connections=STORE_CONNECTIONS))
            return
        with _safe_path():  # multiprocessing's resource tracker starts here
            pool = ProcessPoolExecutor(max_workers=min(count, len(tasks)), mp_context=get_context("spawn"),
                                       initializer=_die_with_parent, initargs=(os.getpid(),))
        try:
            with _safe_path():  # the workers start in submit() (Python 3.11 to 3.13)
                pending: set[Future[ShardResult]] = {pool.submit(build_and_store, t) for t in tasks}
            while pending:
                done, pending = wait(pending, return_when=FIRST_EXCEPTION)
                for f in done:
                    yield f.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    return run


@contextlib.contextmanager
def _safe_path() -> Iterator[None]:
    """Start Python children without the working directory on sys.path (PYTHONSAFEPATH, as `python -P`).

    A spawned worker (and multiprocessing's resource tracker) starts as `python -c ...`, which puts the current
    directory first on sys.path while it imports multiprocessing: a `multiprocessing/` or `pickle.py` another
    user left in that directory would run as this user. (The worker then takes this process's sys.path.)"""
    previous = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        if previous is None:
            del os.environ["PYTHONSAFEPATH"]
        else:
            os.environ["PYTHONSAFEPATH"] = previous


def _die_with_parent(parent: int) -> None:
    """Worker initializer: get SIGKILL when the process that started this worker ends, however it ends (kill -9
    included), instead of waiting forever on the pool's queue with its shard in memory. Linux's parent-death
    signal (it follows the thread that started the worker: the one that runs the whole build); elsewhere a
    thread that watches the parent."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    else:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the signal was armed
        os.kill(os.getpid(), signal.SIGKILL)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1)
    os.kill(os.getpid(), signal.SIGKILL)


def dask_runner(address: str) -> Runner:
    """Run shard tasks on the Dask cluster whose scheduler is at `address` (each worker needs the input's
    documents — they travel with the task — termx installed, and a route to the PostgreSQL server).

    The address is checked here, before anything is staged: a malformed one is an InputError, a scheduler that
    does not answer a BuildFailed, at once rather than after the client's 30 s of retries. A shard's documents
    go from this process straight to a worker (scattered, never through the scheduler's task graph), and at
    most DASK_TASKS_PER_WORKER tasks per worker are out at a time, so no process of the cluster holds more than
    a few shards of the input."""
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise MissingDependency("`dask` needs Dask distributed", "pip install 'termx[dask]'",
                                params=("dask",)) from None
    _check_scheduler(address)

    def run(tasks: list[ShardTask]) -> Iterator[ShardResult]:
        try:
            client = Client(address, timeout=30)
        except (OSError, ValueError) as exc:
            raise BuildFailed(f"cannot reach the Dask scheduler at {address}: {_first_line(exc)}") from None
        waiting = tasks[::-1]
        futures = []
        done = as_completed()

        def submit() -> None:
            data = client.scatter(waiting.pop(), hash=False)
            futures.append(client.submit(build_and_store, data, pure=False, retries=0))
            done.add(futures[-1])

        try:
            for _ in range(DASK_TASKS_PER_WORKER * max(1, len(client.scheduler_info()["workers"]))):
                if waiting:
                    submit()
            for f in done:
                yield f.result()
                if waiting:
                    submit()
        except TermxError:
            raise
        except Exception as exc:  # whatever a task raised, or the cluster's own failure (KilledWorker, ...)
            raise BuildFailed(f"a Dask shard task failed, so the build was abandoned: {_first_line(exc)}",
                              "nothing of it was stored") from None
        finally:
            client.cancel(futures)
            client.close()

    return run


def _check_scheduler(address: str) -> None:
    """InputError unless `address` is a Dask address with a port; BuildFailed if a TCP scheduler there does not
    accept a connection within SCHEDULER_PROBE_SECONDS."""
    from distributed.comm import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme not in ("tcp", "tls"):
            return  # inproc:// (a cluster in this process), ucx:// ...: the client reports these itself
        host, port = parse_host_port(location)
    except ValueError as exc:
        raise InputError(f"`dask` {address!r} is not a scheduler address: {_first_line(exc)}",
                         "give it as tcp://HOST:PORT (the scheduler listens on 8786 by default)",
                         params=("dask",)) from None
    try:
        socket.create_connection((host, port), timeout=SCHEDULER_PROBE_SECONDS).close()
    except OSError as exc:
        raise BuildFailed(f"cannot reach the Dask scheduler at {address}: {exc.strerror or _first_line(exc)}",
                          "start one with `dask scheduler`, or check the address") from None


def _first_line(exc: BaseException) -> str:
    """The first line of an exception's message (a worker's error travels as one line of the build's error)."""
    text = str(exc).strip()
    return text.partition("\n")[0] if text else type(exc).__name__


@dataclass
class _Target:
    """The corpus a build writes: a new name (or a replace), or an existing corpus that --append extends."""

    corpus_id: int | None
    unit: Unit
    max_k: int
    rep_cap: int
    vocab: list[str] | None
    next_shard: int
    next_doc: int


def save_shards(engine: Engine, name: str, groups: Sequence[Sequence[Document]], unit: Unit, max_k: int,
                replace: bool = False, append: bool = False, params: dict[str, Any] | None = None,
                runner: Runner | None = None, progress: Progress | None = None, timings: Timings | None = None,
                rep_cap: int = DEFAULT_REP_CAP, server: str | None = None) -> tuple[CorpusInfo, list[ShardResult]]:
    """Store `groups` (the documents of each shard, in order) as corpus `name`, built by `runner`; with `server`,
    the shards' class rows on that storage server (termx.storage.foreign).

    A new corpus (or `replace`) appears whole in one short transaction; `append` adds the groups as new shards
    of the existing corpus `name` in one transaction (its unit, max_k and rep_cap apply; document names must be
    new). Readers see the old corpus or the new one, never a mix.
    """
    progress = progress or Silent()
    timings = timings if timings is not None else Timings()
    runner = runner or pool_runner()
    url = _url(engine)
    worker_url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with transactions.connection(engine) as conn, transactions.conflicts_as_errors(f"corpus {name!r}"):
        transactions.collect_garbage(conn, url)
        target = _target(conn, name, unit, max_k, rep_cap, replace, append)
        with timings.stage("vocabulary", progress):
            vocab = _grow_vocab(target.vocab, [d.text for g in groups for d in g], target.unit)
        if append:
            groups = _new_names(conn, target, groups)
        corpus_id, tasks = _stage(conn, worker_url, groups, target, vocab, params or {}, server)
        with transactions.staged_swap(conn, url, corpus_id) as swap:
            results = []
            with timings.stage("build and store shards", progress, len(tasks)) as advance:
                for result in _guarded(runner(tasks)):
                    results.append(result)
                    advance(1)
            fault_point("staged")
            results.sort(key=lambda r: r.shard_no)
            if append:
                assert target.corpus_id is not None
                _swap_append(conn, name, target, corpus_id, results, timings)
            else:
                with conn.transaction():
                    conn.execute("UPDATE termx.corpus SET tokens = %s, classes = %s WHERE id = %s",
                                 (sum(r.tokens for r in results), sum(r.classes for r in results), corpus_id))
                swap.old = _swap(conn, name, corpus_id, [_shard_id(t) for t in tasks], replace, timings)
    return get_corpus(engine, name), results


def _shard_id(task: ShardTask) -> int:
    return task.shard_id


def _guarded(results: Iterable[ShardResult]) -> Iterator[ShardResult]:
    """Shard results, with any worker failure turned into one BuildFailed line."""
    try:
        yield from results
    except BuildFailed:
        raise
    except TermxError as exc:
        raise BuildFailed(f"a shard failed, so the build was abandoned: {exc}") from None
    except BrokenProcessPool:
        raise BuildFailed("a shard worker died (killed, or out of memory), so the build was abandoned",
                          "nothing of it was stored; try fewer --workers or a smaller --shard-size") from None
    except (psycopg.Error, OSError, MemoryError) as exc:
        raise BuildFailed(f"a shard failed, so the build was abandoned: {_first_line(exc)}") from None


def _target(conn: psycopg.Connection, name: str, unit: Unit, max_k: int, rep_cap: int, replace: bool,
            append: bool) -> _Target:
    existing = conn.execute("SELECT id, unit, max_k, rep_cap, documents FROM termx.corpus WHERE name = %s",
                            (name,)).fetchone()
    if not append:
        if existing is not None and not replace:
            raise CorpusExists(f"corpus {name!r} already exists", "use `replace=True` to rebuild it, or termx drop",
                               params=("replace",))
        return _Target(None, unit, max_k, rep_cap, None, 0, 0)
    if existing is None:
        raise corpus_not_found(conn, name, f"no corpus named {name!r} to append to",
                               "build it first without `append`", ("append",))
    corpus_id, stored_unit, stored_k, stored_cap, documents = existing
    vocab = None if stored_unit == "byte" else [r[0] for r in conn.execute(
        "SELECT token FROM termx.vocab WHERE corpus_id = %s ORDER BY token_id", (corpus_id,))]
    next_shard = conn.execute("SELECT coalesce(max(shard_no) + 1, 0) FROM termx.shard WHERE corpus_id = %s",
                              (corpus_id,)).fetchone()[0]  # type: ignore[index]
    return _Target(corpus_id, Unit(stored_unit), stored_k, stored_cap, vocab, next_shard, documents)


def _grow_vocab(old: list[str] | None, texts: list[str], unit: Unit) -> list[str] | None:
    """The global vocabulary: token ids of every shard index it. Appended tokens get ids after the old ones."""
    new = vocabulary(texts, unit)
    if new is None or old is None:
        return new
    known = set(old)
    return old + [t for t in new if t not in known]


def _new_names(conn: psycopg.Connection, target: _Target,
               groups: Sequence[Sequence[Document]]) -> list[list[Document]]:
    """The appended documents with names unique across the corpus. A given id (a JSON line's "id") that the
    corpus already holds is an error naming it; a name derived from a path or line number that collides gets
    the first free suffix `#2`, `#3`, ... (appending another folder of doc1.txt, doc2.txt, ... works)."""
    names = [d.name for g in groups for d in g]
    taken = {r[0] for r in conn.execute("SELECT name FROM termx.document WHERE corpus_id = %s AND"
                                        " (name = ANY(%s) OR name LIKE ANY(%s))",
                                        (target.corpus_id, names, [_like(n) + "#%" for n in names]))}
    out = []
    for group in groups:
        renamed = []
        for doc in group:
            if doc.name in taken:
                if doc.given:
                    raise InputError(f"duplicate document name {doc.name!r}: the corpus already holds a document "
                                     "of that name", "document names are unique across a corpus's shards")
                n = 2
                while f"{doc.name}#{n}" in taken:
                    n += 1
                doc = dataclasses.replace(doc, name=f"{doc.name}#{n}")
            taken.add(doc.name)
            renamed.append(doc)
        out.append(renamed)
    return out


def _like(text: str) -> str:
    """`text` as a LIKE pattern that matches only itself."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _stage(conn: psycopg.Connection, url: str, groups: Sequence[Sequence[Document]], target: _Target,
           vocab: list[str] | None, params: dict[str, Any], server: str | None = None
           ) -> tuple[int, list[ShardTask]]:
    """Commit a nameless corpus row owned by this session, its shard rows and empty class tables (on storage
    server `server`, as foreign tables here), and the vocabulary (all of it, or for --append only the new tokens,
    with their final ids)."""
    class_url = server_conninfo(conn, server) if server else None
    with conn.transaction():
        corpus_id = conn.execute(
            "INSERT INTO termx.corpus (name, unit, max_k, tokens, documents, classes, rep_cap, params)"
            " VALUES (NULL, %s, %s, 0, %s, 0, %s, %s) RETURNING id",
            (target.unit.value, target.max_k, sum(len(g) for g in groups), target.rep_cap, json.dumps(params)),
        ).fetchone()[0]  # type: ignore[index]
        transactions.try_own(conn, transactions.LOCK_CORPUS, corpus_id)
        tasks = []
        first_doc = target.next_doc
        for k, group in enumerate(groups):
            shard_no = target.next_shard + k
            shard_id = conn.execute(
                "INSERT INTO termx.shard (corpus_id, shard_no, tokens, documents, first_doc, classes)"
                " VALUES (%s, %s, 0, %s, %s, 0) RETURNING id", (corpus_id, shard_no, len(group), first_doc),
            ).fetchone()[0]  # type: ignore[index]
            if server and class_url:
                stage_partition(conn, server, class_url, shard_id)
            else:
                transactions.create_partition_table(conn, shard_id)
            tasks.append(ShardTask(url, corpus_id, shard_id, shard_no, first_doc, list(group), target.unit, vocab,
                                   target.max_k, target.rep_cap, class_url=class_url))
            first_doc += len(group)
        if vocab is not None:
            known = len(target.vocab or [])
            copy_binary(conn, "termx.vocab", ("corpus_id", "token_id", "token"), ("int4", "int4", "text"),
                        ((corpus_id, n, token) for n, token in enumerate(vocab[known:], known + 1)))
    return corpus_id, tasks


def _swap_append(conn: psycopg.Connection, name: str, target: _Target, staged: int, results: list[ShardResult],
                 timings: Timings) -> None:
    """The short transaction of --append: attach the new shards' class tables and move the staged shards,
    documents and tokens under the existing corpus, whose totals and build time change with them."""
    with conn.transaction():
        transactions.lock_name(conn, transactions.LOCK_CORPUS_NAME, name)
        row = conn.execute("SELECT id, documents FROM termx.corpus WHERE name = %s", (name,)).fetchone()
        if row is None or row[0] != target.corpus_id or row[1] != target.next_doc:
            raise CorpusInUse(f"corpus {name!r} was replaced, dropped or appended to while this build ran",
                              "run the command again")
        shard_ids = [r[0] for r in conn.execute("SELECT id FROM termx.shard WHERE corpus_id = %s ORDER BY shard_no",
                                                (staged,))]
        transactions.attach_partitions(conn, shard_ids)
        fault_point("swap")
        for table in ("shard", "document", "vocab"):
            conn.execute(f"UPDATE termx.{table} SET corpus_id = %s WHERE corpus_id = %s",  # noqa: S608 (fixed names)
                         (target.corpus_id, staged))
        conn.execute("UPDATE termx.corpus SET tokens = tokens + %s, documents = documents + %s,"
                     " classes = classes + %s, timings = %s,"
                     # the build time keys caches to the second: a new version must differ from the old
                     " created_at = greatest(now(), date_trunc('second', created_at) + interval '1 second')"
                     " WHERE id = %s",
                     (sum(r.tokens for r in results), sum(r.documents for r in results),
                      sum(r.classes for r in results), json.dumps({k: round(v, 4) for k, v in timings.items()}),
                      target.corpus_id))
        conn.execute("DELETE FROM termx.corpus WHERE id = %s", (staged,))
