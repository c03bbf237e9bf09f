"""One PostgreSQL database per test session (TERMX_TEST_DATABASE_URL or the embedded server), migrated to head."""

from __future__ import annotations

import importlib.util
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from termx.storage.db import get_engine, resolve_url
from tests.pgcluster import TestServer, pg_servers, require_fdw


@pytest.fixture(scope="session", autouse=True)
def termx_home(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A TERMX_HOME of this session: what termx writes (caches, the embedded server) never lands in ~/.termx."""
    home = str(tmp_path_factory.mktemp("termx-home"))
    os.environ["TERMX_HOME"] = home
    return home


@pytest.fixture(scope="session")
def database_url(termx_home: str) -> Iterator[str]:
    """A fresh, empty database for this session (on the embedded server in `termx_home` when no
    TERMX_TEST_DATABASE_URL is given); dropped at the end."""
    base = os.environ.get("TERMX_TEST_DATABASE_URL")
    server = resolve_url(base)
    name = f"termx_test_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = server.set(database=name).render_as_string(hide_password=False)
    yield url
    get_engine.cache_clear()
    admin.dispose()  # its connection may be gone: a command may have stopped and restarted the embedded server
    admin = sa.create_engine(resolve_url(base), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.dispose()


@pytest.fixture(scope="session")
def engine(database_url: str) -> Engine:
    """The migrated engine of the session database."""
    return get_engine(database_url)


@pytest.fixture
def db_env(database_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Point the CLI at the session database through TERMX_DATABASE_URL."""
    monkeypatch.setenv("TERMX_DATABASE_URL", database_url)
    return database_url


@pytest.fixture
def shared_data() -> Callable[..., Path]:
    """`shared_data("en/acter", ...)`: the shared data folder (found as bench/_data.py finds it) holding those paths.

    A test that reads real data skips when a path is missing, so developers without the data still get a clean run;
    with TERMX_REQUIRE_DATA=1 (set by .ci/run) it fails instead: a published figure must not pass CI unchecked."""
    spec = importlib.util.spec_from_file_location("_data", Path(__file__).resolve().parents[1] / "bench" / "_data.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    root: Path = module.data_dir()

    def need(*relative: str) -> Path:
        missing = [p for p in relative if not (root / p).exists()]
        if missing:
            reason = f"no {', '.join(missing)} under {root}"
            if os.environ.get("TERMX_REQUIRE_DATA") == "1":
                pytest.fail(f"{reason} (TERMX_REQUIRE_DATA=1: the published figures must be checked)")
            pytest.skip(reason)
        return root

    return need


@pytest.fixture(scope="session")
def pg_pair(engine: Engine, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[TestServer]]:
    """Two throwaway PostgreSQL servers (tests/pgcluster.py) for every test of storage servers in the session,
    started on first use and stopped at the end; skipped with one reason where the session database's server has no
    postgres_fdw or no packaged server binaries exist. Each test module makes a database of its own on them
    (`create_database`) and leaves both servers running."""
    require_fdw(engine)
    with pg_servers(tmp_path_factory.mktemp("pgpair"), 2) as servers:
        yield servers
