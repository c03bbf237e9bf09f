"""The daemon's process (`python -P -m termx.cli.warm`, started by `termx daemon start`): the CLI's app, served by
termx.daemon.server, which itself knows nothing of the CLI."""

from __future__ import annotations

from termx.cli.root import app
from termx.daemon import server

PRELOAD = ("termx.lookup", "termx.storage.db", "termx.storage.corpora", "termx.storage.index_loader", "termx.terms",
           "termx.wordbreak", "sqlalchemy.dialects.postgresql.psycopg", "typer._adapters", "pydantic.plugin._loader")
"""Modules imported before the first fork: what look-ups, terms and word breaking load (numba included), and what
SQLAlchemy and Typer import on first use (Typer's parameter coercion goes through pydantic; older Typers lack it,
so a module that is not installed is skipped)."""


def run(prog: str, argv: list[str]) -> None:
    """`PROG ARGV` run by the CLI's app, as `termx.cli.main` would (its exit status in SystemExit)."""
    app(args=argv, prog_name=prog)


if __name__ == "__main__":
    server.serve(run, PRELOAD)
