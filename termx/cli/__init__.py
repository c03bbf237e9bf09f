"""The termx command line: parses arguments, calls the library, formats results. No logic of its own."""

from __future__ import annotations

import logging
import os
import re
import sys
from typing import Any

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from termx.cli.output import escape_controls
from termx.errors import TermxError

# `termx --help` lists commands in these groups, in this order (each command names its group with
# rich_help_panel=...); a command without one is listed first, under Typer's default "Commands".
INDEX_PANEL = "Index & corpora"
LOOKUP_PANEL = "Look-ups"
TERMS_PANEL = "Terms"
STUDIES_PANEL = "Adaptation & co-occurrence"
WORDBREAK_PANEL = "Word breaking"
EVALUATION_PANEL = "Evaluation"
TBL_PANEL = "TBL"
DATABASE_PANEL = "Database"
PANELS = (INDEX_PANEL, LOOKUP_PANEL, TERMS_PANEL, STUDIES_PANEL, WORDBREAK_PANEL, EVALUATION_PANEL, TBL_PANEL,
          DATABASE_PANEL)


class _Group(TyperGroup):
    """Turns library errors into `Error: <what> (<hint>)` and exit 1; `--debug` shows the traceback."""

    def list_commands(self, ctx: Any) -> list[str]:
        """Commands grouped by help panel in PANELS order (registration order within a panel)."""
        def rank(name: str) -> int:
            panel = getattr(self.commands[name], "rich_help_panel", None)
            return PANELS.index(panel) + 1 if panel in PANELS else 0

        return sorted(super().list_commands(ctx), key=rank)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, TyperException):  # help, usage errors (exit 2), explicit exits
            raise
        except BrokenPipeError:  # `termx ... | head`: stop quietly like other Unix tools
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(141) from None
        except KeyboardInterrupt:
            typer.echo("Error: interrupted (nothing was written)", err=True)
            raise typer.Exit(130) from None
        except Exception as exc:
            if "--debug" in sys.argv:
                raise
            typer.echo(f"Error: {escape_controls(_one_line(exc))}", err=True)
            raise typer.Exit(1) from None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [""])[0][:300]


def _database_error(exc: Exception) -> str | None:
    """A one-line report of a database error that escaped the library (the server went away mid-command, or
    cannot be reached at all); None when `exc` is not one. psycopg is looked up, not imported: it is loaded
    whenever one of its errors exists."""
    psycopg = sys.modules.get("psycopg")
    if psycopg is None:
        return None
    orig = getattr(exc, "orig", None) if isinstance(getattr(exc, "orig", None), BaseException) else exc
    if not isinstance(orig, psycopg.Error):
        return None
    diag = getattr(orig, "diag", None)
    reason = getattr(diag, "message_primary", None) or _first_line(orig) or type(orig).__name__
    state = getattr(orig, "sqlstate", None) or ""
    if isinstance(orig, psycopg.OperationalError) and (not state or state.startswith(("08", "57P"))):
        return (f"lost or could not open the database connection: {reason} "
                "(is the server running? check --db / TERMX_DATABASE_URL)")
    return f"database error: {reason} (rerun with --debug for the traceback)"


def _one_line(exc: Exception) -> str:
    """A library error with its parameters as flags; a database error as what happened; anything else as its
    type and first line, with a pointer to --debug."""
    if isinstance(exc, TermxError):
        return _as_flags(str(exc), exc.params)
    database = _database_error(exc)
    if database is not None:
        return database
    return f"unexpected {type(exc).__name__}: {_first_line(exc)} (rerun with --debug for the traceback)"


_FLAGS = {"on_invalid": "--invalid", "mode": "--input", "params": "--param", "url": "--db"}
"""Library parameters whose flag is not their name with dashes."""


def _as_flags(text: str, params: tuple[str, ...]) -> str:
    """Render the library's `name` / `name=value` mentions of the parameters `params` as the flags that set them:
    `max_len` → --max-len, `rank=poisson` → --rank poisson, `replace=True` → --replace, `tbl.min_score` →
    --tbl-min-score."""
    if not params:
        return text

    def flag(m: re.Match[str]) -> str:
        name, value = m.group(1), m.group(2)
        if name not in params:
            return m.group(0)
        option = _FLAGS.get(name) or "--" + name.replace("_", "-").replace(".", "-")
        return option if value is None or value == "True" else f"{option} {value}"

    return re.sub(r"`([A-Za-z_][A-Za-z0-9_.]*)(?:=([^`]*))?`", flag, text)


app = typer.Typer(
    cls=_Group,
    help="termx: substring statistics (freq, df_k, adaptation) for every substring of a corpus, in PostgreSQL.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class _NoticeHandler(logging.Handler):
    """The library's `termx` log records (e.g. "started a temporary embedded PostgreSQL") as CLI notices: on the
    command's stderr of the moment (a daemon's fork swaps it), silenced by --quiet."""

    def emit(self, record: logging.LogRecord) -> None:
        from termx.cli.options import notice

        notice(record.getMessage())


def _route_library_logs() -> None:
    """Send the `termx` logger's records (info and up) through `notice`, once per process."""
    logger = logging.getLogger("termx")
    if not any(isinstance(h, _NoticeHandler) for h in logger.handlers):
        logger.addHandler(_NoticeHandler(logging.INFO))
        logger.setLevel(logging.INFO)


@app.callback()
def _root(debug: bool = typer.Option(False, "--debug", help="Show full tracebacks on errors."),
          quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars, notices or summaries on "
                                     "stderr, for any command (errors stay)."),
          verbose: bool = typer.Option(False, "--verbose", "-v", help="More on stderr: the seconds of every "
                                       "stage.")) -> None:
    """termx builds suffix-array statistics of a corpus into PostgreSQL and queries them."""
    from termx.cli.options import set_verbosity

    set_verbosity(quiet, verbose)  # every command starts here: a CliRunner's earlier --quiet is forgotten
    _route_library_logs()
    if not debug:
        # A connection lost mid-command makes SQLAlchemy's pool log a traceback while it cleans up; the error
        # itself is reported in one line, so those logs are kept for --debug.
        for name in ("sqlalchemy", "psycopg"):
            logger = logging.getLogger(name)
            if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
                logger.addHandler(logging.NullHandler())


def _register() -> None:
    """Import the command modules; each adds its commands to `app`."""
    from termx.cli import (
        commands_cache,  # noqa: F401
        commands_daemon,  # noqa: F401
        commands_db,  # noqa: F401
        commands_evaluation,  # noqa: F401
        commands_index,  # noqa: F401
        commands_jdf,  # noqa: F401
        commands_lookup,  # noqa: F401
        commands_segment,  # noqa: F401
        commands_serve,  # noqa: F401
        commands_servers,  # noqa: F401
        commands_studies,  # noqa: F401
        commands_tbl,  # noqa: F401
        commands_terms,  # noqa: F401
    )


_register()


def main() -> None:
    """Console-script entry point."""
    app()
