"""Back up and restore termx's data (the `termx` schema) with the PostgreSQL client programs bundled with the
embedded server: `pg_dump --format=custom` to a file, and back into a database without termx data.

The bundled programs are the newest PostgreSQL's, so they read the embedded server and any older one (the
system's pg_dump may refuse the embedded server: "server version mismatch"). A restore goes through the bundled
psql in one transaction (all or nothing), in two passes: the schema and data without owners or grants (objects
belong to the restoring user), then the grants to termx's analyst role (made first where the server lacks it and
the restoring user may create roles; grants a server refuses are counted and reported, not fatal: `termx sql` then
needs that role set up as docs/lookup.md says). Passwords never reach a command line.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import sqlalchemy as sa
from psycopg import sql
from sqlalchemy.engine import URL, Engine

from termx.errors import DatabaseUnavailable, InputError
from termx.storage.cluster import client_program
from termx.storage.corpora import corpus_names
from termx.storage.db import SCHEMA, connect_or_explain, upgrade
from termx.storage.sqlfiles import READER_ROLE
from termx.storage.statements import composed, run_internal

_GRANTS = re.compile(r"^\d+; \d+ \d+ (DEFAULT ACL|ACL) ")  # `pg_restore --list` entries of privileges
# A newer pg_restore's script sets this in its header; servers before 17 do not know it and stop there.
_NEW_SETTING = b"SET transaction_timeout = 0;\n"
_ADDED_OPTION = re.compile(rb"^ALTER TABLE ONLY .+ ALTER COLUMN .+ SET \(pg_attver=[0-9]+\);$")


@dataclass(frozen=True)
class Restored:
    """What a restore brought: the corpora now in the target, and the grants the target refused."""

    corpora: list[str]
    refused_grants: int


def dump(target: URL, path: Path) -> int:
    """Write the termx schema of `target` (every corpus and all built for it) to `path` in pg_dump's custom format,
    readable by its owner only (0600); returns its bytes. The file appears whole or not at all (a failed dump leaves
    an earlier file as it was)."""
    connect_or_explain(target).dispose()  # a one-line error when the database cannot be reached
    out = path.absolute()
    if not out.parent.is_dir():
        raise InputError(f"no directory {out.parent}", "create it first, or give another path")
    uri, env = _libpq(target)
    partial = out.with_name(f".{out.name}.partial-{os.getpid()}")
    try:
        os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))  # the corpora's text: private
        _run([client_program("pg_dump"), "--format=custom", f"--schema={SCHEMA}", "--no-password",
              f"--file={partial}", f"--dbname={uri}"], env, "pg_dump")
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)
    return out.stat().st_size


def restore(path: Path, target: URL) -> Restored:
    """Restore a `dump` file into `target`, which must hold no termx schema; then migrate it to this termx's
    schema revision (a dump of an older termx is brought up to date)."""
    archive = path.absolute()
    if not archive.is_file():
        raise InputError(f"no file {path}", "give a file made by `termx db dump`")
    uri, env = _libpq(target)
    listing = _run([client_program("pg_restore"), "--list", str(archive)], env, "pg_restore",
                   f"{path} is not a dump made by `termx db dump` (pg_dump --format=custom)")
    engine = connect_or_explain(target)
    try:
        with engine.connect() as conn:
            if run_internal(conn, "database.schema_exists", s=SCHEMA).scalar() is not None:
                raise InputError(f"{_shown(target)} already holds termx data",
                                 "restore into an empty database (CREATE DATABASE ...; then --db URL), or drop the "
                                 f"{SCHEMA} schema there first")
            old_server = int(run_internal(conn, "database.server_version").scalar_one()) < 170000
        _restore_script(archive, ["--no-owner", "--no-privileges"], uri, env, old_server, strict=True)
        grants = [line for line in listing.splitlines() if _GRANTS.match(line)]
        refused = 0
        if grants:
            _ensure_reader_role(engine)
            with tempfile.NamedTemporaryFile("w", suffix=".list", encoding="utf-8") as chosen:
                chosen.write("\n".join(grants) + "\n")
                chosen.flush()
                errors = _restore_script(archive, ["--no-owner", f"--use-list={chosen.name}"], uri, env,
                                         old_server, strict=False)
            refused = errors.count("ERROR:")
        upgrade(engine)
        corpora = sorted(corpus_names(engine))
    finally:
        engine.dispose()
    return Restored(corpora, refused)


def _ensure_reader_role(engine: Engine) -> None:
    """Create termx's analyst role where the server lacks it (a server termx never ran on), as migrations 0019 and
    0023 make it: LOGIN NOINHERIT, a member of nothing. The dump's grants name it, and the restored schema is at
    head, so no migration would. Without CREATEROLE nothing is made (its grants are then refused and reported)."""
    with engine.connect() as conn:
        if run_internal(conn, "database.role_exists", r=READER_ROLE).first():
            return
        try:
            conn.exec_driver_sql(composed("database.create_reader", role=sql.Identifier(READER_ROLE)).as_string(None))
            conn.commit()
        except sa.exc.DBAPIError:
            conn.rollback()  # no CREATEROLE, or another session made it meanwhile


def _restore_script(archive: Path, options: list[str], uri: str, env: dict[str, str], old_server: bool,
                    strict: bool) -> str:
    """pg_restore's SQL script of `archive` run by psql against `uri`: when `strict` in one transaction that the
    first error rolls back (InputError), else statement by statement; returns psql's error output."""
    with tempfile.TemporaryFile() as restore_err, tempfile.TemporaryFile() as psql_err:
        reader = subprocess.Popen([str(client_program("pg_restore")), *options, "--file=-", str(archive)],
                                  stdout=subprocess.PIPE, stderr=restore_err, stdin=subprocess.DEVNULL, env=env,
                                  cwd="/")
        # strict: one transaction, all or nothing; otherwise each statement on its own, so one refusal is one
        writer = subprocess.Popen([str(client_program("psql")), "--no-psqlrc", "--quiet", "--no-password",
                                   *(["--single-transaction", "--set", "ON_ERROR_STOP=1"] if strict else []),
                                   f"--dbname={uri}", "--file=-"],
                                  stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=psql_err, env=env, cwd="/")
        assert reader.stdout is not None and writer.stdin is not None
        try:
            _pipe_script(reader.stdout, writer.stdin, old_server)
        except BrokenPipeError:
            pass  # psql stopped at an error: reported below
        finally:
            writer.stdin.close()
            reader.stdout.close()
        failed, psql_failed = reader.wait() != 0, writer.wait() != 0
        errors = _read(psql_err)
        if psql_failed and strict:
            raise InputError(f"restore failed, nothing was restored: {_first_error(errors)}",
                             "see `termx db restore --help`")
        if failed and strict:
            raise InputError(f"restore failed, nothing was restored: {_first_error(_read(restore_err))}")
    return errors


