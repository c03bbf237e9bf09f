"""Alembic environment: the engine comes from termx.storage.db (cfg.attributes["engine"]), never from an ini file."""

from __future__ import annotations

from alembic import context

from termx.storage.db import SCHEMA

engine = context.config.attributes["engine"]

with engine.begin() as connection:
    connection.exec_driver_sql(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    context.configure(connection=connection, version_table_schema=SCHEMA, transactional_ddl=True)
    with context.begin_transaction():
        context.run_migrations()
