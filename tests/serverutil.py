"""Helpers for the embedded-server tests: a private $TERMX_HOME whose servers are always stopped afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from termx.storage import embedded


@contextmanager
def termx_home(path: Path) -> Iterator[Path]:
    """Point TERMX_HOME at `path` for the block; stop whatever server runs there when it ends."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TERMX_HOME", str(path))
        mp.delenv("TERMX_DATABASE_URL", raising=False)
        try:
            yield path
        finally:
            embedded.stop()


def termx_env() -> dict[str, str]:
    """The environment for a termx subprocess: this TERMX_HOME, no external database."""
    env = dict(os.environ)
    env.pop("TERMX_DATABASE_URL", None)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parent.parent), env.get("PYTHONPATH", "")])
    return env


def holder() -> subprocess.Popen[str]:
    """A process that takes the embedded server (a temporary one if none is kept), says 'up' and sleeps."""
    code = "from termx.storage.embedded import embedded_url; embedded_url(); print('up', flush=True); " \
           "import time; time.sleep(300)"
    proc = subprocess.Popen([sys.executable, "-c", code], env=termx_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "up", proc.stderr
    return proc


def wait_for(condition: Callable[[], bool], seconds: float = 60.0) -> bool:
    """Poll `condition` until it holds or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()
