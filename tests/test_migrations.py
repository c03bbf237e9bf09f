"""Every migration upgrades from an empty database and downgrades back to nothing."""

from __future__ import annotations

import uuid

import sqlalchemy as sa

from termx.storage.db import current, downgrade, heads, resolve_url, upgrade


def test_upgrade_downgrade_upgrade(database_url: str) -> None:
    server = resolve_url(database_url)
    name = f"termx_mig_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    engine = sa.create_engine(server.set(database=name))
    try:
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
    finally:
        engine.dispose()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()
