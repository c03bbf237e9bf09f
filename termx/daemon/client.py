"""Hand a `termx` command to the warm command process when one runs (termx.__main__ runs it here otherwise).

`termx daemon start` keeps a process with the CLI and its libraries imported (termx.daemon.server). This module
is all a command loads before reaching it: the standard library only, so a look-up pays Python's start-up and
one Unix-socket round trip instead of importing Typer, SQLAlchemy, psycopg and numpy. The process forks a child
per command, which gets this process's stdin, stdout and stderr (passed over the socket), arguments,
environment, working directory, umask and resource limits, and runs the command exactly as `termx.cli` would
here; its exit status becomes this process's. Without a running daemon, with TERMX_DAEMON=0, for the `daemon`
commands themselves and `db psql` (an interactive program of its own: it gets the terminal's signals directly),
or when the daemon runs other code than this installation's, the command runs in this process. So it does when
the socket may not be the daemon's (its folder or socket is not this user's, or the folder is writable by
others, or the listening process runs as another user): nothing is sent to it, and stderr says why.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import resource
import signal
import socket
import stat
import sys
from pathlib import Path

from termx.daemon.protocol import (
    HEADER,
    LIMITS,
    STATUS,
    code_signature,
    folder_problem,
    frame,
    peer_uid,
    read_exactly,
    socket_path,
)

RUN_HERE = (("daemon",), ("db", "psql"))
"""Commands never handed to the daemon: its own, and those that run an interactive program."""


def _socket_problem(path: Path) -> str | None:
    """Why the socket at `path` must not be trusted with this command (None when it may)."""
    problem = folder_problem(path.parent)
    if problem:
        return problem
    try:
        info = os.lstat(path)
    except OSError as exc:
        return f"cannot check {path} ({exc.strerror})"
    if not stat.S_ISSOCK(info.st_mode) or info.st_uid != os.geteuid():
        return f"{path} is not a socket of yours"
    return None


def _runs_here(argv: list[str]) -> bool:
    """Whether `termx ARGV` is one of the RUN_HERE commands (leading global options such as --debug skipped)."""
    words = tuple(itertools.dropwhile(lambda arg: arg.startswith("-"), argv))
    return any(words[:len(command)] == command for command in RUN_HERE)


def _limits() -> dict[str, tuple[int, int]]:
    """This process's LIMITS, by name: (soft, hard)."""
    return {name: resource.getrlimit(getattr(resource, name)) for name in LIMITS if hasattr(resource, name)}


def _request(argv: list[str]) -> bytes:
    """The framed request for `termx ARGV`: this process's environment, directory, umask, limits and code."""
    umask = os.umask(0)
    os.umask(umask)
    prog = "python -m termx" if sys.argv[0].endswith("__main__.py") else os.path.basename(sys.argv[0])
    return frame({"argv": argv, "prog": prog, "env": dict(os.environ), "cwd": os.getcwd(), "umask": umask,
                  "limits": _limits(), "code": code_signature()})


def _not_used(path: Path, why: str) -> None:
    sys.stderr.write(f"termx: not using the daemon socket {path}: {why}; running this command without it\n")


def forward(argv: list[str]) -> int | None:
    """Run `termx ARGV` in the daemon; its exit status, or None when no daemon takes it (run it here)."""
    path = socket_path()
    if os.environ.get("TERMX_DAEMON") == "0" or _runs_here(argv) or not os.path.lexists(path):
        return None
    problem = _socket_problem(path)
    if problem:
        _not_used(path, problem)
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(path))
        listener = peer_uid(conn)
        if listener != os.geteuid():  # checked before anything (environment, streams) is sent
            conn.close()
            _not_used(path, f"the process listening on it runs as uid {listener}, not as you")
            return None
        socket.send_fds(conn, [_request(argv)], [0, 1, 2])
        reply = read_exactly(conn, HEADER.size)
        answer = read_exactly(conn, HEADER.unpack(reply)[0]) if reply else None
    except OSError:  # a stale socket (the daemon was killed) or a daemon that went away
        conn.close()
        return None
    info = json.loads(answer) if answer else {}
    if "pid" not in info:  # other code: run it here
        conn.close()
        if info.get("stale"):
            sys.stderr.write("termx: the daemon runs an older termx; `termx daemon stop` and `start` it again "
                             "(running this command without it)\n")
        return None
    child = int(info["pid"])

    def relay(number: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, number)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # Ctrl-C and kills reach the command
        signal.signal(sig, relay)
    try:
        status = read_exactly(conn, STATUS.size)
    finally:
        conn.close()
    if status is None:  # the child died without reporting (killed)
        sys.stderr.write("Error: the command's process ended without an exit status (killed?)\n")
        return 1
    return int(STATUS.unpack(status)[0])
