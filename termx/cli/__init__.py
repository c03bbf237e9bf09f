"""The termx command line: parses arguments, calls the library, formats results. No logic of its own."""

from __future__ import annotations

import os
import sys
from typing import Any

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from termx.errors import TermxError


class _Group(TyperGroup):
    """Turns library errors into `Error: <what> (<hint>)` and exit 1; `--debug` shows the traceback."""

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
            typer.echo(f"Error: {_one_line(exc)}", err=True)
            raise typer.Exit(1) from None


def _one_line(exc: Exception) -> str:
    """A library error as is; anything else as its type and first line, with a pointer to --debug."""
    if isinstance(exc, TermxError):
        return str(exc)
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    return f"unexpected {type(exc).__name__}: {first} (rerun with --debug for the traceback)"


app = typer.Typer(
    cls=_Group,
    help="termx: substring statistics (freq, df_k, adaptation) for every substring of a corpus, in PostgreSQL.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root(debug: bool = typer.Option(False, "--debug", help="Show full tracebacks on errors.")) -> None:
    """termx builds suffix-array statistics of a corpus into PostgreSQL and queries them."""
    if not debug:
        import logging

        logging.getLogger("psycopg").setLevel(logging.ERROR)  # its warnings repeat the one-line error


def _register() -> None:
    """Import the command modules; each adds its commands to `app`."""
    from termx.cli import (
        commands_evaluation,  # noqa: F401
        commands_index,  # noqa: F401
        commands_lookup,  # noqa: F401
        commands_segment,  # noqa: F401
        commands_tbl,  # noqa: F401
        commands_terms,  # noqa: F401
    )


_register()


def main() -> None:
    """Console-script entry point."""
    app()
