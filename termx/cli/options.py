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


class _Verbosity:
    """How much a command says on stderr, for the whole process: -1 quiet, 0 normal, 1 verbose (stage times)."""

    level = 0


def set_verbosity(quiet: bool = False, verbose: bool = False) -> None:
    """Start a command at normal verbosity, or quiet / verbose (quiet wins when both are given)."""
    _Verbosity.level = -1 if quiet else 1 if verbose else 0


def is_quiet() -> bool:
    """Whether --quiet was given, before the command or after it."""
    return _Verbosity.level < 0


def is_verbose() -> bool:
    """Whether -v/--verbose was given (and not --quiet)."""
    return _Verbosity.level > 0


def _quiet_flag(value: bool) -> bool:
    """A command's --quiet: sets the process's verbosity; True also when `termx --quiet` came before it."""
    if value:
        _Verbosity.level = -1
    return value or is_quiet()


def _verbose_flag(value: bool) -> bool:
    """A command's -v/--verbose (ignored beside --quiet)."""
    if value and not is_quiet():
        _Verbosity.level = 1
    return value and not is_quiet()


QuietOption = Annotated[bool, typer.Option("--quiet", "-q", callback=_quiet_flag,
                                           help="No progress bars, notices or summaries on stderr (errors stay).")]
VerboseOption = Annotated[bool, typer.Option("--verbose", "-v", callback=_verbose_flag,
                                             help="More on stderr: the seconds of every stage.")]
"""Every command takes both (tests/test_cli_help.py checks it), and `termx --quiet CMD` / `termx -v CMD` set the
same: the commands, the progress bars and the notices of the library's logger all read is_quiet/is_verbose."""


def notice(text: str) -> None:
    """A note to the user on stderr (a summary, what was started or replaced), silenced by --quiet."""
    if not is_quiet():
        typer.echo(text, err=True)


def detail(text: str) -> None:
    """A detail on stderr shown only with -v/--verbose."""
    if is_verbose():
        typer.echo(text, err=True)


def emit(text: str) -> None:
    """Write a command's data to stdout (progress and logs go to stderr)."""
    emit_raw(text + "\n" if text else "")


def emit_raw(text: str) -> None:
    """Write text to stdout exactly as given (no newline added) and flush it: streamed output.

    color=True stops click from deleting what looks like ANSI codes when stdout is not a terminal: csv, tsv and
    text output must carry the data exactly (tables escape control characters before they get here)."""
    if text:
        typer.echo(text, nl=False, color=True)
