"""The one storage layer every writer uses: raw connections, transactions, advisory locks, and the staged swap's
purge and garbage collection.

Writers never hold a lock on a parent table (termx.class, termx.sketch) for longer than a swap: a shard's rows go
into a standalone table attached in a short final transaction, and a retired shard's partition leaves with DETACH
... CONCURRENTLY (termx.storage.partitions). Database conflicts surface as termx errors, never as raw driver
exceptions. The statements are in sql/internal/transactions.sql.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import psycopg
from sqlalchemy.engine import Engine

from termx.errors import CorpusInUse, CorpusNotFound, TermxError
from termx.faults import fault_point
from termx.storage import partitions
from termx.storage.partitions import PARTITIONED
from termx.storage.paths import cache_folder, sweep_cache
from termx.storage.statements import run_internal

# Advisory lock namespaces (the first key of the two-key form); the second key is an id or hashtext(name).
LOCK_CORPUS_NAME = 0x74780001  # swaps of one corpus name serialise (held for the short swap transaction)
LOCK_CORPUS = 0x74780002       # a session that builds or purges a nameless corpus row owns it
LOCK_MIGRATE = 0x74780003      # one Alembic upgrade at a time
LOCK_CANDIDATES = 0x7465726D   # (ns, shard id): one term-candidate or reference-count build per shard at a time


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
    run_internal(conn, "transactions.lock", ns=namespace, key=key)


def lock_name(conn: psycopg.Connection, namespace: int, name: str) -> None:
    """Take a transaction-level advisory lock on a name (hashed by the server), waiting for it."""
    run_internal(conn, "transactions.lock_name", ns=namespace, name=name)


def try_own(conn: psycopg.Connection, namespace: int, key: int) -> bool:
    """Take a session-level advisory lock if free (re-entrant in this session); release it with `disown`."""
    return bool(run_internal(conn, "transactions.try_own", ns=namespace, key=key).fetchone()[0])  # type: ignore[index]


def disown(conn: psycopg.Connection, namespace: int, key: int) -> None:
    """Release one hold of a session-level advisory lock taken with `try_own`."""
    run_internal(conn, "transactions.disown", ns=namespace, key=key)


def free_name(conn: psycopg.Connection, lock_ref: str, delete_ref: str, name: str, replace: bool,
              exists: TermxError) -> None:
    """Make `name` free for a new named row (a TBL model, a term list) in the caller's transaction: lock the row of
    that name (internal statement `lock_ref`, returning its id) and, if there is one, raise `exists` unless
    `replace`, else delete it (`delete_ref`, by id)."""
    old = run_internal(conn, lock_ref, name=name).fetchone()
    if old is not None:
        if not replace:
            raise exists
        run_internal(conn, delete_ref, id=old[0])


def purge(conn: psycopg.Connection, url: str, corpus_id: int) -> bool:
    """Remove a nameless corpus (retired, or staged by a build that failed or died): its cache, partitions,
    then its rows (documents, arrays, term lists, runs and models cascade). False if it must wait for later."""
    if not try_own(conn, LOCK_CORPUS, corpus_id):
        return False  # its builder is alive, or another session is purging it
    try:
        row = run_internal(conn, "transactions.nameless_corpus", id=corpus_id).fetchone()
        if row is None or row[0] is not None:
            return True
        shutil.rmtree(cache_folder(url, corpus_id, row[1].isoformat(timespec="seconds")), ignore_errors=True)
        shards = [r[0] for r in run_internal(conn, "transactions.shard_ids", id=corpus_id)]
        from termx.storage.foreign import drop_remote_tables  # foreign shards (docs/scale-out.md)

        if not drop_remote_tables(conn, corpus_id):
            return False  # a storage server is down: the next command's garbage collection tries again
        if not all(partitions.drop(conn, spec, s) for spec in PARTITIONED for s in shards):
            return False
        with conn.transaction():
            run_internal(conn, "transactions.delete_nameless_corpus", id=corpus_id)
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
    """Purge what crashed or interrupted writers left: unowned nameless corpora, partitions (class, sketch) of
    shards that no longer exist, and this database's cache folders of builds that are gone. Cheap when there is
    nothing to do."""
    for (corpus_id,) in run_internal(conn, "transactions.nameless_corpora").fetchall():
        purge(conn, url, corpus_id)
    partitions.drop_orphans(conn)
    live = {(r[0], r[1].isoformat(timespec="seconds")) for r in run_internal(conn, "transactions.live_corpora")}
    sweep_cache(url, live)
