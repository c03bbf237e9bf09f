"""Store a built shard in PostgreSQL in one transaction (COPY for bulk data) and read corpora back.

A build either commits whole or leaves the database exactly as it was: the corpus row, its shard,
documents, vocabulary, index arrays and the shard's class partition all go in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
import sqlalchemy as sa
from psycopg import sql
from sqlalchemy.engine import Engine

from termx.errors import CorpusExists, CorpusInUse, CorpusNotFound
from termx.index.build import DEFAULT_REP_CAP, Shard
from termx.index.units import token_strings
from termx.progress import Progress, Silent, Timings
from termx.storage.copyrows import class_rows, copy_binary
from termx.storage.db import driver_transaction

ARRAY_CHUNK_BYTES = 16 << 20


@dataclass
class CorpusInfo:
    """A corpus row as `termx corpora` shows it."""

    id: int
    name: str
    unit: str
    max_k: int
    tokens: int
    documents: int
    classes: int
    rep_cap: int
    params: dict[str, Any]
    timings: dict[str, float]
    created_at: str

    def as_row(self) -> dict[str, Any]:
        """The JSON/table row (stable field names scripts rely on)."""
        return {"name": self.name, "unit": self.unit, "tokens": self.tokens, "documents": self.documents,
                "classes": self.classes, "max_k": self.max_k, "rep_cap": self.rep_cap,
                "created_at": self.created_at}


def class_partition(shard_id: int) -> sql.Identifier:
    """The partition table of one shard's classes (named from the integer id, never from user input)."""
    return sql.Identifier("termx", f"class_{int(shard_id)}")


def save_corpus(engine: Engine, name: str, shard: Shard, replace: bool = False, params: dict[str, Any] | None = None,
                progress: Progress | None = None, timings: Timings | None = None,
                rep_cap: int = DEFAULT_REP_CAP, on_load: Callable[[], None] | None = None) -> CorpusInfo:
    """Write `shard` as corpus `name` (one shard) atomically; `replace` swaps out an existing corpus.

    `on_load` is called between the bulk loads (tests use it to inject a failure half-way).
    """
    progress = progress or Silent()
    timings = timings if timings is not None else Timings()
    try:
        with driver_transaction(engine) as conn:
            corpus_id, shard_id = _create_rows(conn, name, shard, replace, params or {}, rep_cap)
            with timings.stage("store documents", progress, len(shard.documents)) as advance:
                _copy_documents(conn, corpus_id, shard_id, shard, advance)
                _copy_vocab(conn, corpus_id, shard)
                _copy_arrays(conn, shard_id, shard)
            if on_load:
                on_load()
            with timings.stage("store classes", progress, len(shard.classes)) as advance:
                _copy_classes(conn, shard_id, shard, rep_cap, advance)
            with timings.stage("create indexes", progress):
                _index_and_attach(conn, shard_id)
            conn.execute("UPDATE termx.corpus SET timings = %s WHERE id = %s",
                         (json.dumps({k: round(v, 4) for k, v in timings.items()}), corpus_id))
    except psycopg.errors.UniqueViolation:
        raise _exists(name, "another build created it; use `replace=True`") from None
    except psycopg.errors.LockNotAvailable:
        raise _in_use(name) from None
    return get_corpus(engine, name)


def _create_rows(conn: psycopg.Connection, name: str, shard: Shard, replace: bool, params: dict[str, Any],
                 rep_cap: int) -> tuple[int, int]:
    _limit_lock_wait(conn)
    old = conn.execute("SELECT id FROM termx.corpus WHERE name = %s FOR UPDATE", (name,)).fetchone()
    if old is not None:
        if not replace:
            raise _exists(name)
        _delete(conn, old[0])
    ta = shard.tokens
    corpus_id = conn.execute(
        "INSERT INTO termx.corpus (name, unit, max_k, tokens, documents, classes, rep_cap, params)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
        (name, ta.unit.value, shard.max_k, ta.n_tokens, len(shard.documents), len(shard.classes), rep_cap,
         json.dumps(params)),
    ).fetchone()[0]  # type: ignore[index]
    shard_id = conn.execute(
        "INSERT INTO termx.shard (corpus_id, shard_no, tokens, documents, first_doc, classes)"
        " VALUES (%s, 0, %s, %s, 0, %s) RETURNING id",
        (corpus_id, ta.n_tokens, len(shard.documents), len(shard.classes)),
    ).fetchone()[0]  # type: ignore[index]
    return corpus_id, shard_id


