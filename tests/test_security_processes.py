"""The processes termx starts or hands work to: none imports code from the working directory, a socket that is
not this user's daemon gets nothing, workers die with their parent, and the daemon's child meets the caller's
limits (`ulimit`) while `db psql` runs outside it."""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from sqlalchemy.engine import Engine

from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage import cluster, embedded
from termx.storage.indexer import index_documents
from tests.serverutil import wait_for

TERMX = str(Path(sys.executable).parent / "termx")  # the console script: sys.path[0] is its own folder
NOBODY = 65534
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user (uid 65534)")

DELEGATE = """\
import os, sys
open({marker!r}, "a").write(__name__ + "\\n")
sys.path = [p for p in sys.path if p not in ("", os.getcwd())]
del sys.modules[__name__]
sys.modules[__name__] = __import__(__name__)
"""
"""A standard library package planted in the working directory: it leaves a mark, then hands over to the real
one (so the process goes on as usual and only the mark tells)."""


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A working directory another user prepared: a `termx` package and a `multiprocessing` package (the first
    import of a spawned worker) that write to a marker file when imported; (the folder, the marker)."""
    folder, marker = tmp_path / "cwd", tmp_path / "imported"
    for package in ("termx", "multiprocessing"):
        (folder / package).mkdir(parents=True)
    (folder / "termx" / "__init__.py").write_text(f"open({str(marker)!r}, 'a').write('termx\\n')\n")
    (folder / "multiprocessing" / "__init__.py").write_text(DELEGATE.format(marker=str(marker)))
    yield folder, marker


def _env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a termx subprocess with TERMX_HOME `home` (buffered output, as the daemon's child has)."""
    drop = ("TERMX_DAEMON", "TERMX_FAULT", "PYTHONSAFEPATH", "PYTHONUNBUFFERED")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return {**env, "TERMX_HOME": str(home), **extra}


