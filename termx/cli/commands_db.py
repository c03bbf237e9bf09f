"""The `db` group: the embedded PostgreSQL as a local service (start, stop, status, url, psql) and the schema."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from termx.cli.options import DbOption, FormatOption, QuietOption, VerboseOption, emit, notice
from termx.cli.output import Format, render_record
from termx.cli.root import DATABASE_PANEL, app

db_app = typer.Typer(help="The embedded PostgreSQL server (start, stop, status, url, psql), backups (dump, "
                          "restore) and the schema (upgrade, current).", no_args_is_help=True)
app.add_typer(db_app, name="db", rich_help_panel=DATABASE_PANEL)


@db_app.command("start")
def db_start(
    tcp: Annotated[int | None, typer.Option("--tcp", min=1024, max=65535, metavar="PORT",
                                            help="Also listen on 127.0.0.1:PORT, for clients that cannot use a "
                                                 "Unix socket (JDBC: DBeaver). Other local users can then reach "
                                                 "the port, and still need the password.")] = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Start the embedded PostgreSQL under $TERMX_HOME and keep it running for later commands and clients."""
    from termx.database import Database

    status = Database.server_start(tcp)
    if status["started"]:
        notice(f"started the embedded PostgreSQL (pid {status['pid']}, data in {status['data_dir']}); "
               "`termx db url` prints its URL, `termx db stop` stops it")
    else:
        notice(f"the embedded PostgreSQL is already running (pid {status['pid']}); it stays running until "
               "`termx db stop`")


@db_app.command("stop")
def db_stop(quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Stop the embedded PostgreSQL (a fast shutdown: open sessions end, committed data is kept)."""
    from termx.database import Database

    if Database.server_stop():
        notice("stopped the embedded PostgreSQL")
    else:
        notice("the embedded PostgreSQL is not running; nothing to stop")


@db_app.command("status")
def db_status(fmt: FormatOption = Format.table, quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Whether the embedded PostgreSQL runs, its pid, since when, its socket and data directories, and the bytes of
    its data directory (db_bytes) and of the look-up cache (cache_bytes)."""
    from termx.database import Database

    emit(render_record(Database.server_status(), fmt))
    if os.environ.get("TERMX_DATABASE_URL"):
        notice("TERMX_DATABASE_URL is set, so the other termx commands use that server, not this embedded one")


@db_app.command("url")
def db_url(
    password: Annotated[bool, typer.Option("--password", help="Put the password in the URL instead of a "
                                           "passfile parameter (for clients that ignore passfile).")] = False,
    tcp: Annotated[bool, typer.Option("--tcp", help="The 127.0.0.1 address (a server started with --tcp) "
                                      "instead of the socket.")] = False,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """A libpq URL of the embedded server, for psql, psycopg, pandas, SQLAlchemy or notebooks (a stopped server's
    address, with a note on stderr)."""
    from termx.database import Database

    address = Database.server_url(password, tcp)
    if not Database.server_running():
        notice("the embedded PostgreSQL is not running: this is its address once `termx db start` has "
               "started it")
    emit(address)


@db_app.command("psql", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def db_psql(ctx: typer.Context, db: DbOption = None) -> None:
    """Open the psql shipped with the embedded server (search_path=termx); extra arguments go to psql."""
    import signal
    import subprocess

    from termx.database import Database

    command, env = Database.psql_command(db)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C belongs to psql while it runs
    try:
        code = subprocess.run([*command, *ctx.args], env=env).returncode
    finally:
        signal.signal(signal.SIGINT, previous)
    raise typer.Exit(code)


@db_app.command("upgrade")
def db_upgrade(db: DbOption = None, quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Migrate the schema to the newest revision (also done automatically on first use)."""
    from termx.database import Database

    emit(" ".join(Database(db).revision()))


@db_app.command("current")
def db_current(db: DbOption = None, quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Print the schema revision(s) the database is at."""
    from termx.database import Database

    emit(" ".join(Database.revision_of(db)) or "(empty)")


@db_app.command("dump")
def db_dump(
    file: Annotated[Path, typer.Argument(help="The backup to write (pg_dump's custom format; replaced if it "
                                         "exists, only once the dump is complete).", dir_okay=False)],
    db: DbOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Back up termx's data (the termx schema: every corpus and all built for it) to FILE, with the pg_dump shipped
    with the embedded server (it reads it and older servers; the system's may refuse it)."""
    from termx.database import Database

    size = Database.dump(file, db)
    notice(f"wrote {file} ({size / 1e6:.1f} MB); `termx db restore {file} --db URL` restores it")


@db_app.command("restore")
def db_restore(
    file: Annotated[Path, typer.Argument(help="A backup made by `termx db dump`.", dir_okay=False)],
    db: DbOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Restore a `termx db dump` backup into a database that holds no termx data yet (--db URL, e.g. another
    PostgreSQL server, or a database made with CREATE DATABASE), in one transaction: all of it or nothing."""
    from termx.database import Database

    restored = Database.restore(file, db)
    notice(f"restored {len(restored['corpora'])} corpora: {', '.join(restored['corpora']) or '(none)'}")
    if restored["refused_grants"]:
        notice(f"the server refused {restored['refused_grants']} grant(s) to termx's analyst role termx_reader (may "
               "this user create roles there?); `termx sql` and `termx terms` need it: see docs/lookup.md")
