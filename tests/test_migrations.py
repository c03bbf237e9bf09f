"""Every migration upgrades from an empty database and downgrades back to nothing; a migration that replaces
functions restores the replaced ones on the way down."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.db import current, downgrade, heads, resolve_url, upgrade
from termx.storage.indexer import index_documents


@pytest.fixture
def empty_engine(database_url: str) -> Iterator[Engine]:
    """An engine on a new, empty database of the session's server (dropped afterwards)."""
    server = resolve_url(database_url)
    name = f"termx_mig_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    engine = sa.create_engine(server.set(database=name))
    try:
        yield engine
    finally:
        engine.dispose()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def test_upgrade_downgrade_upgrade(empty_engine: Engine) -> None:
    engine = empty_engine
    upgrade(engine)
    assert current(engine) == heads(engine)
    tables = sa.inspect(engine).get_table_names(schema="termx")
    assert {"corpus", "shard", "document", "vocab", "class", "index_array"} <= set(tables)
    downgrade(engine, "base")
    assert current(engine) == set()
    assert set(sa.inspect(engine).get_table_names(schema="termx")) <= {"alembic_version"}
    with engine.connect() as conn:
        functions = conn.execute(sa.text("SELECT count(*) FROM pg_proc p JOIN pg_namespace n "
                                         "ON n.oid = p.pronamespace WHERE n.nspname = 'termx'")).scalar()
    assert functions == 0
    upgrade(engine)
    assert current(engine) == heads(engine)


FIND_EACH = "SELECT prosrc FROM pg_proc WHERE oid = 'termx._find_each(text, text, integer, boolean)'::regprocedure"
STATS = "SELECT pattern, freq, df, i, j, lbl, sil, shortest, longest FROM termx.stats('m', CAST(:p AS text[]))"


def test_0022_downgrade_restores_the_find_each_of_0021(empty_engine: Engine) -> None:
    """0022 replaced termx._find_each (each shard's own class table, by EXECUTE); downgrading it brings back 0021's
    function (the parent termx.class), which answers the same on a corpus of several shards. The corpus stores every
    repeated class (store_min_freq 2), as every corpus built before 0026 did: 0021's function has no cold path."""
    upgrade(empty_engine)
    docs = [Document(f"d{n}", text) for n, text in enumerate(["abracadabra", "cadabra abra", "bra bra", "zz"] * 4)]
    index_documents(empty_engine, "m", docs, Unit.byte, 3, shard_size=40, store_min_freq=2)
    patterns = ["abra", "bra", "a", "cad", "zz", "ab ", "nothere", "r"]

    def state() -> tuple[str, list[tuple[object, ...]]]:
        with empty_engine.connect() as conn:
            return (conn.execute(sa.text(FIND_EACH)).scalar_one(),
                    [tuple(r) for r in conn.execute(sa.text(STATS), {"p": patterns})])

    with empty_engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM termx.shard")).scalar_one() > 2
    new, answers = state()
    assert "'class_' || z.id" in new and answers[0][:2] == ("abra", 16)
    downgrade(empty_engine, "0021_shard_filter")
    old, old_answers = state()
    assert "'class_' || z.id" not in old and "FROM termx.class k" in old
    assert old_answers == answers
    upgrade(empty_engine)
    assert state() == (new, answers)


def test_0028_downgrade_restores_the_find_each_of_0027(empty_engine: Engine) -> None:
    """0028 replaced termx._find_each (a foreign shard's filter before its probe; the exact path's prefix class from
    the probe row); downgrading it brings back 0027's function, which answers the same, cold classes and patterns
    that occur once included (store_min_freq 4: the exact path is taken)."""
    upgrade(empty_engine)
    docs = [Document(f"d{n}", text) for n, text in enumerate(["abracadabra", "cadabra abra", "bra bra", "zz"] * 3
                                                               + ["abrx cadq", "once upon"])]
    index_documents(empty_engine, "m", docs, Unit.byte, 3, shard_size=40, store_min_freq=4)
    patterns = ["abra", "bra", "a", "cad", "zz", "ab ", "nothere", "r", "abrx", "cadq", "once", "upon", "abrac"]

    def state() -> tuple[str, list[tuple[object, ...]]]:
        with empty_engine.connect() as conn:
            return (conn.execute(sa.text(FIND_EACH)).scalar_one(),
                    [tuple(r) for r in conn.execute(sa.text(STATS), {"p": patterns})])

    new, answers = state()
    assert "near_p" in new and answers[0][:2] == ("abra", 12)
    downgrade(empty_engine, "0027_servers")
    old, old_answers = state()
    assert "near_p" not in old
    assert old_answers == answers
    upgrade(empty_engine)
    assert state() == (new, answers)
