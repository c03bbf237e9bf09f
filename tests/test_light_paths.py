"""The quick paths of start-up: the schema check without Alembic still migrates an old database, look-ups and
listings load neither numba, SciPy nor Alembic (what made `termx stats` 40x slower than psql), and the cache sweep
of every command reads the folders only after something changed."""

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

from termx.storage.db import current, downgrade, get_engine, heads, resolve_url, shipped_heads, upgrade
from termx.storage.paths import sweep_cache, write_owner


@pytest.fixture
def fresh_url(database_url: str) -> Iterator[str]:
    """A database of its own, dropped afterwards."""
    server = resolve_url(database_url)
    name = f"termx_light_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def test_shipped_heads_are_alembics(engine: Engine) -> None:
    assert shipped_heads() == heads(engine)
    assert current(engine) == set(shipped_heads())


def test_a_command_migrates_a_database_one_revision_behind(fresh_url: str) -> None:
    engine = sa.create_engine(fresh_url)
    try:
        upgrade(engine)
        (head,) = shipped_heads()
        downgrade(engine, "-1")
        behind = current(engine)
        assert behind and behind != {head}
        done = subprocess.run([sys.executable, "-m", "termx", "corpora", "--db", fresh_url, "--format", "json"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == []
        assert current(engine) == {head}
    finally:
        engine.dispose()


def test_a_fresh_database_is_migrated_by_get_engine(fresh_url: str) -> None:
    get_engine(fresh_url)
    engine = sa.create_engine(fresh_url)
    try:
        assert current(engine) == heads(engine)
    finally:
        engine.dispose()


def test_termx_sessions_run_without_jit_and_keep_the_urls_options(fresh_url: str) -> None:
    """JIT compiles every partition's scan of a plan (docs/scale-out.md, "Many shards in one database"): termx's
    sessions turn it off, and options given in the URL still apply."""
    with_options = sa.engine.make_url(fresh_url).update_query_dict({"options": "-c work_mem=7MB"})
    for url, work_mem in ((fresh_url, None), (with_options.render_as_string(hide_password=False), "7MB")):
        with get_engine(url).connect() as conn:
            assert conn.execute(sa.text("SHOW jit")).scalar() == "off"
            if work_mem:
                assert conn.execute(sa.text("SHOW work_mem")).scalar() == work_mem


_PROBE = """
import sys
from termx.cli import main
sys.argv = ["termx", *sys.argv[1:]]
try:
    main()
except SystemExit as stop:
    assert not stop.code, stop.code
heavy = {m.split(".")[0] for m in sys.modules if m.split(".")[0] in ("numba", "scipy", "alembic")}
heavy |= {"sqlalchemy.orm"} & set(sys.modules)
print("HEAVY:" + ",".join(sorted(heavy)), file=sys.stderr)
"""


@pytest.mark.parametrize("argv", [["--help"], ["corpora"], ["stats", "tiny", "ab"], ["stats", "tiny", "zz"]])
def test_light_commands_load_no_heavy_modules(argv: list[str], tiny_corpus: str, db_env: str) -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "HEAVY:", f"{argv}: {done.stderr.strip()}"


@pytest.fixture
def tiny_corpus(db_env: str) -> str:
    """A small byte corpus named `tiny` (its cache filled, so a look-up reads it like any later command)."""
    from termx.index.ingest import Document
    from termx.index.units import Unit
    from termx.storage.index_loader import load_shards
    from termx.storage.indexer import index_documents

    engine = get_engine(db_env)
    index_documents(engine, "tiny", [Document("a", "abcab abc"), Document("b", "cabab")], Unit.byte, 3,
                    replace=True)
    load_shards(engine, "tiny")
    return "tiny"


def test_cache_sweep_reads_owners_only_after_a_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERMX_HOME", str(tmp_path))
    url = "postgresql://u@h/db"
    for n in (1, 2):
        (tmp_path / "cache" / f"{n}-x").mkdir(parents=True)
        write_owner(tmp_path / "cache" / f"{n}-x", url, n, "t")
    assert sweep_cache(url, {(1, "t")}) == [tmp_path / "cache" / "2-x"]
    write_owner(tmp_path / "cache" / "1-x", url, 1, "stale")  # rewritten in place: the folder is unchanged
    assert sweep_cache(url, {(1, "t")}) == []  # nothing changed since the last sweep: no owner was read
    late = tmp_path / "cache" / "3-x"  # filled by a reader with an old snapshot after the sweep
    late.mkdir()
    write_owner(late, url, 3, "t")
    assert sorted(sweep_cache(url, {(1, "t")})) == [tmp_path / "cache" / "1-x", late]
    (tmp_path / "cache" / "4-x").mkdir()
    write_owner(tmp_path / "cache" / "4-x", url, 4, "t")
    assert sweep_cache(url, {(4, "t")}) == []  # the live builds changed: read again, nothing stale
    assert sweep_cache(url, set()) == [tmp_path / "cache" / "4-x"]
