"""The one storage layer every writer uses: raw connections, transactions, advisory locks and the shard swap.

Writers never hold a lock on the parent table termx.class for longer than a swap: a shard's classes are loaded
into a standalone table `termx.class_<shard id>` (indexed and analysed there), attached as a partition in a
short final transaction (ATTACH takes SHARE UPDATE EXCLUSIVE on the parent, which readers never wait for), and
a retired shard's partition leaves with DETACH ... CONCURRENTLY (no ACCESS EXCLUSIVE on the parent) before it
is dropped. Database conflicts surface as termx errors, never as raw driver exceptions.
"""

from __future__ import annotations

import contextlib
import functools
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed, wait
from contextlib import contextmanager
from dataclasses import dataclass

import psycopg
from psycopg import sql
from sqlalchemy.engine import Engine

from termx.errors import CorpusInUse, CorpusNotFound
from termx.faults import fault_point
from termx.storage.paths import cache_folder, sweep_cache

# Advisory lock namespaces (the first key of the two-key form); the second key is an id or hashtext(name).
LOCK_CORPUS_NAME = 0x74780001  # swaps of one corpus name serialise (held for the short swap transaction)
LOCK_CORPUS = 0x74780002       # a session that builds or purges a nameless corpus row owns it
LOCK_MIGRATE = 0x74780003      # one Alembic upgrade at a time
LOCK_CANDIDATES = 0x7465726D   # (ns, shard id): one term-candidate or reference-count build per shard at a time

SWAP_LOCK_TIMEOUT = "60s"      # a swap waits this long for another writer's attach/detach of termx.class
DETACH_TIMEOUT = "10s"         # a retired partition's detach waits this long for older readers, then is left
                               # pending for the next command to finish


@contextmanager
def connection(engine: Engine) -> Iterator[psycopg.Connection]:
    """A raw psycopg connection from the engine's pool in autocommit mode: transactions are explicit blocks
    (`with conn.transaction():`), and statements that cannot run in one (DETACH CONCURRENTLY) can run."""
    raw = engine.raw_connection()
    conn: psycopg.Connection = raw.driver_connection  # type: ignore[assignment]
    try:
        conn.autocommit = True
        yield conn
    finally:
        if conn.broken or conn.closed:
            raw.invalidate()  # a lost connection: drop it quietly instead of resetting it
        elif conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            conn.autocommit = False
        raw.close()


@contextmanager
def conflicts_as_errors(subject: str) -> Iterator[None]:
    """Turn the database errors of concurrent writers into one-line termx errors about `subject`."""
    try:
        yield
    except psycopg.errors.LockNotAvailable:
        raise CorpusInUse(f"{subject} is in use by another session",
                          "its lock was not granted in time; try again when it is idle") from None
    except psycopg.errors.ForeignKeyViolation:
        raise CorpusNotFound(f"{subject} was dropped or replaced by another session while this command ran",
                             "run the command again") from None


@contextmanager
def transaction(engine: Engine, subject: str = "the corpus") -> Iterator[psycopg.Connection]:
    """One transaction on a raw connection (COPY-capable), committed at the end, rolled back on any error."""
    with connection(engine) as conn, conflicts_as_errors(subject), conn.transaction():
        yield conn


def lock(conn: psycopg.Connection, namespace: int, key: int) -> None:
    """Take a transaction-level advisory lock, waiting for it."""
    conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (namespace, key))


def lock_name(conn: psycopg.Connection, namespace: int, name: str) -> None:
    """Take a transaction-level advisory lock on a name (hashed by the server), waiting for it."""
    conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (namespace, name))


def try_own(conn: psycopg.Connection, namespace: int, key: int) -> bool:
    """Take a session-level advisory lock if free (re-entrant in this session); release it with `disown`."""
    return bool(conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (namespace, key)).fetchone()[0])  # type: ignore[index]


def disown(conn: psycopg.Connection, namespace: int, key: int) -> None:
    """Release one hold of a session-level advisory lock taken with `try_own`."""
    conn.execute("SELECT pg_advisory_unlock(%s, %s)", (namespace, key))