def _exists(name: str, hint: str = "use `replace=True` to rebuild it, or termx drop") -> CorpusExists:
    return CorpusExists(f"corpus {name!r} already exists", hint, ("replace",))


def require_new_corpus(engine: Engine, name: str, replace: bool) -> None:
    """CorpusExists unless `replace` or no corpus has that name (checked before the work of a build)."""
    if not replace and any(c.name == name for c in list_corpora(engine)):
        raise _exists(name)


LOCK_TIMEOUT = "15s"


def _limit_lock_wait(conn: psycopg.Connection) -> None:
    """Replacing or dropping a corpus needs exclusive locks; fail after a while instead of hanging behind readers."""
    conn.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")


def _in_use(name: str) -> CorpusInUse:
    return CorpusInUse(f"corpus {name!r} is in use by another session",
                       f"waited {LOCK_TIMEOUT} for its lock; try again when it is idle")


def _delete(conn: psycopg.Connection, corpus_id: int) -> None:
    """Remove a corpus: drop its class partitions, then the rows (documents etc. cascade)."""
    for (shard_id,) in conn.execute("SELECT id FROM termx.shard WHERE corpus_id = %s", (corpus_id,)).fetchall():
        conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(class_partition(shard_id)))
    conn.execute("DELETE FROM termx.corpus WHERE id = %s", (corpus_id,))


def _copy_documents(conn: psycopg.Connection, corpus_id: int, shard_id: int, shard: Shard,
                    advance: Callable[[int], None]) -> None:
    ta = shard.tokens

    def rows() -> Iterator[tuple[Any, ...]]:
        for n, doc in enumerate(shard.documents):
            yield (corpus_id, n, shard_id, doc.name, doc.title, int(ta.doc_start[n]), int(ta.doc_len[n]), doc.text)
            if n % 1000 == 999:
                advance(1000)

    copy_binary(conn, "termx.document", ("corpus_id", "doc_no", "shard_id", "name", "title", "start", "length",
                                         "text"), ("int4", "int4", "int4", "text", "text", "int8", "int4", "text"),
                rows())
    advance(len(shard.documents) % 1000)


def _copy_vocab(conn: psycopg.Connection, corpus_id: int, shard: Shard) -> None:
    vocab = shard.tokens.vocab
    if vocab is None:
        return
    copy_binary(conn, "termx.vocab", ("corpus_id", "token_id", "token"), ("int4", "int4", "text"),
                ((corpus_id, n, token) for n, token in enumerate(vocab, 1)))


def _copy_arrays(conn: psycopg.Connection, shard_id: int, shard: Shard) -> None:
    """The arrays look-ups need, in chunks of raw little-endian bytes."""
    arrays = {"tokens": shard.tokens.tokens, "sa": shard.sa, "doc_start": shard.tokens.doc_start}

    def rows() -> Iterator[tuple[Any, ...]]:
        for name, arr in arrays.items():
            for row in array_chunks(arr):
                yield (shard_id, name, *row)

    copy_binary(conn, "termx.index_array", ("shard_id", "name", "dtype", "length", "chunk", "data"),
                ("int4", "text", "text", "int8", "int4", "bytea"), rows())


def array_chunks(arr: np.ndarray) -> Iterator[tuple[str, int, int, bytes]]:
    """(dtype, length, chunk number, bytes) rows of a 1-d array in raw little-endian chunks, for COPY."""
    arr = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))
    data = arr.data.cast("B")
    for chunk, at in enumerate(range(0, max(len(data), 1), ARRAY_CHUNK_BYTES)):
        yield arr.dtype.str, len(arr), chunk, bytes(data[at: at + ARRAY_CHUNK_BYTES])


