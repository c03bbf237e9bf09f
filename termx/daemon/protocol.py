"""What the `termx` launcher and the daemon share: the socket's place and checks, and the messages' framing.

A connection carries one request: a HEADER (the body's length), a JSON body and the caller's stdin, stdout and
stderr (SCM_RIGHTS). The daemon answers with one framed JSON message ({"pid": child} or {"stale": true}), and
the child ends with the command's exit STATUS. Standard library only (the launcher imports it).
"""

from __future__ import annotations

import json
import os
import socket
import stat
import struct
import sys
from pathlib import Path

from termx.home import home_path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: 2 ms of every `termx` call
if TYPE_CHECKING:
    from typing import Any

HEADER = struct.Struct("!I")  # length of the JSON message that follows it
STATUS = struct.Struct("!i")  # the command's exit status, the last thing the child sends
LIMITS = ("RLIMIT_AS", "RLIMIT_CORE", "RLIMIT_CPU", "RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_MEMLOCK",
          "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_STACK")
"""The resource limits (`ulimit`) of the caller that the daemon's child takes on."""


def daemon_dir() -> Path:
    """$TERMX_HOME/daemon (TERMX_HOME defaults to ~/.termx): the socket, pid file and log of the daemon."""
    return home_path() / "daemon"


def socket_path() -> Path:
    """The daemon's Unix socket."""
    return daemon_dir() / "cli.sock"


def code_signature() -> str:
    """Which termx code this is: the interpreter, the package folder and the newest modification time of its
    modules, so a daemon started before an upgrade or an edit is never used for a newer installation."""
    package = Path(__file__).resolve().parent.parent
    return f"{sys.executable}|{package}|{newest_module_mtime(str(package))}"


def newest_module_mtime(folder: str) -> int:
    """The newest st_mtime_ns of the `*.py` under `folder`, as `Path.rglob("*.py")` finds them (links to
    directories not followed), walked with os.scandir: every command pays this walk, and rglob takes 2-3 times
    as long."""
    newest = 0
    pending = [folder]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.name.endswith(".py"):
                    newest = max(newest, entry.stat().st_mtime_ns)
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
    return newest


def peer_uid(conn: socket.socket) -> int:
    """The user id of the process at the other end of a Unix socket (SO_PEERCRED), as the kernel reports it."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


def folder_problem(folder: Path) -> str | None:
    """Why `folder` cannot hold this user's daemon socket (None when it can): it must be a directory of this
    user's that no one else can write, or another user could put a socket of theirs in it."""
    try:
        info = os.lstat(folder)
    except OSError as exc:
        return f"cannot check {folder} ({exc.strerror})"
    if not stat.S_ISDIR(info.st_mode):
        return f"{folder} is not a directory"
    if info.st_uid != os.geteuid():
        return f"{folder} belongs to uid {info.st_uid}, not to you"
    if info.st_mode & 0o022:
        return f"{folder} is writable by others (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def frame(message: dict[str, Any]) -> bytes:
    """`message` as JSON after its HEADER (undecodable bytes of names and environment kept by surrogateescape)."""
    body = json.dumps(message).encode("utf-8", "surrogateescape")
    return HEADER.pack(len(body)) + body


def read_exactly(conn: socket.socket, size: int) -> bytes | None:
    """The next `size` bytes from `conn`; None when it closes first."""
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data
