"""The one life cycle of a table partitioned by shard (termx.class, termx.sketch): create, COPY, index, attach,
detach concurrently, drop (docs/scale-out.md).

A shard's rows are loaded into a standalone table `termx.<parent>_<shard id>` (with the CHECK on the key that lets
ATTACH skip its scan), indexed and analysed there, and attached in a short transaction (ATTACH takes SHARE UPDATE
EXCLUSIVE on the parent, which readers never wait for). A partition leaves with DETACH ... CONCURRENTLY (no ACCESS
EXCLUSIVE on the parent) before it is dropped; a detach that waits longer than DETACH_TIMEOUT for older readers
stays pending, and the next drop on that parent finishes it. Table names are psycopg.sql.Identifier built from the
integer shard id and the known parent names; the statements are in sql/internal/partitions.sql. A foreign
shard's class table is created, loaded and indexed the same way on its storage server, in schema `termx_shards`
(termx.storage.foreign), and attached here as a postgres_fdw foreign table.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed, wait
from dataclasses import dataclass

import psycopg
from psycopg import sql

from termx.storage.statements import composed, run_composed, run_internal

SWAP_LOCK_TIMEOUT = "60s"      # an attach waits this long for another writer's attach/detach of the parent
DETACH_TIMEOUT = "10s"         # a partition's detach waits this long for older readers, then is left
                               # pending for the next command to finish


@dataclass(frozen=True)
class Partitioned:
    """A table partitioned by shard id: its name in schema termx and the names (in partitions.sql) of the
    statements that create, load and index one partition. `indexes` are groups of statements, each group run in
    one transaction on its own connection when there are several."""

    parent: str
    create: str
    copy: str
    indexes: tuple[tuple[str, ...], ...]


CLASSES = Partitioned("class", "create_class", "copy_class", (("index_class_rep",), ("index_class_ij", "analyze")))
SKETCHES = Partitioned("sketch", "create_sketch", "copy_sketch", (("index_memory", "index_sketch"),))
PARTITIONED = (CLASSES, SKETCHES)


def table(spec: Partitioned, key: int, schema: str = "termx") -> sql.Identifier:
    """The partition of shard `key` (named from the integer id, never from user input); on a storage server its
    schema is termx.storage.foreign.REMOTE_SCHEMA."""
    return sql.Identifier(schema, f"{spec.parent}_{int(key)}")


def _parts(spec: Partitioned, key: int, schema: str = "termx") -> dict[str, sql.Composable]:
    """The `{field}` slots of the partition statements for shard `key` (its table in `schema`)."""
    return {"part": table(spec, key, schema), "parent": sql.Identifier("termx", spec.parent),
            "key": sql.Literal(int(key)), "index": sql.Identifier(f"{spec.parent}_{int(key)}_i_j_idx")}


def create(conn: psycopg.Connection, spec: Partitioned, key: int) -> None:
    """The standalone table of shard `key`, shaped like the parent, with the CHECK on the key."""
    run_composed(conn, f"partitions.{spec.create}", **_parts(spec, key))


@contextlib.contextmanager
def copy(conn: psycopg.Connection, spec: Partitioned, key: int, schema: str = "termx") -> Iterator[psycopg.Copy]:
    """A binary COPY into the standalone table of shard `key` in `schema` (the caller writes header, rows and
    trailer)."""
    with conn.cursor().copy(composed(f"partitions.{spec.copy}", **_parts(spec, key, schema))) as cp:
        yield cp


def index(conns: Sequence[psycopg.Connection], spec: Partitioned, key: int, schema: str = "termx") -> None:
    """Build the indexes look-ups use on the standalone table (in `schema`) before it is attached: with several
    connections each group of `spec.indexes` on its own, at the same time (each commits; inside a caller's
    transaction a savepoint)."""
    parts = _parts(spec, key, schema)
    jobs = [list(group) for group in spec.indexes]
    if len(conns) == 1:
        jobs = [[s for group in jobs for s in group]]

    def build(conn: psycopg.Connection, statements: list[str]) -> None:
        # maintenance_work_mem is the server's for class tables: 1GB per build sorted no faster on 2 cores
        # (docs/scale-out.md) and asked the server for a gigabyte per concurrent shard
        with conn.transaction():
            for statement in statements:
                run_composed(conn, f"partitions.{statement}", **parts)

    in_parallel(conns, [functools.partial(build, statements=js) for js in jobs])


def in_parallel(conns: Sequence[psycopg.Connection], jobs: Sequence[Callable[[psycopg.Connection], None]]) -> None:
    """Run job k on connection k, each in its own thread (one job runs here); the first failure cancels the
    others' statements, and is raised once every job has stopped, so no connection is busy afterwards."""
    if len(jobs) == 1:
        jobs[0](conns[0])
        return
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = [pool.submit(job, conn) for conn, job in zip(conns, jobs, strict=False)]
        try:
            for f in as_completed(futures):
                f.result()
        except BaseException:
            for conn in conns:
                with contextlib.suppress(psycopg.Error):
                    conn.cancel()
            wait(futures)
            raise


