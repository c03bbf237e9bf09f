"""Binary COPY of rows of Python values (`copy_binary`), every writer's one way to bulk-load rows, and the
constants of the binary format (the class table's rows are encoded from NumPy arrays in termx.storage.classrows,
so this module needs no numba and look-ups that only read REP_MAX_BYTES stay light)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x00"
COPY_TRAILER = b"\xff\xff"
REP_MAX_BYTES = 1000  # keeps every rep well under PostgreSQL's b-tree entry limit (~2700 bytes)
INT4_OID = 23


def copy_binary(conn: psycopg.Connection, table: str, columns: Sequence[str], types: Sequence[str],
                rows: Iterable[Sequence[Any]]) -> int:
    """COPY `rows` into `table` ("schema.name", a name the code chooses) in PostgreSQL's binary format, every
    writer's one way to bulk-load rows (no text escaping); `types` are the columns' PostgreSQL types. Returns
    the number of rows written."""
    from psycopg import sql

    from termx.storage.statements import composed

    statement = composed("database.copy_rows", table=sql.Identifier(*table.split(".")),
                         columns=sql.SQL(", ").join(map(sql.Identifier, columns)))
    n = 0
    with conn.cursor().copy(statement) as copy:
        copy.set_types(list(types))
        for row in rows:
            copy.write_row(row)
            n += 1
    return n
