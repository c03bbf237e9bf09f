"""The warm command process of `termx daemon start`: a command's libraries imported once, a fork per command.

A command costs Python's start-up plus imports (Typer, rich, SQLAlchemy, psycopg, numpy: most of a look-up's
wall time) before any work. This process pays them once, then listens on a Unix socket in $TERMX_HOME/daemon
(directory 0700, socket 0600, and each peer's uid checked against its own). For each connection from
termx.daemon.client it forks a child that takes over the caller's stdin, stdout and stderr, arguments,
environment, working directory, umask and resource limits, runs the command through the function it was given
(termx.cli.warm gives the same Typer app as `termx.cli.main`), and reports its exit status. The parent holds no
connection and runs no thread, so each fork starts clean; a child whose caller goes away is interrupted like a
Ctrl-C. Nothing here decides what a command does. It runs with `python -P` from /, so nothing is imported from
a working directory.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import resource
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from termx.daemon.protocol import (
    HEADER,
    LIMITS,
    STATUS,
    code_signature,
    daemon_dir,
    folder_problem,
    frame,
    peer_uid,
    read_exactly,
    socket_path,
)
from termx.errors import DaemonError
from termx.home import locked, process_alive, read_state, write_state

Command = Callable[[str, list[str]], object]
"""Runs `PROG ARGV` in this process (a Typer app's call): its SystemExit carries the exit status."""

_START_TIMEOUT = 120.0  # seconds to wait for a new daemon's socket (its imports, on a loaded machine)
_SOCKET_MAX = 107       # bytes in a Unix socket path


@dataclass
class Status:
    """Whether the daemon runs, and where."""

    running: bool
    pid: int | None
    since: str | None
    socket: str
    current: bool | None  # runs this installation's code (None when not running)
    log: str

    def as_row(self) -> dict[str, Any]:
        """The fields of `termx daemon status`."""
        return {"running": self.running, "pid": self.pid, "since": self.since, "socket": self.socket,
                "current": self.current, "log": self.log}


def status() -> Status:
    """The daemon's state: running when its recorded process is alive and its socket answers."""
    folder = daemon_dir()
    state = read_state(folder / "state.json")
    pid = state.get("pid")
    running = isinstance(pid, int) and process_alive(pid) and _answers(socket_path())
    return Status(running, pid if running else None, state.get("since") if running else None,
                  str(socket_path()), state.get("code") == code_signature() if running else None,
                  str(folder / "log"))


def start(entry: str) -> tuple[bool, Status]:
    """Start the daemon unless it runs, as `python -P -m ENTRY` (a module that calls serve); (whether this call
    started it, its status)."""
    folder = daemon_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if _own_directory(folder):
        os.chmod(folder, 0o700)
    problem = folder_problem(folder)
    if problem:  # e.g. another user's folder: they could replace the socket (the launcher would refuse it)
        raise DaemonError(f"cannot start the daemon: {problem}", "set TERMX_HOME to a folder of yours")
    if len(str(socket_path()).encode()) > _SOCKET_MAX:
        raise DaemonError(f"the socket path {socket_path()} is too long for a Unix socket",
                          "set TERMX_HOME to a shorter path")
    with locked(folder / "lock"):
        now = status()
        if now.running:
            return False, now
        _clear(folder)
        with open(folder / "log", "ab") as log:
            os.chmod(folder / "log", 0o600)
            # -P from /: termx and its libraries come from the installation, never from a working directory
            proc = subprocess.Popen([sys.executable, "-P", "-m", entry], stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=log, start_new_session=True, close_fds=True, cwd="/")
        deadline = time.monotonic() + _START_TIMEOUT
        while not _answers(socket_path()):
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise DaemonError(f"the daemon did not start: {_last_line(folder / 'log')}",
                                  f"see {folder / 'log'}")
            time.sleep(0.05)
        return True, status()


def stop() -> bool:
    """Stop the daemon (commands it is running go on to their end); False when none ran."""
    folder = daemon_dir()
    if not folder.is_dir():
        return False
    with locked(folder / "lock"):
        now = status()
        if now.running and now.pid is not None:
            os.kill(now.pid, signal.SIGTERM)
            deadline = time.monotonic() + 30
            while process_alive(now.pid) and time.monotonic() < deadline:
                time.sleep(0.02)
        _clear(folder)
        return now.running


def serve(command: Command, preload: Sequence[str] = ()) -> None:
    """The daemon's main loop (run by the `start` entry module): `command` runs each request; the `preload`
    modules are imported before the first fork (one that is not installed is skipped)."""
    import importlib

    for module in preload:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    folder = daemon_dir()
    path = socket_path()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    previous = os.umask(0o177)
    try:
        listener.bind(str(path))
    finally:
        os.umask(previous)
    # the state first: `start` reads it as soon as the socket answers (it printed "pid None" otherwise)
    write_state(folder / "state.json", {"pid": os.getpid(), "since": datetime.now(UTC).isoformat(timespec="seconds"),
                          "code": code_signature()})
    listener.listen(64)

    def quit_(_number: int, _frame: object) -> None:
        with contextlib.suppress(OSError):
            path.unlink()
        os._exit(0)

    signal.signal(signal.SIGTERM, quit_)
    signal.signal(signal.SIGINT, quit_)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel; they report over the socket
    while True:
        try:
            conn, _ = listener.accept()
        except InterruptedError:
            continue
        if peer_uid(conn) != os.getuid():
            conn.close()
            continue
        if os.fork() == 0:
            listener.close()
            _child(conn, command)
        conn.close()


def _child(conn: socket.socket, command: Command) -> None:
    """Run one command for the caller on `conn`, then exit with its status (never returns)."""
    code = 1
    for sig in (signal.SIGCHLD, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        request = _receive(conn)
        if request is None:
            os._exit(1)
        if request["code"] != code_signature():
            _send_json(conn, {"stale": True})
            os._exit(1)
        _take_over(request)
        _send_json(conn, {"pid": os.getpid()})
        threading.Thread(target=_interrupt_when_gone, args=(conn,), daemon=True).start()
        code = _run(command, request["prog"], request["argv"])
        atexit._run_exitfuncs()
        _log(request["argv"], code)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # done: the caller closing the socket now interrupts nothing
        with contextlib.suppress(OSError):
            conn.sendall(STATUS.pack(code))
        os._exit(code)


def _receive(conn: socket.socket) -> dict[str, Any] | None:
    """The caller's request; its stdin, stdout and stderr become this process's 0, 1 and 2."""
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    if len(fds) != 3 or len(data) < HEADER.size:
        return None
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    size = HEADER.unpack(data[:HEADER.size])[0]
    body = data[HEADER.size:]
    rest = read_exactly(conn, size - len(body))
    if rest is None:
        return None
    body += rest
    return json.loads(body.decode("utf-8", "surrogateescape"))  # type: ignore[no-any-return]


def _take_over(request: dict[str, Any]) -> None:
    """Become the caller's process for the command: its environment, directory, umask and streams."""
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    _take_limits(request["limits"])
    encoding, errors = sys.stdout.encoding, sys.stdout.errors
    sys.stdin = open(0, encoding=encoding, errors=sys.stdin.errors, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", encoding=encoding, errors=errors, closefd=False,  # noqa: SIM115
                      buffering=1 if os.isatty(1) else -1)
    sys.stderr = open(2, "w", encoding=encoding, errors="backslashreplace", closefd=False, buffering=1)  # noqa: SIM115
    sys.argv = [request["prog"], *request["argv"]]


def _take_limits(limits: dict[str, list[int]]) -> None:
    """Take the caller's resource limits (`ulimit -f`, `-v`, `-n`, ...): its soft limits, each hard limit only
    ever lowered, so the command meets the limits it would meet in the caller's own process."""
    for name, (soft, hard) in limits.items():
        if name not in LIMITS:
            continue
        which = getattr(resource, name)
        hard = _lower(resource.getrlimit(which)[1], hard)
        with contextlib.suppress(ValueError, OSError):  # a limit this kernel refuses stays the daemon's
            resource.setrlimit(which, (_lower(soft, hard), hard))


def _lower(a: int, b: int) -> int:
    """The lower of two resource limits (RLIM_INFINITY is the highest)."""
    if a == resource.RLIM_INFINITY:
        return b
    return a if b == resource.RLIM_INFINITY else min(a, b)


def _run(command: Command, prog: str, argv: list[str]) -> int:
    """The exit status of `command` run on `PROG ARGV`."""
    try:
        command(prog, argv)
        code: int = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            sys.stderr.write(f"{exc.code}\n")
            code = 1
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the command is over: a late Ctrl-C must not change its status
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    return code


def _interrupt_when_gone(conn: socket.socket) -> None:
    """Interrupt the command when its caller goes away (killed), as if it had pressed Ctrl-C."""
    with contextlib.suppress(OSError):
        while conn.recv(64):
            pass
    os.kill(os.getpid(), signal.SIGINT)


def _send_json(conn: socket.socket, message: dict[str, Any]) -> None:
    conn.sendall(frame(message))


def _log(argv: list[str], code: int) -> None:
    """One line per command in the daemon's log: when, which process, the command's name, its exit status."""
    line = f"{datetime.now(UTC).isoformat(timespec='seconds')} pid {os.getpid()} {(argv or ['-'])[0]} exit {code}\n"
    with contextlib.suppress(OSError):
        fd = os.open(daemon_dir() / "log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.write(fd, line.encode("utf-8", "backslashreplace"))
        os.close(fd)


def _answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def _own_directory(folder: Path) -> bool:
    info = os.lstat(folder)
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()


def _clear(folder: Path) -> None:
    """Remove what a stopped or killed daemon left: its socket and state."""
    for name in ("cli.sock", "state.json"):
        with contextlib.suppress(FileNotFoundError):
            (folder / name).unlink()


def _last_line(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return "no log"
    return text.rsplit("\n", 1)[-1][:300] if text else "no output"
