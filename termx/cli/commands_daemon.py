"""The `daemon` group: the warm command process that makes later commands skip Python's imports."""

from __future__ import annotations

import typer

from termx.cli import DATABASE_PANEL, app
from termx.cli.options import FormatOption, emit
from termx.cli.output import Format, render_record

daemon_app = typer.Typer(help="A warm termx process (start, stop, status): later commands run in a fork of it "
                              "and skip the seconds of imports.", no_args_is_help=True)
app.add_typer(daemon_app, name="daemon", rich_help_panel=DATABASE_PANEL)


@daemon_app.command("start")
def daemon_start() -> None:
    """Start the warm process under $TERMX_HOME/daemon; every later `termx` command of this user and TERMX_HOME
    runs in a fork of it (TERMX_DAEMON=0 runs one without it)."""
    from termx.cli import daemon

    started, status = daemon.start()
    if started:
        typer.echo(f"started the termx daemon (pid {status.pid}); `termx daemon stop` stops it", err=True)
    else:
        typer.echo(f"the termx daemon is already running (pid {status.pid})", err=True)


@daemon_app.command("stop")
def daemon_stop() -> None:
    """Stop the warm process; commands it is running go on to their end."""
    from termx.cli import daemon

    if daemon.stop():
        typer.echo("stopped the termx daemon", err=True)
    else:
        typer.echo("the termx daemon is not running; nothing to stop", err=True)


@daemon_app.command("status")
def daemon_status(fmt: FormatOption = Format.table) -> None:
    """Whether the warm process runs, its pid, since when, its socket, and whether it runs this termx's code."""
    from termx.cli import daemon

    emit(render_record(daemon.status().as_row(), fmt))