def join_chunks(rows: Sequence[Any]) -> np.ndarray:
    """The array from its (dtype, length, data) rows in chunk order (the inverse of array_chunks)."""
    dtype, length = np.dtype(rows[0][0]), rows[0][1]
    arr = np.frombuffer(b"".join(r[2] for r in rows), dtype=dtype)
    assert len(arr) == length
    return arr.astype(dtype.newbyteorder("="), copy=False)


def _copy_classes(conn: psycopg.Connection, shard_id: int, shard: Shard, rep_cap: int,
                  advance: Callable[[int], None]) -> None:
    part = class_partition(shard_id)
    conn.execute(sql.SQL("CREATE TABLE {} (LIKE termx.class INCLUDING ALL, CHECK (shard_id = {}))")
                 .format(part, sql.Literal(int(shard_id))))
    blob, offsets, joiner = token_strings(shard.tokens.unit, shard.tokens.vocab)
    c = shard.classes
    with conn.cursor().copy(sql.SQL("COPY {} FROM STDIN (FORMAT BINARY)").format(part)) as copy:
        for data, rows in class_rows(shard_id, c.i, c.j, c.lbl, c.sil, shard.df, shard.sa, shard.tokens.tokens,
                                     blob, offsets, joiner, rep_cap):
            copy.write(data)
            advance(rows)


def _index_and_attach(conn: psycopg.Connection, shard_id: int) -> None:
    """Indexes after the load, then the partition joins termx.class."""
    part = class_partition(shard_id)
    conn.execute("SET LOCAL maintenance_work_mem = '1GB'")  # sort in memory: several times faster
    conn.execute(sql.SQL("CREATE INDEX ON {} (rep, sil)").format(part))
    conn.execute(sql.SQL("ALTER TABLE termx.class ATTACH PARTITION {} FOR VALUES IN ({})")
                 .format(part, sql.Literal(int(shard_id))))
    conn.execute(sql.SQL("ANALYZE {}").format(part))


def drop_corpus(engine: Engine, name: str) -> None:
    """Delete a corpus and everything built for it, atomically."""
    try:
        with driver_transaction(engine) as conn:
            _limit_lock_wait(conn)
            row = conn.execute("SELECT id FROM termx.corpus WHERE name = %s FOR UPDATE", (name,)).fetchone()
            if row is None:
                raise CorpusNotFound(f"no corpus named {name!r}", "termx corpora lists them")
            _delete(conn, row[0])
    except psycopg.errors.LockNotAvailable:
        raise _in_use(name) from None


_CORPUS_COLUMNS = "id, name, unit, max_k, tokens, documents, classes, rep_cap, params, timings, created_at"


def _info(row: Any) -> CorpusInfo:
    return CorpusInfo(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9],
                      row[10].isoformat(timespec="seconds"))


def list_corpora(engine: Engine) -> list[CorpusInfo]:
    """Every corpus, by name."""
    with engine.connect() as conn:
        rows = conn.execute(sa.text(f"SELECT {_CORPUS_COLUMNS} FROM termx.corpus ORDER BY name")).all()
    return [_info(r) for r in rows]


def get_corpus(engine: Engine, name: str) -> CorpusInfo:
    """One corpus by name, or CorpusNotFound."""
    with engine.connect() as conn:
        row = conn.execute(sa.text(f"SELECT {_CORPUS_COLUMNS} FROM termx.corpus WHERE name = :n"),
                           {"n": name}).first()
    if row is None:
        raise CorpusNotFound(f"no corpus named {name!r}", "termx corpora lists them")
    return _info(row)


def load_array(engine: Engine, shard_id: int, name: str) -> np.ndarray:
    """One stored index array (tokens, sa or doc_start) of a shard, reassembled from its chunks."""
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT dtype, length, data FROM termx.index_array"
                                    " WHERE shard_id = :s AND name = :n ORDER BY chunk"),
                            {"s": shard_id, "n": name}).all()
    if not rows:
        raise CorpusNotFound(f"shard {shard_id} has no array {name!r}", "rebuild the corpus with termx index")
    return join_chunks(rows)