def _termx(env: dict[str, str], *args: str, cwd: Path | str = "/") -> subprocess.CompletedProcess[str]:
    return subprocess.run([TERMX, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


# -- 1. nothing from the working directory ------------------------------------------------------------------------

def test_the_watchdog_imports_nothing_from_the_working_directory(hostile: tuple[Path, Path], tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    folder, marker = hostile
    monkeypatch.chdir(folder)
    embedded._spawn_watchdog(cluster.Layout(tmp_path / "home"), (2**22 + 1, 0.0))  # a lease of no process
    watchdog = embedded._watchdogs.pop()
    assert watchdog.stdin is not None
    watchdog.stdin.close()  # as when this process ends: the watchdog releases the lease and exits
    assert watchdog.wait(timeout=120) == 0
    assert not marker.exists(), marker.read_text()


def test_a_killed_parallel_build_leaves_no_worker_and_ran_nothing_from_its_directory(
        hostile: tuple[Path, Path], tmp_path: Path, database_url: str) -> None:
    folder, marker = hostile
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a", "b"):
        (docs / name).write_text(f"{name} hello world\n" * 20)
    mark = tmp_path / "mark"
    env = _env(tmp_path / "home", TERMX_DATABASE_URL=database_url, TERMX_FAULT="sleep:tokenize:120",
               TERMX_FAULT_MARK=str(mark))
    build = subprocess.Popen([TERMX, "index", str(docs), "--corpus", "killed_build", "--workers", "2",
                              "--shard-size", "100", "--quiet"], env=env, cwd=folder,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:  # both workers are inside their shard's build (sleeping at the tokenize fault point)
        assert wait_for(lambda: mark.exists() and len(mark.read_text().split()) == 2, 120), build.stderr
        children = psutil.Process(build.pid).children(recursive=True)
        assert len(children) == 3  # two workers and multiprocessing's resource tracker
    finally:
        build.kill()
        build.wait()
    assert wait_for(lambda: not any(_alive(child) for child in children), 10), children
    assert not marker.exists(), marker.read_text()


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


# -- the daemon: started from a hostile directory; limits and psql -----------------------------------------------

@pytest.fixture
def daemon(hostile: tuple[Path, Path], tmp_path: Path, database_url: str) -> Iterator[dict[str, str]]:
    """A daemon started from the hostile directory (which must not matter); its environment. Stopped after."""
    folder, marker = hostile
    env = _env(tmp_path / "home", TERMX_DATABASE_URL=database_url)
    started = _termx(env, "daemon", "start", cwd=folder)
    try:
        assert started.returncode == 0 and "started" in started.stderr, started.stderr
        assert not marker.exists(), marker.read_text()
        yield env
    finally:
        _termx(env, "daemon", "stop")


def _served(env: dict[str, str]) -> int:
    return (Path(env["TERMX_HOME"]) / "daemon" / "log").read_text().count(" pid ")


def test_the_daemon_child_meets_the_callers_limits_and_psql_runs_outside(daemon: dict[str, str], engine: Engine,
                                                                        tmp_path: Path, database_url: str) -> None:
    env = daemon
    index_documents(engine, "limits_docs", [Document("a", "Hi_Ho")], Unit.char, 2, replace=True)
    limit = 4096  # bytes a file may grow to (`ulimit -f 4`); the output is about 140 kB

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    stats = [TERMX, "stats", "limits_docs", *["Hi"] * 500, "--format", "json"]
    assert _termx(env, *stats[1:]).returncode == 0  # the look-up cache is filled: output is all it writes
    results = []
    for here in (True, False):
        out = tmp_path / f"out-{here}"
        with open(out, "w") as sink:
            done = subprocess.run(stats, cwd="/", env={**env, "TERMX_DAEMON": "0"} if here else env, stdout=sink,
                                  stderr=subprocess.PIPE, text=True, preexec_fn=cap, timeout=300)
        results.append((done.returncode, out.stat().st_size, done.stderr))
    assert _served(env) == 2  # the last one ran in the daemon
    assert results[0] == results[1] and results[0][0] == 1 and results[0][1] <= limit, results
    assert "File too large" in results[0][2]

    psql = _termx(env, "db", "psql", "--db", database_url, "-X", "-A", "-t", "-c", "SELECT 6 * 7")
    assert psql.returncode == 0 and psql.stdout.strip() == "42", psql.stderr
    assert _served(env) == 2  # psql ran in the caller's process: Ctrl-C reaches it from the terminal


# -- 5. a socket that is not this user's daemon gets nothing ------------------------------------------------------

class FakeDaemon:
    """A listener at $TERMX_HOME/daemon/cli.sock in this process that records whatever a caller sends."""

    def __init__(self, home: Path) -> None:
        self.folder = home / "daemon"
        self.folder.mkdir(parents=True)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(self.folder / "cli.sock"))
        self.listener.listen(1)
        self.listener.settimeout(0.2)
        self.received = b""
        self.connected = False
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.done.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            self.connected = True
            conn.settimeout(2)
            with contextlib.suppress(OSError):
                data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
                self.received += data
                for fd in fds:
                    os.close(fd)
            conn.close()

    def close(self) -> None:
        self.done.set()
        self.thread.join()
        self.listener.close()


def _runs_here_untouched(home: Path, fake_received: FakeDaemon | None) -> str:
    """Run `termx --help` against TERMX_HOME `home`: it must work as without a daemon; its stderr."""
    done = _termx(_env(home), "--help")
    assert done.returncode == 0 and "Usage" in done.stdout, done.stderr
    if fake_received is not None:
        fake_received.close()
        assert fake_received.received == b"" and not fake_received.connected
    return done.stderr


@pytest.mark.parametrize("wrong", ["mode", "owner"])
def test_a_daemon_folder_others_control_gets_nothing(tmp_path: Path, wrong: str) -> None:
    if wrong == "owner" and os.geteuid() != 0:
        pytest.skip("needs root to give the folder to another user (uid 65534)")
    fake = FakeDaemon(tmp_path / "home")
    if wrong == "mode":
        os.chmod(fake.folder, 0o777)
    else:
        os.chmod(fake.folder, 0o755)
        os.chown(fake.folder, NOBODY, NOBODY)
    err = _runs_here_untouched(tmp_path / "home", fake)
    assert err.count("\n") == 1 and "not using the daemon socket" in err, err
    assert ("writable by others" if wrong == "mode" else "belongs to uid 65534") in err
    if wrong == "owner":  # nor does `daemon start` take the folder over (or change its mode)
        started = _termx(_env(tmp_path / "home"), "daemon", "start")
        assert started.returncode == 1 and "belongs to uid 65534" in started.stderr, started.stderr
        assert stat.S_IMODE(fake.folder.stat().st_mode) == 0o755


@as_root
def test_a_listener_of_another_user_gets_nothing(tmp_path: Path) -> None:
    """Folder and socket file look right (ours, 0700): only the peer credentials show another user listens."""
    folder = tmp_path / "home" / "daemon"
    folder.mkdir(parents=True, mode=0o700)
    theirs = Path(tempfile.mkdtemp(prefix="termx-theirs-"))  # under /tmp: the test's own folders are 0700
    os.chown(theirs, NOBODY, NOBODY)
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the listener as uid 65534; it reports what it received through the pipe
        os.close(reader)
        got = b"?"
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(str(theirs / "cli.sock"))
            listener.listen(1)
            os.write(writer, b"L")
            listener.settimeout(60)
            conn, _ = listener.accept()
            conn.settimeout(2)
            try:
                got = b"R" + socket.recv_fds(conn, 1 << 16, 3)[0]
            except OSError:
                got = b"C"
        except BaseException:
            pass
        os.write(writer, got)
        os._exit(0)
    os.close(writer)
    try:
        assert os.read(reader, 1) == b"L"
        os.rename(theirs / "cli.sock", folder / "cli.sock")  # then made to look like ours
        os.chown(folder / "cli.sock", 0, 0)
        err = _runs_here_untouched(tmp_path / "home", None)
        assert err.count("\n") == 1 and "runs as uid 65534" in err, err
    finally:
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as wake:
            wake.connect(str(folder / "cli.sock"))  # a listener still waiting reports and exits
        os.waitpid(pid, 0)
        shutil.rmtree(theirs)
    report = os.read(reader, 1 << 16)
    os.close(reader)
    assert report == b"R", report  # connected to (by the check), but sent nothing
