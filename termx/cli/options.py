"""Options shared by many commands, declared once."""

from __future__ import annotations

from typing import Annotated

import typer

from termx.cli.output import Format

DbOption = Annotated[
    str | None,
    typer.Option("--db", envvar="TERMX_DATABASE_URL", show_envvar=True,
                 help="PostgreSQL URL. Default: the embedded server under $TERMX_HOME (~/.termx)."),
]
FormatOption = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars or summaries on stderr.")]


def emit(text: str) -> None:
    """Write a command's data to stdout (progress and logs go to stderr)."""
    emit_raw(text + "\n" if text else "")


def emit_raw(text: str) -> None:
    """Write text to stdout exactly as given (no newline added) and flush it: streamed output.

    color=True stops click from deleting what looks like ANSI codes when stdout is not a terminal: csv, tsv and
    text output must carry the data exactly (tables escape control characters before they get here)."""
    if text:
        typer.echo(text, nl=False, color=True)