def class_partition(shard_id: int, schema: str = "termx") -> sql.Identifier:
    """The class table of one shard (named from the integer id, never from user input); on a storage server its
    schema is termx.storage.foreign.REMOTE_SCHEMA."""
    return sql.Identifier(schema, f"class_{int(shard_id)}")


def create_partition_table(conn: psycopg.Connection, shard_id: int) -> None:
    """A standalone table shaped like termx.class for one shard, with the CHECK that lets ATTACH skip its scan."""
    conn.execute(sql.SQL("CREATE TABLE {} (LIKE termx.class INCLUDING ALL, CHECK (shard_id = {}))")
                 .format(class_partition(shard_id), sql.Literal(int(shard_id))))


def index_partition_table(conns: Sequence[psycopg.Connection], shard_id: int, schema: str = "termx") -> None:
    """The indexes look-ups use, built on the standalone table before it is attached: with two connections the
    (rep, sil) index on one and the (i, j) index and ANALYZE on the other, at the same time (each commits)."""
    part = class_partition(shard_id, schema)
    jobs = [[sql.SQL("CREATE INDEX ON {} (rep, sil)").format(part)],
            [sql.SQL("CREATE INDEX {} ON {} (i, j)")  # the (i, j) look-up; the name migration 0010 uses
             .format(sql.Identifier(f"class_{int(shard_id)}_i_j_idx"), part), sql.SQL("ANALYZE {}").format(part)]]
    if len(conns) == 1:
        jobs = [jobs[0] + jobs[1]]

    def build(conn: psycopg.Connection, statements: list[sql.Composed]) -> None:
        # maintenance_work_mem is the server's: 1GB per build sorted no faster on 2 cores (docs/scale-out.md) and
        # asked the server for a gigabyte per concurrent shard
        with conn.transaction():
            for statement in statements:
                conn.execute(statement)

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


def attach_partitions(conn: psycopg.Connection, shard_ids: Iterable[int]) -> None:
    """Attach staged shard tables to termx.class (inside the caller's short swap transaction)."""
    conn.execute(f"SET LOCAL lock_timeout = '{SWAP_LOCK_TIMEOUT}'")
    for shard_id in shard_ids:
        conn.execute(sql.SQL("ALTER TABLE termx.class ATTACH PARTITION {} FOR VALUES IN ({})")
                     .format(class_partition(shard_id), sql.Literal(int(shard_id))))


def drop_partition(conn: psycopg.Connection, shard_id: int) -> bool:
    """Detach (concurrently) and drop one shard's class table; False if older readers still hold it.

    `conn` must be in autocommit mode. A detach that times out stays pending; the next call finishes it.
    """
    part = class_partition(shard_id)
    row = conn.execute("SELECT c.oid, c.relkind FROM pg_class c WHERE c.oid = to_regclass(%s)",
                       (f"termx.class_{int(shard_id)}",)).fetchone()
    if row is None:
        return True
    try:
        _finish_pending_detaches(conn)
        attached = conn.execute("SELECT 1 FROM pg_inherits WHERE inhrelid = %s", (row[0],)).fetchone()
        if attached:
            conn.execute(f"SET statement_timeout = '{DETACH_TIMEOUT}'")
            conn.execute(sql.SQL("ALTER TABLE termx.class DETACH PARTITION {} CONCURRENTLY").format(part))
        conn.execute(f"SET lock_timeout = '{DETACH_TIMEOUT}'")
        drop = "DROP FOREIGN TABLE IF EXISTS {}" if row[1] == "f" else "DROP TABLE IF EXISTS {}"  # a foreign shard
        conn.execute(sql.SQL(drop).format(part))
    except (psycopg.errors.QueryCanceled, psycopg.errors.LockNotAvailable,
            psycopg.errors.ObjectNotInPrerequisiteState):
        return False
    finally:
        conn.execute("RESET statement_timeout")
        conn.execute("RESET lock_timeout")
    return True


