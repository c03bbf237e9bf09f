"""`termx daemon`: commands run in a fork of the warm process give what they give in a process of their own."""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from termx.daemon.protocol import HEADER, newest_module_mtime
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.indexer import index_documents
from tests.serverutil import wait_for

TERMX = [sys.executable, "-m", "termx"]


@pytest.fixture
def daemon_home(tmp_path: Path, database_url: str, engine: Engine) -> Iterator[dict[str, str]]:
    """A TERMX_HOME with a running daemon and the environment that reaches it; the daemon is stopped after."""
    index_documents(engine, "daemon_docs", [Document("a", "Hi_Ho_Hi_Ho\nHo"), Document("b", "Hi_Ho Hi")],
                    Unit.char, 3, replace=True)
    env = {**os.environ, "TERMX_HOME": str(tmp_path / "home"), "TERMX_DATABASE_URL": database_url}
    env.pop("TERMX_DAEMON", None)
    started = subprocess.run([*TERMX, "daemon", "start"], env=env, capture_output=True, text=True, timeout=300)
    assert started.returncode == 0 and "started" in started.stderr, started.stderr
    try:
        yield env
    finally:
        subprocess.run([*TERMX, "daemon", "stop"], env=env, capture_output=True, timeout=120)


def _run(env: dict[str, str], *args: str, stdin: str = "", here: bool = False) -> tuple[int, str, str]:
    env = {**env, "TERMX_DAEMON": "0"} if here else env
    done = subprocess.run([*TERMX, *args], env=env, input=stdin, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout, done.stderr


def _served(env: dict[str, str]) -> list[str]:
    log = Path(env["TERMX_HOME"]) / "daemon" / "log"
    return [line for line in log.read_text().splitlines() if " pid " in line]


def _status(env: dict[str, str]) -> dict:  # type: ignore[type-arg]
    code, out, _ = _run(env, "daemon", "status", "--format", "json")
    assert code == 0
    return json.loads(out)[0]  # type: ignore[no-any-return]


def test_commands_in_the_daemon_equal_commands_run_here(daemon_home: dict[str, str]) -> None:
    env = daemon_home
    commands = [
        (("stats", "daemon_docs", "Hi_Ho", "Ho", "--format", "json"), ""),
        (("stats", "daemon_docs", "Hi_Ho"), ""),                    # a table: rich output
        (("stats", "no_such_corpus", "x"), ""),                      # an error: one line, exit 1
        (("concordance", "daemon_docs", "Ho", "--format", "csv"), ""),
        (("segment", "daemon_docs", "-", "--format", "jsonl"), "Hi_HoHi\nHo_Hi\r\n"),  # stdin is the caller's
        (("stats", "--no-such-flag"), ""),                           # a usage error: exit 2
    ]
    _run(env, "segment", "daemon_docs", "-", stdin="Hi\n", here=True)  # train and store the model once
    for args, stdin in commands:
        before = len(_served(env))
        warm = _run(env, *args, stdin=stdin)
        assert len(_served(env)) == before + 1, args  # it ran in the daemon, not here
        assert warm == _run(env, *args, stdin=stdin, here=True), args
    assert [line.split()[3:] for line in _served(env)[-3:]] == [
        ["concordance", "exit", "0"], ["segment", "exit", "0"], ["stats", "exit", "2"]]


def test_status_privacy_stop_and_the_fallback(daemon_home: dict[str, str]) -> None:
    env = daemon_home
    status = _status(env)
    assert status["running"] and status["current"] and isinstance(status["pid"], int)
    sock = Path(status["socket"])
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700

    code, _, err = _run(env, "daemon", "start")  # a second start changes nothing
    assert code == 0 and "already running" in err and _status(env)["pid"] == status["pid"]

    code, _, err = _run(env, "daemon", "stop")
    assert code == 0 and "stopped" in err
    assert not sock.exists() and not _status(env)["running"]
    served = len(_served(env))
    code, out, _ = _run(env, "stats", "daemon_docs", "Ho", "--format", "json")
    assert code == 0 and json.loads(out)[0]["freq"] == 4 and len(_served(env)) == served  # ran here
    code, _, err = _run(env, "daemon", "stop")
    assert code == 0 and "not running" in err


def test_a_killed_daemon_is_not_used_and_is_replaced(daemon_home: dict[str, str]) -> None:
    env = daemon_home
    pid = _status(env)["pid"]
    os.kill(pid, signal.SIGKILL)
    assert wait_for(lambda: not _status(env)["running"], 30)
    served = len(_served(env))
    code, out, _ = _run(env, "stats", "daemon_docs", "Ho", "--format", "json")  # the stale socket is skipped
    assert code == 0 and json.loads(out)[0]["freq"] == 4 and len(_served(env)) == served
    code, _, err = _run(env, "daemon", "start")
    assert code == 0 and "started" in err and _status(env)["pid"] != pid


def test_a_daemon_of_other_code_refuses_the_command(daemon_home: dict[str, str]) -> None:
    body = json.dumps({"argv": ["corpora"], "prog": "termx", "env": {}, "cwd": "/", "umask": 0o22,
                       "code": "another installation"}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(_status(daemon_home)["socket"])
        socket.send_fds(conn, [HEADER.pack(len(body)) + body], [0, 1, 2])
        reply = conn.recv(1 << 16)
    assert json.loads(reply[HEADER.size:]) == {"stale": True}


def test_ctrl_c_reaches_the_command(daemon_home: dict[str, str]) -> None:
    env = daemon_home
    client = subprocess.Popen([*TERMX, "segment", "daemon_docs", "-", "--quiet"], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert client.stdin is not None and client.stdout is not None
    client.stdin.write("Hi_Ho\n")
    client.stdin.flush()
    # The first line's answer means the command runs in the daemon's child (the client relays signals to it
    # from the moment it knows the child) and is now waiting for more input.
    with selectors.DefaultSelector() as waiting:  # not select(): a long session's descriptors pass 1024
        waiting.register(client.stdout, selectors.EVENT_READ)
        ready = waiting.select(120)
    assert ready and client.stdout.readline().strip(), "no answer to the first line"
    assert _children(env)
    client.send_signal(signal.SIGINT)
    client.wait(timeout=60)  # stdin stays open: the command can only end by the interrupt
    out, err = client.communicate(timeout=60)
    assert client.returncode == 130 and "interrupted" in err, (client.returncode, out, err)


def _children(env: dict[str, str]) -> bool:
    """Whether the daemon has a child (a command running)."""
    pid = _status(env)["pid"]
    try:
        return bool(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
    except OSError:
        return False


def test_the_code_signature_sees_the_modules_rglob_sees(tmp_path: Path) -> None:
    """The launcher's walk finds the newest `*.py` that Path.rglob finds: nested ones, not those behind a link to
    a directory (each command pays this walk, so it is written with os.scandir)."""
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    for path, mtime in ((tmp_path / "pkg" / "a.py", 1_000), (tmp_path / "pkg" / "sub" / "b.py", 3_000),
                        (tmp_path / "pkg" / "c.txt", 9_000), (tmp_path / "outside" / "d.py", 7_000)):
        path.write_text("")
        os.utime(path, ns=(mtime, mtime))
    (tmp_path / "pkg" / "linked").symlink_to(tmp_path / "outside")
    expected = max(entry.stat().st_mtime_ns for entry in (tmp_path / "pkg").rglob("*.py"))
    assert newest_module_mtime(str(tmp_path / "pkg")) == expected == 3_000
