"""$TERMX_HOME and the small files kept in it: where it is, exclusive locks, JSON state files, live pids.

Standard library only: the `termx` launcher imports it before deciding whether to import anything else. The
embedded server (server.lock, server.json), the daemon (daemon/lock, daemon/state.json) and the index cache
(`.fill-<pid>-…` folders) share these helpers; the ownership checks of a home are storage.paths.home()'s.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: 2 ms of every `termx` call
if TYPE_CHECKING:
    from typing import Any


def home_path() -> Path:
    """$TERMX_HOME (default ~/.termx) as an absolute path, neither created nor checked (paths.home() does both)."""
    return Path(os.environ.get("TERMX_HOME") or Path.home() / ".termx").expanduser().absolute()


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock (flock) on the file `path`, created 0600 if missing, held for the block."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def read_state(path: Path) -> dict[str, Any]:
    """The JSON object in `path`; empty when the file is missing, unreadable or not an object."""
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def write_state(path: Path, state: dict[str, Any]) -> None:
    """Replace `path` with `state` as JSON, atomically (a reader sees the old or the new file), mode 0600."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(state, out)
    os.replace(tmp, path)


def process_alive(pid: int) -> bool:
    """Whether process `pid` exists (one of another user's counts: it cannot be signalled, but it runs)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
