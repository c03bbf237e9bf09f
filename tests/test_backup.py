"""`termx db dump` / `termx db restore`: the bundled pg_dump and pg_restore, a round trip into a fresh database on
the test server (PostgreSQL 15 in CI: dumped and restored by the bundled 18 tools) gives every look-up unchanged."""

from __future__ import annotations

import os
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from termx.cli import app
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.db import get_engine, resolve_url
from termx.storage.indexer import index_documents

runner = CliRunner()


@pytest.fixture
def fresh_database(database_url: str) -> Iterator[sa.engine.URL]:
    """A database of this test, on the test server, dropped at the end (its URL makes more of them)."""
    server = resolve_url(os.environ.get("TERMX_TEST_DATABASE_URL") or database_url)
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    made: list[str] = []

    def make() -> str:
        name = f"termx_backup_{uuid.uuid4().hex[:10]}"
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        made.append(name)
        return server.set(database=name).render_as_string(hide_password=False)

    yield make  # type: ignore[misc]
    get_engine.cache_clear()
    with admin.connect() as conn:
        for name in made:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.dispose()


def _lookups(url: str) -> list[str]:
    outputs = []
    for args in (["corpora", "--shards"], ["stats", "hiho", "H", "Hi", "Ho", "Hi_Ho", "_", "xyz"],
                 ["stats", "words", "the cat", "cat", "sat", "dog"], ["class", "hiho", "Hi_"],
                 ["concordance", "words", "cat"], ["terms", "hiho", "--min-df", "1", "--min-len", "1"],
                 ["terms", "words", "--rank", "ridf", "--min-df", "1", "--min-len", "1"],
                 ["sql", "most_adaptive", "--param", "corpus=hiho"]):
        result = runner.invoke(app, [*args, "--db", url, "--format", "json"])
        assert result.exit_code == 0, (args, result.output)
        outputs.append(result.stdout)
    return outputs


def test_dump_and_restore_into_a_fresh_database_keep_every_lookup(fresh_database, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    source = fresh_database()
    engine = get_engine(source)
    index_documents(engine, "hiho", [Document("d0", "Hi_Ho_Hi_Ho"), Document("d1", "Hi_Ho"), Document("d2", "Hi")],
                    Unit.byte, 4)
    docs = [Document(f"w{k}", f"the cat sat on the mat {k}. The cat! A dog.") for k in range(6)]
    index_documents(engine, "words", docs, Unit.word, 3, shard_size=3)  # two shards: two class tables
    before = _lookups(source)

    backup = tmp_path / "termx.dump"
    result = runner.invoke(app, ["db", "dump", str(backup), "--db", source])
    assert result.exit_code == 0, result.output
    assert backup.read_bytes()[:5] == b"PGDMP" and "wrote" in result.stderr
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600  # the corpora's text, private like the database
    assert not [p for p in tmp_path.iterdir() if p.name != backup.name]  # no partial file left beside it

    target = fresh_database()
    result = runner.invoke(app, ["db", "restore", str(backup), "--db", target])
    assert result.exit_code == 0, result.output
    assert "restored 2 corpora: hiho, words" in result.stderr and "refused" not in result.stderr
    assert _lookups(target) == before
    with get_engine(target).connect() as conn:  # the analyst role reads the restored tables as before
        assert conn.exec_driver_sql("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                                    " WHERE n.nspname = 'termx' AND c.relkind IN ('r', 'p') AND NOT "
                                    "has_table_privilege('termx_reader', c.oid, 'SELECT')").scalar_one() == 0

    result = runner.invoke(app, ["db", "restore", str(backup), "--db", target])  # never over existing data
    assert result.exit_code == 1 and "already holds termx data" in result.stderr
    assert "Traceback" not in result.output and _lookups(target) == before
    junk = tmp_path / "junk.dump"
    junk.write_text("not a dump")
    result = runner.invoke(app, ["db", "restore", str(junk), "--db", fresh_database()])
    assert result.exit_code == 1 and "not a dump made by `termx db dump`" in result.stderr


def test_restore_makes_the_analyst_role_a_server_lacks(engine, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from termx.storage import backup

    role = f"termx_test_reader_{uuid.uuid4().hex[:8]}"  # a stand-in: termx_reader is shared by the whole server
    monkeypatch.setattr(backup, "READER_ROLE", role)
    try:
        backup._ensure_reader_role(engine)
        backup._ensure_reader_role(engine)  # there now: nothing to do
        with engine.connect() as conn:
            made = conn.execute(sa.text("SELECT rolcanlogin, rolinherit, rolsuper, (SELECT count(*) FROM "
                                        "pg_auth_members m WHERE m.member = r.oid) FROM pg_roles r WHERE rolname = :r"),
                                {"r": role}).one()
        assert tuple(made) == (True, False, False, 0)  # as migrations 0019 + 0023 make termx_reader
    finally:
        with engine.connect() as conn:
            conn.exec_driver_sql(f'DROP ROLE IF EXISTS "{role}"')
            conn.commit()
