"""`termx servers add|list|remove` (issue 30, docs/scale-out.md "When one PostgreSQL server is not enough") against
two throwaway PostgreSQL servers of tests/pgcluster.py, with the session database as the coordinator: a server is
checked and its schema upgraded, its password lives only in the postgres_fdw user mapping (never printed, never in
termx's tables), an unreachable one is reported in one line, removal is refused while a corpus has shards there.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from termx.cli import app
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.db import current, downgrade, heads, resolve_url, shipped_heads, upgrade
from termx.storage.indexer import index_documents
from tests.pgcluster import TestServer
from tests.serverutil import termx_env, termx_home

runner = CliRunner()


DB = "servers_t"  # this module's database on the session's two test servers (conftest.pg_pair)


@pytest.fixture(scope="module")
def extra_servers(pg_pair: list[TestServer]) -> Iterator[list[TestServer]]:
    """The session's two running test servers, each with an empty database DB."""
    for server in pg_pair:
        server.create_database(DB)
    yield pg_pair


def _invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _listed() -> dict[str, dict]:  # type: ignore[type-arg]
    code, out, err = _invoke("servers", "list", "--format", "json")
    assert code == 0, err
    return {row["name"]: row for row in json.loads(out)}


def _one_line_error(code: int, err: str) -> str:
    assert code == 1, err
    assert len(err.splitlines()) == 1 and err.startswith("Error: "), err
    return err


def _termx_text(engine: Engine) -> str:
    """Every row of every termx table of the coordinator as text (to look for a leaked password)."""
    with engine.connect() as conn:
        tables = conn.execute(sa.text("SELECT relname FROM pg_class WHERE relnamespace = 'termx'::regnamespace "
                                      "AND relkind IN ('r', 'p', 'v')")).scalars().all()
        return "\n".join(str(conn.execute(sa.text(f'SELECT t::text FROM termx."{t}" t')).scalars().all())
                         for t in tables if not t.startswith("server_status_"))


def test_add_list_remove(engine: Engine, db_env: str, extra_servers: list[TestServer]) -> None:
    a, b = extra_servers
    code, out, err = _invoke("servers", "add", "shard-a", a.url(DB))
    assert code == 0, err
    code, _, err2 = _invoke("servers", "add", "shard_b", b.url(DB))
    assert code == 0, err2
    try:
        rows = _listed()
        assert set(rows) == {"shard-a", "shard_b"}
        for row, server in ((rows["shard-a"], a), (rows["shard_b"], b)):
            assert row["url"] == server.url(DB, with_password=False)
            assert row["reachable"] is True and row["error"] is None
            assert row["shards"] == 0 and row["corpora"] == []
            assert isinstance(row["bytes"], int) and row["bytes"] > 100_000  # the remote termx schema's tables
            remote = sa.create_engine(resolve_url(server.url(DB)))
            assert current(remote) == set(shipped_heads())  # upgraded by `add`
            remote.dispose()
        for fmt in ("table", "csv", "json"):
            code, listing, errs = _invoke("servers", "list", "--format", fmt)
            assert code == 0 and "shard-a" in listing and "shard_b" in listing
            assert a.password not in listing + errs and b.password not in listing + errs
        assert a.password not in out + err and b.password not in err2
        assert a.password not in _termx_text(engine) and b.password not in _termx_text(engine)
        with engine.connect() as conn:  # the password lives in the user mapping, and only there
            options = conn.execute(sa.text("SELECT umoptions FROM pg_user_mappings WHERE srvname = 'termx_shard-a' "
                                           "AND usename = current_user")).scalar_one()
        assert f"password={a.password}" in options and "user=postgres" in options

        _one_line_error(*_invoke("servers", "add", "shard-a", b.url(DB))[::2])  # the name is taken
    finally:
        for name in ("shard-a", "shard_b"):
            assert _invoke("servers", "remove", name)[0] == 0
    assert _listed() == {}
    with engine.connect() as conn:
        left = conn.execute(sa.text("SELECT count(*) FROM pg_foreign_server WHERE srvname LIKE 'termx\\_%'")).scalar()
    assert left == 0


@pytest.mark.parametrize("name", ["Shard", "1a", "a b", 'a"; DROP TABLE termx.corpus; --', "x" * 41, ""])
def test_bad_names_are_refused_in_one_line(db_env: str, extra_servers: list[TestServer], name: str) -> None:
    err = _one_line_error(*_invoke("servers", "add", name, extra_servers[0].url(DB))[::2])
    assert "not a server name" in err
    assert name == "" or _one_line_error(*_invoke("servers", "remove", name)[::2])
    assert _listed() == {}


@pytest.mark.parametrize("url", ["mysql://u@h/d", "postgresql://h/d", "postgresql://u@h", "not a url",
                                 "postgresql://u@h/d?sslrootcert=/etc/passwd"])
