"""termx's own SQL statements, by name, in sql/internal/<group>.sql (one file per module group), with SQLAlchemy's
`:name` parameters on either connection termx uses: a raw psycopg one (termx.storage.transactions) or an SQLAlchemy one.

A statement follows a `-- name: NAME` line and runs as `run_internal(conn, "<group>.<NAME>", param=value, ...)`.
A statement that names a table made from a shard id (the partition life cycle, termx.storage.partitions) has
`{field}` slots instead, filled with psycopg.sql.Identifier/Literal by `composed` and run by `run_composed`.
Comments are removed (as for the analyst queries of termx.storage.sqlfiles, which shares strip_comments and BIND_RE).
"""

from __future__ import annotations

import functools
import re
from typing import Any, overload

import psycopg
import sqlalchemy as sa
from psycopg import sql

from termx.storage.paths import resource

BIND_RE = re.compile(r"(?<![:\w\\]):(\w+)(?!:)")  # exactly what sqlalchemy.text() treats as a parameter


def strip_comments(text: str) -> str:
    """The SQL without `--` comments (quoted strings and identifiers are kept intact)."""
    out: list[str] = []
    k, quote = 0, ""
    while k < len(text):
        ch = text[k]
        if quote:
            out.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            out.append(ch)
        elif text.startswith("--", k):
            end = text.find("\n", k)
            k = len(text) if end < 0 else end
            continue
        else:
            out.append(ch)
        k += 1
    return "".join(out)


NAME_LINE_RE = re.compile(r"^--\s*name:\s*(\w+)\s*$", re.M)


@functools.cache
def internal_statements(group: str) -> dict[str, str]:
    """sql/internal/<group>.sql: termx's own statements, each after a `-- name: NAME` line, in SQLAlchemy's
    `:name` parameter style; by name, comments removed. Not analyst queries: `termx sql --list` shows none."""
    text = (resource("sql") / "internal" / f"{group}.sql").read_text(encoding="utf-8")
    parts = NAME_LINE_RE.split(text)[1:]  # name, body, name, body, ...
    bodies = zip(parts[::2], parts[1::2], strict=True)
    return {name: strip_comments(body).strip().rstrip(";").strip() for name, body in bodies}


@functools.cache
def _pyformat(statement: str) -> str:
    """`statement` with its `:name` parameters as psycopg's `%(name)s` (a literal % doubled)."""
    return BIND_RE.sub(r"%(\1)s", statement.replace("%", "%%"))


@overload
def run_internal(conn: psycopg.Connection[Any], ref: str, **params: Any) -> psycopg.Cursor[Any]: ...
@overload
def run_internal(conn: sa.Connection, ref: str, **params: Any) -> Any: ...  # a CursorResult (rows untyped)
def run_internal(conn: Any, ref: str, **params: Any) -> Any:
    """Run the internal statement `ref` ("group.name", see internal_statements) with `params` bound by name, on a
    raw psycopg connection (termx.storage.transactions) or an SQLAlchemy one; the driver's cursor or result."""
    group, name = ref.split(".")
    statement = internal_statements(group)[name]
    if isinstance(conn, psycopg.Connection):
        return conn.execute(_pyformat(statement), params) if params else conn.execute(statement)
    return conn.execute(sa.text(statement), params)


def run_internal_many(conn: psycopg.Connection[Any], ref: str, rows: list[dict[str, Any]]) -> None:
    """Run the internal statement `ref` once per row of `rows` (bound by name) on a raw psycopg connection."""
    group, name = ref.split(".")
    conn.cursor().executemany(_pyformat(internal_statements(group)[name]), rows)


def composed(ref: str, **parts: sql.Composable) -> sql.Composed:
    """The internal statement `ref` with its `{field}` slots filled by `parts` (psycopg.sql.Identifier or Literal
    values built from integers and known table names, never from user input)."""
    group, name = ref.split(".")
    return sql.SQL(internal_statements(group)[name]).format(**parts)  # type: ignore[arg-type]


def run_composed(conn: psycopg.Connection[Any], ref: str, **parts: sql.Composable) -> psycopg.Cursor[Any]:
    """Run the internal statement `ref` with its `{field}` slots filled by `parts` (see `composed`)."""
    return conn.execute(composed(ref, **parts))
