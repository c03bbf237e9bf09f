"""The database side of the third security round: `termx sql` runs in a session of termx_reader, which has no
privileged role to switch back to; the embedded server's URLs demand SCRAM, so a squatter on the port never gets
the password; a TERMX_HOME or data directory another user could write is refused."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from termx.cli import app
from termx.errors import DatabaseUnavailable, InputError
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage import embedded, sqlfiles
from termx.storage.indexer import index_documents
from termx.storage.sqlfiles import READER_ROLE, run_sql
from tests.serverutil import termx_home

runner = CliRunner()
SECRET_LINE = "root:x:0:0"  # the start of /etc/passwd: proof that a query read a server file


def _sql_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / f"q{uuid.uuid4().hex[:6]}.sql"
    path.write_text(f"-- an escape attempt\n{text}\n", encoding="utf-8")
    return path


def _refused(tmp_path: Path, text: str) -> str:
    """Run `text` through `termx sql`: it must fail with one line and show nothing of the server's files."""
    result = runner.invoke(app, ["sql", str(_sql_file(tmp_path, text))])
    assert result.exit_code == 1, (text, result.output)
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("Error: "), result.stderr
    assert SECRET_LINE not in result.output and "PG_VERSION" not in result.output, result.output
    return result.stderr


ESCAPES = [
    "SELECT set_config('role', 'postgres', false)",
    "SELECT set_config('role', 'postgres', true), pg_read_file('/etc/passwd')",
    "SELECT set_config('role', 'postgres', true), x FROM ts_stat('select to_tsvector(''simple'', "
    "pg_read_file(''/etc/passwd''))') AS x",
    "SELECT set_config('session_authorization', 'postgres', false)",
    "SELECT query_to_xml('SET ROLE postgres; SELECT pg_read_file(''/etc/passwd'') AS x', true, false, '')",
    "SELECT query_to_xml('RESET ROLE', true, false, '')",
    "SET ROLE postgres",
    "SET SESSION AUTHORIZATION postgres",
    "RESET ROLE; SELECT pg_read_file('/etc/passwd')",
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT * FROM ts_stat('select to_tsvector(''simple'', pg_read_file(''/etc/passwd''))')",
    "SELECT * FROM pg_ls_dir('.')",
    "SELECT lo_import('/etc/passwd')",
    "SELECT query_to_xml('COPY (SELECT 1) TO PROGRAM ''touch {marker}''', true, false, '')",
    "COPY (SELECT 1) TO PROGRAM 'touch {marker}'",
]


def test_sql_escapes_from_the_reader_role_fail_in_one_line(engine, db_env: str,  # type: ignore[no-untyped-def]
                                                           tmp_path: Path) -> None:
    """termx's session user here is a superuser; the query's session user is termx_reader, which may not switch to
    it (set_config, SET ROLE, SET SESSION AUTHORIZATION, RESET ROLE) nor read files or run programs."""
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT rolsuper FROM pg_roles WHERE rolname = session_user").scalar_one()
    marker = Path(tempfile.gettempdir()) / f"termx-ran-{uuid.uuid4().hex}"
    for text in ESCAPES:
        _refused(tmp_path, text.format(marker=marker))
    assert not marker.exists()
    who = run_sql(engine, _sql_file(tmp_path, "SELECT session_user AS s, current_user AS c"))
    assert who == [{"s": READER_ROLE, "c": READER_ROLE}]
    # termx's own tables and functions stay readable (every sql/*.sql runs in test_sql_lookup)
    assert run_sql(engine, _sql_file(tmp_path, "SELECT count(*) AS n FROM termx.corpus"))[0]["n"] >= 0


def test_dblink_where_installed_cannot_reach_a_superuser(engine, database_url: str,  # type: ignore[no-untyped-def]
                                                         db_env: str, tmp_path: Path) -> None:
    with engine.connect() as conn:
        if conn.exec_driver_sql("SELECT 1 FROM pg_available_extensions WHERE name = 'dblink'").scalar() is None:
            pytest.skip("the server has no dblink extension")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS dblink")
    try:
        url = sa.make_url(database_url)
        target = f"host={url.host or ''} port={url.port or 5432} dbname={url.database} user={url.username}"
        err = _refused(tmp_path, f"SELECT * FROM dblink('{target}', 'SELECT pg_read_file(''/etc/passwd'')') "
                                 "AS t(x text)")
        assert "password" in err or "permission denied" in err, err
    finally:
        with engine.begin() as conn:
            conn.exec_driver_sql("DROP EXTENSION IF EXISTS dblink")