def attach(conn: psycopg.Connection, spec: Partitioned, keys: Iterable[int]) -> None:
    """Attach the standalone tables of shards `keys` to the parent (inside the caller's short transaction)."""
    run_internal(conn, "partitions.swap_lock_timeout", t=SWAP_LOCK_TIMEOUT)
    for key in keys:
        run_composed(conn, "partitions.attach", **_parts(spec, key))


def drop(conn: psycopg.Connection, spec: Partitioned, key: int) -> bool:
    """Detach (concurrently) and drop the table of shard `key`; False if older readers still hold it.

    `conn` must be in autocommit mode. A detach that times out stays pending; the next call finishes it. A
    foreign shard's foreign table is dropped here; its storage server's table is termx.storage.foreign's.
    """
    parts = _parts(spec, key)
    row = run_internal(conn, "partitions.table_kind", name=f"termx.{spec.parent}_{int(key)}").fetchone()
    if row is None:
        return True
    try:
        _finish_pending_detaches(conn, spec)
        if run_internal(conn, "partitions.attached", oid=row[0]).fetchone():
            run_internal(conn, "partitions.statement_timeout", t=DETACH_TIMEOUT)
            run_composed(conn, "partitions.detach", **parts)
        run_internal(conn, "partitions.lock_timeout", t=DETACH_TIMEOUT)
        run_composed(conn, "partitions.drop_foreign" if row[1] == "f" else "partitions.drop", **parts)
    except (psycopg.errors.QueryCanceled, psycopg.errors.LockNotAvailable,
            psycopg.errors.ObjectNotInPrerequisiteState):
        return False
    finally:
        run_internal(conn, "partitions.reset_timeouts")
    return True


def _finish_pending_detaches(conn: psycopg.Connection, spec: Partitioned) -> None:
    """Complete a detach an earlier, interrupted drop left pending (only one may be pending per parent)."""
    run_internal(conn, "partitions.statement_timeout", t=DETACH_TIMEOUT)
    prefix = f"{spec.parent}_"
    for (name,) in run_internal(conn, "partitions.pending_detaches", parent=f"termx.{spec.parent}").fetchall():
        if name.startswith(prefix) and name.removeprefix(prefix).isdigit():
            run_composed(conn, "partitions.finalize", **_parts(spec, int(name.removeprefix(prefix))))


def drop_orphans(conn: psycopg.Connection) -> None:
    """Drop the partitions (attached or not) of every partitioned table whose shard no longer exists: what a
    crashed build staged, or what a dropped corpus's cascade emptied (`conn` in autocommit mode)."""
    for spec in PARTITIONED:
        for (key,) in run_internal(conn, "partitions.orphans", parent=spec.parent).fetchall():
            drop(conn, spec, key)

