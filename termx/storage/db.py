"""Engine creation: resolve a URL / TERMX_DATABASE_URL / the embedded server, and migrate the schema to head."""

from __future__ import annotations

import os
import re
import time
from functools import cache
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine, make_url

from termx.errors import DatabaseUnavailable
from termx.storage import transactions
from termx.storage.paths import resource
from termx.storage.statements import run_internal

SCHEMA = "termx"


def resolve_url(url: str | None) -> URL:
    """The SQLAlchemy URL (psycopg 3 driver) for an explicit URL, the environment, or the embedded server
    (the kept one of `termx db start`, else one started for the length of this process)."""
    if not url:
        url = os.environ.get("TERMX_DATABASE_URL")
    if not url:
        from termx.storage.embedded import embedded_url

        url = embedded_url()
    try:
        parsed = make_url(url)
    except sa.exc.ArgumentError as exc:
        raise DatabaseUnavailable(f"not a database URL: {url!r}", "e.g. postgresql://user@host:5432/db") from exc
    if parsed.get_backend_name() not in ("postgresql", "postgres"):
        raise DatabaseUnavailable(f"termx needs PostgreSQL, not {parsed.get_backend_name()}")
    return parsed.set(drivername="postgresql+psycopg")


@cache
def get_engine(url: str | None = None) -> Engine:
    """A connected, migrated engine; raises DatabaseUnavailable with a one-line reason if the server is down."""
    engine = connect_or_explain(resolve_url(url))
    upgrade(engine)
    with transactions.connection(engine) as conn:  # what crashed or interrupted writers left behind
        transactions.collect_garbage(conn, engine.url.render_as_string(hide_password=True))
    return engine


# Every termx session runs without JIT compilation: PostgreSQL compiles the expressions of each partition a plan
# holds, so once termx.class has a thousand shards' partitions `sql/most_adaptive.sql` took 21.9 s instead of 2.0 s
# (docs/scale-out.md), and termx's look-ups and scans gained nothing measurable from it.
SESSION_OPTIONS = "-c jit=off"


def connect_or_explain(target: URL) -> Engine:
    """An engine that has connected once; DatabaseUnavailable with the server's one-line reason otherwise."""
    options = " ".join(o for o in (target.query.get("options"), SESSION_OPTIONS) if isinstance(o, str))
    engine = sa.create_engine(target, pool_pre_ping=True, connect_args={"options": options})
    _revive_embedded_on_failure(engine, target)
    try:
        with engine.connect() as conn:
            run_internal(conn, "database.ping")
    except sa.exc.OperationalError as exc:
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
        where = target.render_as_string(hide_password=True)
        raise DatabaseUnavailable(f"cannot connect to {where}: {reason}",
                                  "is the server running? check `url` / TERMX_DATABASE_URL", ("url",)) from None
    return engine


def _revive_embedded_on_failure(engine: Engine, target: URL) -> None:
    """On an embedded server's socket (its URL names the passfile beside a pgdata folder): a connection that fails
    because the server stopped (a crash restart it could not finish) restarts it, if it is this $TERMX_HOME's and
    still in use, and connects again (termx.storage.embedded.revive)."""
    host, passfile = target.query.get("host"), target.query.get("passfile")
    if not (isinstance(host, str) and host.startswith("/") and isinstance(passfile, str)
            and (Path(passfile).parent / "pgdata").is_dir()):
        return

    @sa.event.listens_for(engine, "do_connect")
    def connect(dialect: Any, record: Any, cargs: Any, cparams: Any) -> Any:
        import psycopg

        from termx.storage import embedded

        try:
            return dialect.connect(*cargs, **cparams)
        except psycopg.OperationalError:
            if not embedded.revive(host):
                raise
        return dialect.connect(*cargs, **cparams)


def _alembic_config(engine: Engine):  # type: ignore[no-untyped-def]
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(resource("migrations")))
    cfg.attributes["engine"] = engine
    return cfg


ROLE_RACE_ATTEMPTS = 5
"""Tries of a migration that lost a race on a role shared by the server's databases (termx_reader): the advisory
lock is per database, so two databases migrating at once can both ALTER it; the loser's step rolls back whole."""


def upgrade(engine: Engine, revision: str = "heads") -> None:
    """Bring the schema to `revision` (all heads by default) with Alembic; a no-op when it is current.

    Runs under an advisory lock, so two first-time commands do not race the migration: the second waits, then
    finds the schema current.
    """
    if revision == "heads" and current(engine) == shipped_heads():
        return  # the common case, decided without importing Alembic (which loads every migration script)
    from alembic import command

    with engine.connect() as conn:
        run_internal(conn, "database.migration_lock", ns=transactions.LOCK_MIGRATE)
        try:
            for attempt in range(1, ROLE_RACE_ATTEMPTS + 1):
                if revision == "heads" and current(engine) == heads(engine):
                    break
                try:
                    command.upgrade(_alembic_config(engine), revision)
                    break
                except sa.exc.InternalError as exc:  # another database's migration altered a shared role
                    if attempt == ROLE_RACE_ATTEMPTS or "tuple concurrently updated" not in str(exc.orig):
                        raise
                    time.sleep(0.1 * attempt)
        finally:
            run_internal(conn, "database.migration_unlock", ns=transactions.LOCK_MIGRATE)
            conn.commit()


def downgrade(engine: Engine, revision: str = "base") -> None:
    """Take the schema down to `revision` (used by the migration tests)."""
    from alembic import command

    command.downgrade(_alembic_config(engine), revision)


def heads(engine: Engine) -> set[str]:
    """The head revisions of the migration scripts shipped with termx."""
    from alembic.script import ScriptDirectory

    return set(ScriptDirectory.from_config(_alembic_config(engine)).get_heads())


_ASSIGNMENT = re.compile(r"^(revision|down_revision)\s*(?::[^=\n]*)?=(.*)$", re.MULTILINE)
_QUOTED = re.compile(r"[\"']([^\"']+)[\"']")


@cache
def shipped_heads() -> frozenset[str]:
    """The head revisions of the shipped migration scripts, read from their `revision = ...` and
    `down_revision = ...` lines: what `heads` says (a test compares them) at the cost of reading the small files
    instead of importing Alembic and every script."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (resource("migrations") / "versions").glob("*.py"):
        lines = {m[1]: m[2] for m in _ASSIGNMENT.finditer(path.read_text(encoding="utf-8"))}
        if "revision" in lines:
            revisions.update(_QUOTED.findall(lines["revision"]))
            parents.update(_QUOTED.findall(lines.get("down_revision", "")))
    return frozenset(revisions - parents)


def current(engine: Engine) -> set[str]:
    """The revisions the database is at (empty for a fresh database): the rows of Alembic's version table."""
    with engine.connect() as conn:
        if run_internal(conn, "database.table_exists", t=f"{SCHEMA}.alembic_version").scalar() is None:
            return set()
        return set(run_internal(conn, "database.schema_versions").scalars())