def test_a_privileged_user_without_a_reader_login_runs_nothing(engine, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the server does not let termx_reader in, a superuser's session is never used for the query."""
    refused = DatabaseUnavailable("cannot connect to postgresql://termx_reader@x/db: no pg_hba.conf entry")
    monkeypatch.setattr(sqlfiles, "_reader_engine", lambda url: refused)
    with pytest.raises(InputError, match="will not run a query as the privileged user.*no pg_hba.conf entry"):
        run_sql(engine, _sql_file(tmp_path, "SELECT 1 AS one"))


# -- a squatter on the port of a stopped embedded server ------------------------------------------------------

@contextmanager
def cleartext_squatter(family: int, address: str | tuple[str, int]) -> Iterator[list[bytes]]:
    """A listener speaking just enough PostgreSQL to ask each client for its password in clear text
    (AuthenticationCleartextPassword); yields the list of what each client sent after the request."""
    server = socket.socket(family)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # the stopped server's port may be in TIME_WAIT
    server.bind(address)
    server.listen()
    received: list[bytes] = []

    def serve_one(conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            while True:
                (length,) = struct.unpack("!i", _read(conn, 4))
                body = _read(conn, length - 4)
                if struct.unpack("!i", body[:4])[0] in (80877103, 80877104):  # SSLRequest, GSSENCRequest
                    conn.sendall(b"N")
                    continue
                break
            conn.sendall(b"R" + struct.pack("!ii", 8, 3))  # AuthenticationCleartextPassword
            sent = b""
            try:
                while chunk := conn.recv(4096):
                    sent += chunk
            except OSError:
                pass
            received.append(sent)

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=serve_one, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield received
    finally:
        server.close()


def _read(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise OSError("closed")
        data += chunk
    return data


# -- folders another user made or can write -----------------------------------------------------------------

@pytest.fixture
def other_user() -> Iterator[pwd.struct_passwd]:
    """A throwaway unprivileged local user, removed afterwards."""
    if os.geteuid() != 0 or shutil.which("useradd") is None:
        pytest.skip("needs root and useradd to create another local user")
    name = f"tx{uuid.uuid4().hex[:8]}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True,
                   capture_output=True)
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", name], check=False, capture_output=True)


def _db_start_refused(*expected: str) -> None:
    """`termx db start` fails with one line naming `expected`, and no server runs."""
    result = runner.invoke(app, ["db", "start"])
    assert result.exit_code == 1 and len(result.stderr.splitlines()) == 1, result.output
    assert all(text in result.stderr for text in expected), result.stderr


def test_root_refuses_a_data_directory_another_user_made(tmp_path: Path,
                                                         other_user: pwd.struct_passwd) -> None:
    """Run as its owner, the cluster would be theirs (pg_hba.conf): termx starts nothing and says why."""
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    pgdata = home / "pgdata"
    pgdata.mkdir(mode=0o700)
    os.chown(pgdata, other_user.pw_uid, other_user.pw_gid)
    with termx_home(home):
        _db_start_refused(str(pgdata.resolve()), f"belongs to user '{other_user.pw_name}'", "chown")
        with pytest.raises(DatabaseUnavailable, match="belongs to"):
            embedded.embedded_url()
        assert list(pgdata.iterdir()) == [] and not embedded.status().running
        assert pgdata.stat().st_uid == other_user.pw_uid


def test_a_termx_home_others_can_write_or_own_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with termx_home(home):
        for mode in (0o777, 0o770, 0o702):
            os.chmod(home, mode)
            _db_start_refused(str(home.resolve()), "can be written by other users", "chmod go-w")
        os.chmod(home, 0o700)
        assert not (home / "pgdata").exists()


def test_a_termx_home_of_another_user_is_refused(tmp_path: Path, other_user: pwd.struct_passwd) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    (theirs / "home").mkdir(mode=0o700)
    for owned, refused in ((theirs / "home", theirs / "home"), (theirs, theirs)):  # the home, then a parent
        os.chown(owned, other_user.pw_uid, other_user.pw_gid)
        with termx_home(theirs / "home"):
            _db_start_refused(f"{refused.resolve()} belongs to user '{other_user.pw_name}'")
            os.chown(owned, 0, 0)  # before termx_home's own `db stop` at the end of the block
    assert not (theirs / "home" / "pgdata").exists()


def test_a_termx_home_others_control_gets_no_cache_of_an_external_database(  # type: ignore[no-untyped-def]
        engine, db_env: str, tmp_path: Path, other_user: pwd.struct_passwd, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a database URL of its own termx still writes its look-up cache under TERMX_HOME: a home another user
    can write or owns is refused there too, so nothing is written through the link to this user's folder that
    they left in it (a link to a file of root's was overwritten with the sweep's marker before)."""
    name = f"cachehome-{uuid.uuid4().hex[:8]}"
    index_documents(engine, name, [Document("d1", "alpha beta alpha")], Unit.byte, 2)
    theirs, victim = tmp_path / "theirs", tmp_path / "victim"
    theirs.mkdir()
    victim.mkdir(mode=0o700)
    (theirs / "cache").symlink_to(victim)
    monkeypatch.setenv("TERMX_HOME", str(theirs))
    os.chmod(theirs, 0o777)
    for expected in ("can be written by other users", f"belongs to user '{other_user.pw_name}'"):
        result = runner.invoke(app, ["stats", name, "alpha"])
        assert result.exit_code == 1 and expected in result.stderr, result.output
        assert len(result.stderr.splitlines()) == 1 and list(victim.iterdir()) == []
        os.chown(theirs, other_user.pw_uid, other_user.pw_gid)
        os.chmod(theirs, 0o755)
    os.chown(theirs, 0, 0)


@contextmanager
def _throwaway_role(engine: sa.Engine, *grants: str) -> Iterator[sa.URL]:
    """The URL of a LOGIN role of its own (dropped afterwards), member of `grants`, on `engine`'s database."""
    role, password = f"termx_test_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    with engine.begin() as conn:
        conn.exec_driver_sql(f"CREATE ROLE {role} LOGIN NOINHERIT PASSWORD '{password}'")
        for granted in grants:
            conn.exec_driver_sql(f"GRANT {granted} TO {role}")
    try:
        yield engine.url.set(username=role, password=password)
    finally:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"DROP ROLE {role}")


def test_a_reader_with_a_privileged_membership_is_refused_and_a_plain_user_runs_itself(  # type: ignore[no-untyped-def]
        engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Throwaway roles stand in for termx_reader (shared by the whole server, so left alone here)."""
    query = _sql_file(tmp_path, "SELECT session_user AS s")
    with _throwaway_role(engine, "pg_read_server_files") as member:
        reader = sa.create_engine(member)
        monkeypatch.setattr(sqlfiles, "_readers", {engine.url.render_as_string(hide_password=False): reader})
        monkeypatch.setattr(sqlfiles, "READER_ROLE", member.username)
        with pytest.raises(InputError, match=f"{member.username} is a superuser or a member of pg_read_server_files"):
            run_sql(engine, query)
        reader.dispose()  # its pooled session, before the role goes
    # where the reader cannot log in, an unprivileged termx user runs the query in its own session
    monkeypatch.setattr(sqlfiles, "_reader_engine", lambda url: DatabaseUnavailable("cannot connect to x: no"))
    with _throwaway_role(engine) as plain:
        own = sa.create_engine(plain)
        assert run_sql(own, query) == [{"s": plain.username}]
        own.dispose()


def _backends(engine: sa.Engine, tag: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.text("SELECT count(*) FROM pg_stat_activity WHERE query LIKE :q "
                                        "AND pid <> pg_backend_pid()"), {"q": f"%{tag}%"}).scalar_one())


def test_a_killed_sql_command_leaves_no_query_running(engine, database_url: str,  # type: ignore[no-untyped-def]
                                                      tmp_path: Path) -> None:
    """kill -9 of `termx sql` ends its query on the server within seconds (client_connection_check_interval)
    instead of leaving `pg_sleep(600)` to run its ten minutes with nobody waiting for it."""
    tag = f"killed_{uuid.uuid4().hex[:8]}"
    query = _sql_file(tmp_path, f"SELECT pg_sleep(600) AS {tag}")
    env = {**os.environ, "TERMX_DATABASE_URL": database_url, "TERMX_DAEMON": "0"}
    termx = str(Path(sys.executable).parent / "termx")
    command = subprocess.Popen([termx, "sql", str(query)], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):  # until the query runs (the command starts in a few seconds)
            if _backends(engine, tag) or command.poll() is not None:
                break
            time.sleep(0.1)
        assert _backends(engine, tag) == 1 and command.poll() is None
        command.kill()
        command.wait()
        for _ in range(200):
            if not _backends(engine, tag):
                break
            time.sleep(0.1)
        assert _backends(engine, tag) == 0
    finally:
        command.kill()
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE :q "
                                 "AND pid <> pg_backend_pid()"), {"q": f"%{tag}%"})


def test_the_reader_never_logs_in_with_termx_own_password() -> None:
    """The analyst role's URL keeps host, port, database and query of termx's URL, but not its password."""
    from termx.storage.sqlfiles import READER_ROLE, reader_url

    url = reader_url("postgresql+psycopg://owner:s3cret@db.example:6543/termx?sslmode=require")
    assert (url.username, url.password, url.host, url.port, url.database) == (
        READER_ROLE, None, "db.example", 6543, "termx")
    assert dict(url.query) == {"sslmode": "require"}
    assert "s3cret" not in url.render_as_string(hide_password=False)
