"""Storage servers of a coordinator database: register, list and remove the PostgreSQL servers that hold shards
of its corpora through postgres_fdw (docs/scale-out.md, "When one PostgreSQL server is not enough").

A server NAME is a row of termx.server (its URL without the password) and, on the coordinator, the postgres_fdw
server `termx_NAME` with the current user's mapping, which alone holds the user and password
(sql/functions/servers.sql). Names are checked against termx.storage.foreign.NAME_RE here and again in SQL;
every statement is parameterised (sql/internal/servers.sql).
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from typing import Any

import psycopg
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine, make_url

from termx.errors import CorpusNotFound, DatabaseUnavailable, ServerError, libpq_reason
from termx.storage.foreign import check_name, server_conninfo
from termx.storage.statements import run_internal

log = logging.getLogger("termx")
_URL_OPTIONS = {"host", "port"}  # the libpq parameters a server URL may carry in its query string


@dataclass(frozen=True)
class Address:
    """Where a storage server is, parsed from its URL; `shown` is the URL without its password."""

    host: str
    port: str
    dbname: str
    user: str
    password: str | None
    shown: str


def parse_address(url: str) -> Address:
    """The host, port, database, user and password of a postgresql:// URL; ServerError if one is missing or the
    URL carries options a postgres_fdw server cannot take. Never shows the password in a message."""
    try:
        parsed = make_url(url)
    except sa.exc.ArgumentError:
        raise ServerError("not a database URL", "e.g. postgresql://termx@host-a:5432/termx") from None
    if parsed.get_backend_name() not in ("postgresql", "postgres"):
        raise ServerError(f"a storage server must be PostgreSQL, not {parsed.get_backend_name()}")
    extra = sorted(set(parsed.query) - _URL_OPTIONS)
    if extra:
        raise ServerError(f"the URL's option {extra[0]!r} cannot be passed on to postgres_fdw",
                          "give host, port, user, password and database only")
    host = parsed.host or _option(parsed.query.get("host"))
    if not host or not parsed.database or not parsed.username:
        raise ServerError("the URL must name the host, the user and the database",
                          "e.g. postgresql://termx@host-a:5432/termx")
    port = str(parsed.port or _option(parsed.query.get("port")) or 5432)
    shown = URL.create("postgresql", parsed.username, None, parsed.host, parsed.port, parsed.database,
                       parsed.query).render_as_string(hide_password=False)
    return Address(host, port, parsed.database, parsed.username, parsed.password, shown)


def _option(value: str | tuple[str, ...] | None) -> str | None:
    return value[-1] if isinstance(value, tuple) else value


def require_fdw(engine: Engine) -> None:
    """ServerError when the coordinator's PostgreSQL has no postgres_fdw (the embedded server is built without it)."""
    with engine.connect() as conn:
        if not run_internal(conn, "servers.fdw_available").scalar_one():
            raise ServerError("the coordinator's PostgreSQL has no postgres_fdw, so it cannot reach storage "
                              "servers; the embedded server is built without it",
                              "use a packaged PostgreSQL as the coordinator: `url=postgresql://...`", ("url",))


def add_server(engine: Engine, name: str, url: str) -> dict[str, Any]:
    """Register storage server `name` at `url`: reach it and upgrade its termx schema, then create its postgres_fdw
    server and the current user's mapping on the coordinator and read it through them; its `list_servers` row."""
    check_name(name)
    address = parse_address(url)
    require_fdw(engine)
    with engine.connect() as conn:
        if name in run_internal(conn, "servers.server_names").scalars().all():
            raise ServerError(f"a server named {name!r} is registered", "termx servers list shows it")
    reader = _upgrade_remote(name, url)
    with engine.begin() as conn:
        run_internal(conn, "servers.create_fdw")
        run_internal(conn, "servers.insert_server", name=name, url=address.shown)
        run_internal(conn, "servers.server_create", name=name, host=address.host, port=address.port,
                     dbname=address.dbname, remote_user=address.user, password=address.password)
        if reader is not None:  # termx_reader (`termx sql`) reads the shards there as the read-only role
            run_internal(conn, "servers.reader_settings", role=reader[0], password=reader[1])
            run_internal(conn, "servers.reader_server", name=name)
            run_internal(conn, "servers.reader_mapping_create")
            for other in run_internal(conn, "servers.same_database_servers", name=name).scalars().all():
                run_internal(conn, "servers.reader_server", name=other.removeprefix("termx_"))
                run_internal(conn, "servers.reader_mapping_password")  # the shared role's new password
        _, error = run_internal(conn, "servers.server_probe", name=name).one()
        if error is not None:
            error = " ".join(error.split())
            raise ServerError(f"the coordinator cannot reach server {name!r} through postgres_fdw: {error}",
                              "termx itself reached it: check the address from the coordinator's host")
    return list_servers(engine, name)[0]


def _upgrade_remote(name: str, url: str) -> tuple[str, str] | None:
    """Connect to the storage server from this process, bring its termx schema to head and make (or give a new
    password to) its read-only role for `termx sql`: that role's name and password, or None (with a notice) when
    the storage server's user may not create roles."""
    from termx.storage.db import connect_or_explain, resolve_url, upgrade

    try:
        remote = connect_or_explain(resolve_url(url))
    except DatabaseUnavailable as exc:
        raise ServerError(f"cannot reach server {name!r}: {exc.message}", "is it running? check its URL") from None
    try:
        upgrade(remote)
        return _remote_reader(remote, name)
    finally:
        remote.dispose()


