"""Foreign shards: a shard whose class rows live on a registered storage server (termx.storage.servers), attached
on the coordinator as a postgres_fdw foreign partition of termx.class (docs/scale-out.md, "When one PostgreSQL
server is not enough"). The shard's row, documents, vocabulary and index arrays stay on the coordinator, so the
library's look-ups (which load arrays) are unchanged and the SQL functions read the partition through postgres_fdw.

The build stages the storage server's table (termx_shards.class_<id>, over a direct connection) and the
coordinator's foreign table; the worker COPYs the class rows and builds the indexes on the storage server; the
swap attaches the foreign table like a local one. A purge drops the storage server's tables first: while a server
is unreachable the nameless corpus stays, and the next command's garbage collection tries again.

While a storage server is down, what reads its partitions through postgres_fdw (the SQL look-ups: `termx sql`,
termx.stats, ...) fails; `naming_unreachable` turns that failure into one ServerUnreachable line naming the server
and the corpus's shards on it. Look-ups on loaded shards read only the coordinator's arrays and keep answering.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import psycopg
import sqlalchemy as sa
from psycopg.conninfo import make_conninfo
from sqlalchemy.engine import Engine

from termx.errors import ServerError, ServerUnreachable, lost_storage_server, unreachable_server
from termx.storage.statements import run_internal

REMOTE_SCHEMA = "termx_shards"
NAME_RE = re.compile(r"[a-z][a-z0-9_-]{0,39}")
"""A server name: a lower-case letter, then up to 39 letters, digits, `_` or `-` (also termx.server's CHECK)."""


def check_name(name: str) -> str:
    """`name` if it is a valid server name; ServerError otherwise."""
    if not NAME_RE.fullmatch(name):
        raise ServerError(f"not a server name: {name!r}",
                          "a lower-case letter, then up to 39 lower-case letters, digits, _ or -")
    return name


def server_conninfo(conn: psycopg.Connection | sa.Connection, server: str) -> str:
    """A libpq conninfo of storage server `server` with the current user's credentials, read from its postgres_fdw
    server and the user mapping (which PostgreSQL shows to the mapped user): what workers connect with."""
    row = run_internal(conn, "servers.server_address", name=check_name(server)).fetchone()
    if row is None:
        raise ServerError(f"no server named {server!r}", "termx servers list shows them; add it first")
    server_options, mapping = row
    if mapping is None:
        raise ServerError(f"you have no user mapping for server {server!r}",
                          "the user who ran `termx servers add` can build there")
    options = dict(o.split("=", 1) for o in [*server_options, *mapping])
    return make_conninfo(host=options["host"], port=options["port"], dbname=options["dbname"],
                         user=options["user"], password=options.get("password"),
                         connect_timeout=options.get("connect_timeout", "10"))


def stage_partition(conn: psycopg.Connection, server: str, conninfo: str, shard_id: int) -> None:
    """Create shard `shard_id`'s class table on the storage server and, in the caller's transaction on the
    coordinator, its foreign table termx.class_<id> and the shard's record of where it lives."""
    try:
        with psycopg.connect(conninfo, autocommit=True) as remote:
            run_internal(remote, "servers.shard_table_create", shard=shard_id)
    except psycopg.OperationalError as exc:
        raise ServerError(f"cannot reach server {server!r}: {_first_line(exc)}", "is it running?") from None
    run_internal(conn, "servers.server_class_table", name=server, shard=shard_id)
    run_internal(conn, "servers.set_shard_server", name=server, shard=shard_id)


def drop_remote_tables(conn: psycopg.Connection, corpus_id: int) -> bool:
    """Drop the storage servers' tables of corpus `corpus_id`'s foreign shards; False when a server cannot be
    reached (the caller leaves the corpus for a later purge)."""
    shards = run_internal(conn, "servers.foreign_shards", corpus=corpus_id).fetchall()
    addresses: dict[str, str] = {}
    try:
        for shard_id, server in shards:
            if server not in addresses:
                addresses[server] = server_conninfo(conn, server)
            with psycopg.connect(addresses[server], autocommit=True) as remote:
                run_internal(remote, "servers.shard_table_drop", shard=shard_id)
    except (psycopg.OperationalError, ServerError):
        return False
    return True


@contextlib.contextmanager
def naming_unreachable(engine: Engine, *corpora: str | None) -> Iterator[None]:
    """Raise postgres_fdw's failure to reach a storage server inside the block as ServerUnreachable: "storage
    server 'fa' is unreachable (corpus 'web', shards 0, 2): <libpq's reason>", naming the shards of `corpora` there
    (of every corpus there when none of them has shards on it). A server that went away in the middle of a
    statement (postgres_fdw's error does not say which) is found by probing the servers of `corpora` (or every
    registered one); if they all answer again, the line says one of them went away. Other errors pass unchanged."""
    try:
        yield
    except (psycopg.Error, sa.exc.DBAPIError) as exc:
        found = unreachable_server(exc)
        if found is None:
            lost = lost_storage_server(exc)
            if lost is None:
                raise
            down = _down_server(engine, corpora)
            if down is None:
                raise ServerUnreachable("a storage server went away in the middle of the statement", lost,
                                        "they all answer now: run it again") from None
            found = down, lost
        server, reason = found
        raise ServerUnreachable(f"storage server {server!r} is unreachable{_held(engine, server, corpora)}",
                                reason) from None


def _down_server(engine: Engine, corpora: tuple[str | None, ...]) -> str | None:
    """The name of the first registered server holding shards of `corpora` (or of any server, when none of
    them has shards on one) that postgres_fdw cannot reach now; None when every one answers."""
    try:
        with engine.connect() as conn:
            rows = run_internal(conn, "servers.servers", n=None).all()
            names = [r[0] for r in rows if set(r[4]) & set(corpora)] or [r[0] for r in rows]
            for name in names:
                _, error = run_internal(conn, "servers.server_probe", name=name).one()
                if error is not None:
                    return str(name)
    except sa.exc.DBAPIError:
        return None
    return None


def _held(engine: Engine, server: str, corpora: tuple[str | None, ...]) -> str:
    """" (corpus 'web', shards 0, 2; ...)": the shards of `corpora` on `server` (or of every corpus there); "" when
    none, or when the coordinator cannot tell."""
    try:
        with engine.connect() as conn:
            rows = run_internal(conn, "servers.shard_numbers_on_server", name=server).all()
    except sa.exc.DBAPIError:
        return ""
    rows = [r for r in rows if r[0] in corpora] or rows
    shards: dict[str, list[int]] = {}
    for corpus, shard_no in rows:
        shards.setdefault(corpus, []).append(shard_no)
    parts = [f"corpus {c!r}, shard{'s' if len(ns) > 1 else ''} {', '.join(map(str, ns))}" for c, ns in shards.items()]
    return f" ({'; '.join(parts)})" if parts else ""


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
