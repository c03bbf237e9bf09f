"""Extra PostgreSQL servers for tests of several servers (docs/scale-out.md, "When one PostgreSQL server is not
enough"): each one a throwaway cluster made with the packaged `initdb` and run with `pg_ctl` from
/usr/lib/postgresql/<version>/bin, on a free 127.0.0.1 port, by an unprivileged user, stopped and deleted when the
block ends (also on failure). Where no packaged binaries exist the test is skipped with one reason.

    with pg_servers(tmp_path, 2) as servers:          # or the session fixture `pg_pair` (tests/conftest.py)
        servers[0].url("termx")                          # postgresql://postgres:PASSWORD@127.0.0.1:PORT/termx

PostgreSQL refuses to run as root, so as root the servers run as the system user TEST_USER (created once, as the
embedded server's user is, by termx.storage.serveruser), which owns their data and socket directories.
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa

from termx.storage import serveruser
from termx.storage.serveruser import Account, grant_search, own, run_as

TEST_USER = "termx-pgtest"
ROLE = "postgres"


def packaged_bin() -> Path | None:
    """The bin directory of the newest packaged PostgreSQL (Debian's /usr/lib/postgresql/N/bin), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    return Path(found[-1]).parent if found else None


def require_fdw(coordinator: sa.Engine) -> None:
    """Skip the test with one reason when the test database's server has no postgres_fdw (the embedded server is
    built without it; CI's packaged server has it)."""
    with coordinator.connect() as conn:
        if not conn.execute(sa.text("SELECT EXISTS (SELECT 1 FROM pg_available_extensions "
                                    "WHERE name = 'postgres_fdw')")).scalar_one():
            pytest.skip("the test database's server has no postgres_fdw (the embedded server): "
                        "set TERMX_TEST_DATABASE_URL to a packaged PostgreSQL")


def require_bin() -> Path:
    """packaged_bin(), or skip the test with the one reason."""
    bins = packaged_bin()
    if bins is None:
        pytest.skip("no packaged PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb)")
    return bins


def _account(data_dir: Path) -> Account:
    """Who runs the servers: the current user, or TEST_USER as root."""
    if os.geteuid() != 0:
        entry = pwd.getpwuid(os.geteuid())
        return Account(entry.pw_name, entry.pw_uid, os.getegid())
    entry = serveruser._system_user(TEST_USER)
    return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class TestServer:
    """One running cluster: its superuser `postgres` logs in with `password` (SCRAM) on 127.0.0.1:`port`."""

    __test__ = False  # not a pytest test class
    root: Path
    port: int
    password: str
    bins: Path
    account: Account

    def url(self, database: str = "postgres", with_password: bool = True) -> str:
        auth = f"{ROLE}:{self.password}" if with_password else ROLE
        return f"postgresql://{auth}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """CREATE DATABASE `name` (a fixed test name) and its URL."""
        engine = sa.create_engine(self.url().replace("postgresql://", "postgresql+psycopg://"),
                                  isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        engine.dispose()
        return self.url(name)

    def stop(self, mode: str = "immediate") -> None:
        """pg_ctl stop (immediate by default: a test server keeps nothing)."""
        run_as(self.account, [self.bins / "pg_ctl", "stop", "-w", "-s", "-m", mode, "-D", self.root / "data"])

    def start(self) -> None:
        """pg_ctl start on its port, listening on 127.0.0.1 and a socket directory of its own."""
        options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.root / 'run'} "
                   "-c shared_buffers=16MB -c max_connections=40 -c fsync=off -c synchronous_commit=off "
                   "-c full_page_writes=off")
        run_as(self.account, [self.bins / "pg_ctl", "start", "-w", "-t", "60", "-s", "-D", self.root / "data",
                              "-l", self.root / "log", "-o", options])

    def running(self) -> bool:
        return (self.root / "data" / "postmaster.pid").exists()


def _make(root: Path, bins: Path) -> TestServer:
    """initdb a cluster under `root` (owned by the servers' user) and start it."""
    root.mkdir(parents=True)
    account = _account(root)
    own(root, account, 0o700)
    grant_search(root, account)
    for sub in ("data", "run"):
        (root / sub).mkdir()
        own(root / sub, account, 0o700)
    password = secrets.token_hex(12)
    pwfile = root / "pw"
    pwfile.write_text(password + "\n")
    own(pwfile, account, 0o600)
    try:
        run_as(account, [bins / "initdb", "-D", root / "data", "-U", ROLE, "--auth=scram-sha-256",
                         f"--pwfile={pwfile}", "-E", "UTF8", "--locale=C", "--no-sync"])
    finally:
        pwfile.unlink()
    server = TestServer(root, _free_port(), password, bins, account)
    server.start()
    return server


@contextmanager
def pg_servers(base: Path, count: int) -> Iterator[list[TestServer]]:
    """`count` running test servers under `base`; every one is stopped and its files deleted when the block ends."""
    bins = require_bin()
    with ExitStack() as stack:
        servers: list[TestServer] = []
        for n in range(count):
            root = base / f"pg{n}"
            stack.callback(shutil.rmtree, root, True)
            try:
                server = _make(root, bins)
            except subprocess.CalledProcessError as exc:
                log = root / "log"
                detail = log.read_text(errors="replace")[-500:] if log.exists() else exc.stderr
                raise RuntimeError(f"test server {n} did not start: {detail}") from None
            stack.callback(_stop_quietly, server)
            servers.append(server)
        yield servers


def _stop_quietly(server: TestServer) -> None:
    """Stop `server` if it still runs (a test may have stopped it already)."""
    if server.running():
        try:
            server.stop()
        except subprocess.CalledProcessError:
            pass
