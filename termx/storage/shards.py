"""Build a corpus of several shards in parallel and store it beside the live corpora (docs/scale-out.md).

The coordinator stages a nameless corpus row, one row and one standalone class table per shard, and the global
vocabulary; each worker task (termx.storage.shard_task, run by a runner of termx.storage.executors: a local
process pool or a Dask cluster) builds its shard's arrays and class rows in memory and streams them into
PostgreSQL itself with binary COPY, in its own transactions, so the coordinator never holds a local shard's rows.
A task bound for a storage server (`server`) COPYs only the class rows, there, and returns the shard's index
arrays and document offsets, which the coordinator writes with the documents it holds as each result arrives,
one after another, letting each shard's arrays go once written. When every shard is stored, one short transaction
swaps the corpus in (corpora._swap), or, for --append, moves the new shards, documents and tokens under the
existing corpus. If a worker or the coordinator's write fails, or a worker dies, the staged rows are purged and the
database is as before.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import psycopg
from sqlalchemy.engine import Engine

from termx.defaults import DEFAULT_REP_CAP
from termx.errors import BuildFailed, CorpusExists, CorpusInUse, ServerUnreachable, TermxError
from termx.faults import fault_point
from termx.index.ingest import Document
from termx.index.loaded_index import CorpusInfo
from termx.index.units import Unit, vocabulary
from termx.progress import Progress, Silent, Timings
from termx.storage import partitions, transactions
from termx.storage.copyrows import copy_binary
from termx.storage.corpora import _swap, _url, copy_arrays, copy_documents, corpus_not_found, get_corpus
from termx.storage.document_names import new_names
from termx.storage.executors import Runner, first_line, pool_runner
from termx.storage.foreign import server_conninfo, stage_partition
from termx.storage.partitions import CLASSES
from termx.storage.shard_task import ShardResult, ShardTask
from termx.storage.statements import run_internal


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
    min_freq: int = 2


def save_shards(engine: Engine, name: str, groups: Sequence[Sequence[Document]], unit: Unit, max_k: int,
                replace: bool = False, append: bool = False, params: dict[str, Any] | None = None,
                runner: Runner | None = None, progress: Progress | None = None, timings: Timings | None = None,
                rep_cap: int = DEFAULT_REP_CAP, min_freq: int = 2,
                server: str | None = None) -> tuple[CorpusInfo, list[ShardResult]]:
    """Store `groups` (the documents of each shard, in order) as corpus `name`, built by `runner`; with `server`,
    the shards' class rows on that storage server (termx.storage.foreign).

    A new corpus (or `replace`) appears whole in one short transaction; `append` adds the groups as new shards
    of the existing corpus `name` in one transaction (its unit, max_k, rep_cap and store_min_freq apply; document
    names must be new). Class rows are stored for the classes with freq >= `min_freq` only. Readers see the old
    corpus or the new one, never a mix.
    """
    progress = progress or Silent()
    timings = timings if timings is not None else Timings()
    runner = runner or pool_runner()
    url = _url(engine)
    # the coordinator's URL goes to the workers of local shards only: a foreign shard's task never reaches it
    worker_url = None if server else engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with transactions.connection(engine) as conn, transactions.conflicts_as_errors(f"corpus {name!r}"):
        transactions.collect_garbage(conn, url)
        target = _target(conn, name, unit, max_k, rep_cap, replace, append, min_freq)
        with timings.stage("vocabulary", progress):
            vocab = _grow_vocab(target.vocab, [d.text for g in groups for d in g], target.unit)
        if append:
            assert target.corpus_id is not None
            groups = new_names(conn, target.corpus_id, groups)
        corpus_id, tasks = _stage(conn, worker_url, groups, target, vocab,
                                  {**(params or {}), "store_min_freq": target.min_freq}, server)
        with transactions.staged_swap(conn, url, corpus_id) as swap:
            results = []
            by_no = {t.shard_no: t for t in tasks}
            with timings.stage("build and store shards", progress, len(tasks)) as advance:
                for result in _guarded(runner(tasks), name, tasks):
                    if result.rows is not None:
                        _store_returned(conn, corpus_id, by_no[result.shard_no], result)
                    results.append(result)
                    advance(1)
            fault_point("staged")
            results.sort(key=lambda r: r.shard_no)
            if append:
                assert target.corpus_id is not None
                _swap_append(conn, name, target, corpus_id, results, timings)
            else:
                with conn.transaction():
                    run_internal(conn, "shards.corpus_totals", tokens=sum(r.tokens for r in results),
                                 classes=sum(r.classes for r in results), id=corpus_id)
                swap.old = _swap(conn, name, corpus_id, [_shard_id(t) for t in tasks], replace, timings)
    return get_corpus(engine, name), results


def _shard_id(task: ShardTask) -> int:
    return task.shard_id


def _store_returned(conn: psycopg.Connection, corpus_id: int, task: ShardTask, result: ShardResult) -> None:
    """Store what the worker of foreign shard `task` returned, in one transaction of the staging connection: the
    shard's documents (this process holds them), its index arrays and its figures; then let the arrays go (the
    runner yields a result at a time). A failure here ends the build, and staged_swap purges what was staged."""
    rows = result.rows
    assert rows is not None
    t0 = time.perf_counter()
    with conn.transaction():
        copy_documents(conn, corpus_id, task.shard_id, task.documents, rows.doc_start, rows.doc_len, _no_progress,
                       task.first_doc)
        copy_arrays(conn, task.shard_id, rows.arrays)
        fault_point("store_returned")
        run_internal(conn, "shards.shard_built", tokens=result.tokens, classes=result.classes,
                     seconds=round(result.seconds + time.perf_counter() - t0, 4), id=task.shard_id)
    result.rows = None


def _no_progress(_: int) -> None:
    """The documents of a returned shard are not counted (the build's progress counts shards)."""


def _guarded(results: Iterable[ShardResult], name: str, tasks: Sequence[ShardTask]) -> Iterator[ShardResult]:
    """Shard results, with any worker failure turned into one BuildFailed line, and a storage server that could
    not be reached or went away mid-COPY into one ServerUnreachable line naming it and the build's shards there."""
    try:
        yield from results
    except BuildFailed:
        raise
    except ServerUnreachable as exc:
        server = next((t.server for t in tasks if t.server), None)
        numbers = [t.shard_no for t in tasks if t.server == server]
        shards = f"shard{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"
        raise ServerUnreachable(f"storage server {server!r} is unreachable (corpus {name!r}, {shards})", exc.reason,
                                "the build was abandoned, nothing of it is visible; `termx servers list` shows "
                                "which servers answer") from None
    except TermxError as exc:
        raise BuildFailed(f"a shard failed, so the build was abandoned: {exc}") from None
    except BrokenProcessPool:
        raise BuildFailed("a shard worker died (killed, or out of memory), so the build was abandoned",
                          "nothing of it was stored; try fewer --workers or a smaller --shard-size") from None
    except (psycopg.Error, OSError, MemoryError) as exc:
        raise BuildFailed(f"a shard failed, so the build was abandoned: {first_line(exc)}") from None


def _target(conn: psycopg.Connection, name: str, unit: Unit, max_k: int, rep_cap: int, replace: bool,
            append: bool, min_freq: int = 2) -> _Target:
    existing = run_internal(conn, "shards.append_target", name=name).fetchone()
    if not append:
        if existing is not None and not replace:
            raise CorpusExists(f"corpus {name!r} already exists", "use `replace=True` to rebuild it, or termx drop",
                               params=("replace",))
        return _Target(None, unit, max_k, rep_cap, None, 0, 0, min_freq)
    if existing is None:
        raise corpus_not_found(conn, name, f"no corpus named {name!r} to append to",
                               "build it first without `append`", ("append",))
    corpus_id, stored_unit, stored_k, stored_cap, documents, stored_min_freq = existing
    vocab = None if stored_unit == "byte" else [r[0] for r in run_internal(conn, "corpora.vocab", c=corpus_id)]
    next_shard = run_internal(conn, "shards.next_shard", c=corpus_id).fetchone()[0]  # type: ignore[index]
    return _Target(corpus_id, Unit(stored_unit), stored_k, stored_cap, vocab, next_shard, documents,
                   stored_min_freq)


def _grow_vocab(old: list[str] | None, texts: list[str], unit: Unit) -> list[str] | None:
    """The global vocabulary: token ids of every shard index it. Appended tokens get ids after the old ones."""
    new = vocabulary(texts, unit)
    if new is None or old is None:
        return new
    known = set(old)
    return old + [t for t in new if t not in known]


def _stage(conn: psycopg.Connection, url: str | None, groups: Sequence[Sequence[Document]], target: _Target,
           vocab: list[str] | None, params: dict[str, Any], server: str | None = None
           ) -> tuple[int, list[ShardTask]]:
    """Commit a nameless corpus row owned by this session, its shard rows and empty class tables (on storage
    server `server`, as foreign tables here), and the vocabulary (all of it, or for --append only the new tokens,
    with their final ids). The tasks carry `url` (the coordinator, None with `server`) or the server's conninfo."""
    class_url = server_conninfo(conn, server) if server else None
    with conn.transaction():
        corpus_id = run_internal(
            conn, "shards.insert_corpus", unit=target.unit.value, max_k=target.max_k,
            documents=sum(len(g) for g in groups), rep_cap=target.rep_cap, params=json.dumps(params),
        ).fetchone()[0]  # type: ignore[index]
        transactions.try_own(conn, transactions.LOCK_CORPUS, corpus_id)
        tasks = []
        first_doc = target.next_doc
        for k, group in enumerate(groups):
            shard_no = target.next_shard + k
            shard_id = run_internal(conn, "shards.insert_shard", corpus_id=corpus_id, shard_no=shard_no,
                                    documents=len(group), first_doc=first_doc).fetchone()[0]  # type: ignore[index]
            if server and class_url:
                stage_partition(conn, server, class_url, shard_id)
            else:
                partitions.create(conn, CLASSES, shard_id)
            tasks.append(ShardTask(url, corpus_id, shard_id, shard_no, first_doc, list(group), target.unit, vocab,
                                   target.max_k, target.rep_cap, target.min_freq,
                                   class_url=class_url, server=server))
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
        row = run_internal(conn, "shards.append_target", name=name).fetchone()
        if row is None or row[0] != target.corpus_id or row[4] != target.next_doc:
            raise CorpusInUse(f"corpus {name!r} was replaced, dropped or appended to while this build ran",
                              "run the command again")
        shard_ids = [r[0] for r in run_internal(conn, "transactions.shard_ids", id=staged)]
        partitions.attach(conn, CLASSES, shard_ids)
        fault_point("swap")
        run_internal(conn, "shards.move_shards", target=target.corpus_id, staged=staged)
        run_internal(conn, "shards.move_documents", target=target.corpus_id, staged=staged)
        run_internal(conn, "shards.move_vocab", target=target.corpus_id, staged=staged)
        run_internal(conn, "shards.append_totals", tokens=sum(r.tokens for r in results),
                     documents=sum(r.documents for r in results), classes=sum(r.classes for r in results),
                     timings=json.dumps({k: round(v, 4) for k, v in timings.items()}), target=target.corpus_id)
        run_internal(conn, "shards.delete_staged", staged=staged)
