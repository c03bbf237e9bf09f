"""The `daemon` group: the warm command process that makes later commands skip Python's imports."""

from __future__ import annotations

import typer

from termx.cli.options import FormatOption, QuietOption, VerboseOption, emit, notice
from termx.cli.output import Format, render_record
from termx.cli.root import DATABASE_PANEL, app

daemon_app = typer.Typer(help="A warm termx process (start, stop, status): later commands run in a fork of it "
                              "and skip the seconds of imports.", no_args_is_help=True)
app.add_typer(daemon_app, name="daemon", rich_help_panel=DATABASE_PANEL)


@daemon_app.command("start")
def daemon_start(quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Start the warm process under $TERMX_HOME/daemon; every later `termx` command of this user and TERMX_HOME
    runs in a fork of it (TERMX_DAEMON=0 runs one without it)."""
    from termx.daemon import server

    started, status = server.start("termx.cli.warm")
    if started:
        notice(f"started the termx daemon (pid {status.pid}); `termx daemon stop` stops it")
    else:
        notice(f"the termx daemon is already running (pid {status.pid})")


@daemon_app.command("stop")
def daemon_stop(quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Stop the warm process; commands it is running go on to their end."""
    from termx.daemon import server

    if server.stop():
        notice("stopped the termx daemon")
    else:
        notice("the termx daemon is not running; nothing to stop")


@daemon_app.command("status")
def daemon_status(fmt: FormatOption = Format.table, quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Whether the warm process runs, its pid, since when, its socket, and whether it runs this termx's code."""
    from termx.daemon import server

    emit(render_record(server.status().as_row(), fmt))