def _pipe_script(source: IO[bytes], sink: IO[bytes], old_server: bool) -> None:
    """Copy the script, leaving out what some servers refuse: the header's transaction_timeout (unknown before
    PostgreSQL 17) and column options named pg_attver (which some PostgreSQL 15 builds add to every column, and
    other servers reject; termx sets no column options). Both come before the data, which goes through unread."""
    for line in source:
        if (old_server and line == _NEW_SETTING) or _ADDED_OPTION.match(line):
            continue
        sink.write(line)
        if line.startswith(b"COPY "):
            shutil.copyfileobj(source, sink, 1 << 20)
            return


def _libpq(target: URL) -> tuple[str, dict[str, str]]:
    """A libpq URI of `target` without its password, and an environment carrying the password (PGPASSWORD) if the
    URL has one: nothing secret on a command line, where `ps` shows it to every local user."""
    env = dict(os.environ)
    if target.password:
        env["PGPASSWORD"] = str(target.password)
    return target.set(drivername="postgresql", password=None).render_as_string(hide_password=False), env


def _run(args: list[str | Path], env: dict[str, str], program: str, failure: str | None = None) -> str:
    """Run a bundled client program; its output, or DatabaseUnavailable/InputError with its first error line."""
    try:
        return subprocess.run([str(a) for a in args], env=env, cwd="/", stdin=subprocess.DEVNULL, check=True,
                              capture_output=True, text=True).stdout
    except subprocess.CalledProcessError as exc:
        if failure:
            raise InputError(failure) from None
        raise DatabaseUnavailable(f"{program} failed: {_first_error(exc.stderr)}") from None


def _read(file: IO[bytes]) -> str:
    file.seek(0)
    return file.read().decode("utf-8", errors="replace")


def _first_error(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return next((line for line in lines if "ERROR" in line or "error" in line), lines[0] if lines else "no message")


def _shown(target: URL) -> str:
    """The URL as a user would write it (no driver name, no password)."""
    return target.set(drivername="postgresql").render_as_string(hide_password=True)