def test_bad_urls_are_refused_in_one_line(db_env: str, url: str) -> None:
    _one_line_error(*_invoke("servers", "add", "s1", url)[::2])
    assert _listed() == {}


def test_unreachable_server(engine: Engine, db_env: str, extra_servers: list[TestServer]) -> None:
    """Refused at `add` when down (nothing registered); listed as unreachable when it stops later."""
    a = extra_servers[0]
    closed = f"postgresql://postgres:{a.password}@127.0.0.1:1/termx"
    err = _one_line_error(*_invoke("servers", "add", "gone", closed)[::2])
    assert "cannot reach server 'gone'" in err and a.password not in err
    assert _listed() == {}
    with engine.connect() as conn:
        gone = "SELECT count(*) FROM pg_foreign_server WHERE srvname = 'termx_gone'"
        assert conn.execute(sa.text(gone)).scalar() == 0
    wrong = a.url(DB).replace(a.password, "wrong")
    _one_line_error(*_invoke("servers", "add", "wrong", wrong)[::2])
    assert _listed() == {}

    assert _invoke("servers", "add", "shard-a", a.url(DB))[0] == 0
    try:
        a.stop()
        code, out, err = _invoke("servers", "list", "--format", "json")
        assert code == 0
        row = json.loads(out)[0]
        assert row["reachable"] is False and row["bytes"] is None and "Connection refused" in row["error"]
        assert "shard-a is unreachable" in err and len(err.splitlines()) == 1
        a.start()
        assert _listed()["shard-a"]["reachable"] is True
    finally:
        if not a.running():
            a.start()
        assert _invoke("servers", "remove", "shard-a")[0] == 0


def test_remove_is_refused_while_a_corpus_has_shards_there(engine: Engine, db_env: str,
                                                           extra_servers: list[TestServer]) -> None:
    assert _invoke("servers", "add", "shard-a", extra_servers[0].url(DB))[0] == 0
    corpus = f"srv_{uuid.uuid4().hex[:6]}"
    index_documents(engine, corpus, [Document("d1", "to be or not to be"), Document("d2", "be ok")],
                    unit=Unit.byte, shard_size=10)
    try:
        with engine.begin() as conn:  # the record a foreign shard's build makes (docs/scale-out.md)
            conn.execute(sa.text("UPDATE termx.shard SET server = 'shard-a' WHERE corpus_id = "
                                 "(SELECT id FROM termx.corpus WHERE name = :n)"), {"n": corpus})
        row = _listed()["shard-a"]
        assert row["shards"] == 2 and row["corpora"] == [corpus]
        err = _one_line_error(*_invoke("servers", "remove", "shard-a")[::2])
        assert f"2 of '{corpus}'" in err and "termx drop" in err
        assert "shard-a" in _listed()
    finally:
        assert _invoke("drop", corpus)[0] == 0
    assert _invoke("servers", "remove", "shard-a")[0] == 0
    _one_line_error(*_invoke("servers", "remove", "shard-a")[::2])  # no longer registered


def test_downgrade_drops_the_servers_fdw_objects(database_url: str, extra_servers: list[TestServer]) -> None:
    """0027's downgrade drops every registered server's postgres_fdw server, mapping and foreign table."""
    from termx.storage.servers import add_server

    server = resolve_url(database_url)
    name = f"termx_srv_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    coordinator = sa.create_engine(server.set(database=name))
    try:
        upgrade(coordinator)
        add_server(coordinator, "shard-a", extra_servers[0].url(DB))
        downgrade(coordinator, "0026_store_min_freq")
        with coordinator.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM pg_foreign_server")).scalar() == 0
            assert conn.execute(sa.text("SELECT to_regclass('termx.server')")).scalar() is None
        upgrade(coordinator)
        assert current(coordinator) == heads(coordinator)
    finally:
        coordinator.dispose()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def test_embedded_server_says_it_has_no_postgres_fdw(tmp_path: Path) -> None:
    """The embedded PostgreSQL is built without postgres_fdw: `add` says so in one line, `list` is empty."""
    # a process of its own: nothing an earlier test left in this one (an engine, a server) can stand in for the
    # embedded server
    env = {**termx_env(), "TERMX_HOME": str(tmp_path / "home")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "termx", *args], env=env, capture_output=True, text=True,
                              timeout=300, cwd=tmp_path)

    try:
        added = run("-q", "servers", "add", "shard-a", "postgresql://u@127.0.0.1:1/termx")
        err = _one_line_error(added.returncode, added.stderr)
        assert "no postgres_fdw" in err and "embedded" in err and "--db" in err
        listed = run("servers", "list", "--format", "json")
        assert listed.returncode == 0 and json.loads(listed.stdout) == []
    finally:
        with termx_home(tmp_path / "home"):
            pass  # stops the embedded server of that home, if one was kept