def _finish_pending_detaches(conn: psycopg.Connection) -> None:
    """Complete a detach an earlier, interrupted purge left pending (only one may be pending at a time)."""
    conn.execute(f"SET statement_timeout = '{DETACH_TIMEOUT}'")
    for (name,) in conn.execute("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                                " WHERE i.inhparent = 'termx.class'::regclass AND i.inhdetachpending").fetchall():
        conn.execute(sql.SQL("ALTER TABLE termx.class DETACH PARTITION {} FINALIZE")
                     .format(sql.Identifier("termx", name)))


def purge(conn: psycopg.Connection, url: str, corpus_id: int) -> bool:
    """Remove a nameless corpus (retired, or staged by a build that failed or died): its cache, class tables,
    then its rows (documents, arrays, term lists, runs and models cascade). False if it must wait for later."""
    if not try_own(conn, LOCK_CORPUS, corpus_id):
        return False  # its builder is alive, or another session is purging it
    try:
        row = conn.execute("SELECT name, created_at FROM termx.corpus WHERE id = %s", (corpus_id,)).fetchone()
        if row is None or row[0] is not None:
            return True
        shutil.rmtree(cache_folder(url, corpus_id, row[1].isoformat(timespec="seconds")), ignore_errors=True)
        shards = [r[0] for r in conn.execute("SELECT id FROM termx.shard WHERE corpus_id = %s", (corpus_id,))]
        from termx.storage.foreign import drop_remote_tables  # foreign shards (docs/scale-out.md)

        if not drop_remote_tables(conn, corpus_id):
            return False  # a storage server is down: the next command's garbage collection tries again
        if not all(drop_partition(conn, s) for s in shards):
            return False
        with conn.transaction():
            conn.execute("DELETE FROM termx.corpus WHERE id = %s AND name IS NULL", (corpus_id,))
        return True
    finally:
        disown(conn, LOCK_CORPUS, corpus_id)


@dataclass
class Swap:
    """What the swap of a staged corpus retired: the old version's corpus id, purged once the swap is done."""

    old: int | None = None


@contextmanager
def staged_swap(conn: psycopg.Connection, url: str, corpus_id: int) -> Iterator[Swap]:
    """Around loading and swapping in staged corpus `corpus_id` (nameless, owned by this session through
    LOCK_CORPUS): on any failure purge what was staged and re-raise; always disown it; after the swap purge the
    version it retired (the body sets `.old`). Over a dead connection the next command's garbage collection
    purges what is left."""
    swap = Swap()
    try:
        yield swap
    except BaseException:
        with contextlib.suppress(psycopg.Error):
            purge(conn, url, corpus_id)
        raise
    finally:
        with contextlib.suppress(psycopg.Error):
            disown(conn, LOCK_CORPUS, corpus_id)
    fault_point("purge")
    if swap.old is not None:
        with contextlib.suppress(psycopg.Error):
            purge(conn, url, swap.old)


def collect_garbage(conn: psycopg.Connection, url: str) -> None:
    """Purge what crashed or interrupted writers left: unowned nameless corpora, class tables of shards that no
    longer exist, and this database's cache folders of builds that are gone. Cheap when there is nothing to do."""
    for (corpus_id,) in conn.execute("SELECT id FROM termx.corpus WHERE name IS NULL").fetchall():
        purge(conn, url, corpus_id)
    for (table,) in conn.execute(
            "SELECT c.relname FROM pg_class c WHERE c.relnamespace = 'termx'::regnamespace AND c.relkind = 'r'"
            " AND c.relname ~ '^class_[0-9]+$'"
            " AND NOT EXISTS (SELECT 1 FROM termx.shard s WHERE 'class_' || s.id = c.relname)").fetchall():
        drop_partition(conn, int(table.removeprefix("class_")))
    live = {(r[0], r[1].isoformat(timespec="seconds"))
            for r in conn.execute("SELECT id, created_at FROM termx.corpus WHERE name IS NOT NULL")}
    sweep_cache(url, live)