def _remote_reader(remote: Engine, name: str) -> tuple[str, str] | None:
    """The storage server's login role that may read the shards' tables (termx_shards) and nothing else of termx's,
    with a new random password; None, and a notice, when its user has no CREATEROLE."""
    password = secrets.token_urlsafe(24)
    try:
        with remote.begin() as conn:
            role = str(run_internal(conn, "servers.remote_reader_role").scalar_one())
            run_internal(conn, "servers.reader_settings", role=role, password=password)
            run_internal(conn, "servers.remote_reader_create")
    except sa.exc.ProgrammingError as exc:
        if not isinstance(exc.orig, psycopg.errors.InsufficientPrivilege):
            raise
        log.warning("server %s: its user may not create roles, so `termx sql` (termx_reader) cannot read the "
                    "shards stored there (docs/scale-out.md)", name)
        return None
    return role, password


def list_servers(engine: Engine, name: str | None = None) -> list[dict[str, Any]]:
    """Every registered server (or `name`: ServerError if unknown): name, url (no password), shards (of named
    corpora), corpora, bytes (of termx's tables on it, read through postgres_fdw), reachable, added_at."""
    rows: list[dict[str, Any]] = []
    with engine.connect() as conn:
        for server, shown, added_at, shards, corpora in run_internal(conn, "servers.servers", n=name).all():
            size, error = run_internal(conn, "servers.server_probe", name=server).one()
            error = " ".join(error.split()) if error else None  # libpq's message spans lines
            rows.append({"name": server, "url": shown, "shards": shards, "corpora": list(corpora),
                         "bytes": size, "reachable": error is None, "error": error, "added_at": added_at})
    if name is not None and not rows:
        raise _unknown(engine, name)
    return rows


def remove_server(engine: Engine, name: str, force: bool = False) -> dict[str, Any]:
    """Unregister `name` and drop its postgres_fdw server and mappings; refused (ServerError naming the corpora)
    while a corpus has shards there, unless `force` (a server gone for good: `forget_server`). Its data on the
    storage server is left as it is; the read-only role `add` made there for `termx sql` is dropped unless another
    registered server names the same database or a shard's table is left there. The removed row."""
    check_name(name)
    if force:
        return forget_server(engine, name)
    with engine.begin() as conn:
        if run_internal(conn, "servers.lock_server", name=name).first() is None:
            raise _unknown(engine, name)
        held = run_internal(conn, "servers.shards_on_server", name=name).all()
        if held:
            what = ", ".join(f"{n} of {c!r}" if c else f"{n} of a corpus being built or dropped" for c, n in held)
            raise ServerError(f"server {name!r} holds shards ({what})", "drop those corpora first: termx drop NAME")
        shared = run_internal(conn, "servers.same_database_servers", name=name).first() is not None
        try:  # through the user mapping, which goes with the server
            address = None if shared else server_conninfo(conn, name)
        except ServerError:
            address = None
        run_internal(conn, "servers.server_drop", name=name)
        run_internal(conn, "servers.delete_server", name=name)
    if address is not None:
        _drop_remote_reader(name, address)
    return {"name": name, "removed": True}


def _drop_remote_reader(name: str, conninfo: str) -> None:
    """Drop the storage server's read-only role for `termx sql` (made by `add`) if termx made it and no shard's
    table is left there (sql/internal/servers.sql remote_reader_drop); when the server cannot be reached or
    refuses, a notice says the role stays."""
    try:
        with psycopg.connect(conninfo, autocommit=True) as remote, remote.transaction():
            run_internal(remote, "servers.remote_reader_drop")
    except psycopg.Error as exc:
        log.warning("server %s: its read-only role for `termx sql` stays on the storage server: %s", name,
                    libpq_reason(str(exc)))


def corpora_on_server(engine: Engine, name: str) -> list[str]:
    """The named corpora with shards on server `name` (ServerError if it is not registered)."""
    check_name(name)
    with engine.connect() as conn:
        if name not in run_internal(conn, "servers.server_names").scalars().all():
            raise _unknown(engine, name)
        return list(run_internal(conn, "servers.corpora_on_server", name=name).scalars().all())


def forget_server(engine: Engine, name: str) -> dict[str, Any]:
    """Remove server `name` gone for good: drop every corpus with shards there (their other shards everywhere
    else too), forget the shards' tables there (they cannot be dropped), drop its postgres_fdw server with the
    foreign tables, and purge what the drops left. The removed row, with the corpora dropped."""
    from termx.storage import transactions
    from termx.storage.corpora import drop_corpus

    dropped = corpora_on_server(engine, name)
    for corpus in dropped:  # the name goes at once; the purge waits for the server, which is forgotten below
        drop_corpus(engine, corpus)
    with engine.begin() as conn:
        if run_internal(conn, "servers.lock_server", name=name).first() is None:
            raise _unknown(engine, name)
        run_internal(conn, "servers.forget_shards", name=name)
        run_internal(conn, "servers.server_drop", name=name)
        run_internal(conn, "servers.delete_server", name=name)
    with transactions.connection(engine) as raw:
        transactions.collect_garbage(raw, engine.url.render_as_string(hide_password=True))
    return {"name": name, "removed": True, "dropped": dropped}


def _unknown(engine: Engine, name: str) -> ServerError:
    """ServerError for an unregistered name, with the nearest registered one as a hint."""
    with engine.connect() as conn:
        known = run_internal(conn, "servers.server_names").scalars().all()
    near = CorpusNotFound.named(name, known, hint="termx servers list shows them")
    return ServerError(f"no server named {name!r}", near.hint)
