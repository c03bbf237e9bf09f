"""Store a built shard in PostgreSQL (COPY for bulk data) beside the live corpora, swap it in, read corpora back.

A build never changes what readers see until its swap: the new version's corpus row stays nameless while its
shard, documents, vocabulary, index arrays and class table are loaded (docs/scale-out.md: a shard is the
unit of building); one short transaction then names it and retires the old version, which is purged after.
An interrupted build leaves only a nameless corpus that the next command purges (`transactions.collect_garbage`).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import psycopg
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from termx.defaults import DEFAULT_REP_CAP
from termx.errors import CorpusExists, CorpusNotFound
from termx.faults import fault_point
from termx.index.loaded_index import CorpusInfo
from termx.index.units import token_strings
from termx.progress import Progress, Silent, Timings
from termx.storage import partitions, transactions
from termx.storage.copyrows import copy_binary
from termx.storage.partitions import CLASSES
from termx.storage.statements import run_internal

if TYPE_CHECKING:  # the build's kernels (numba) load only where a corpus is stored
    from termx.index.build import Shard
    from termx.index.ingest import Document

ARRAY_CHUNK_BYTES = 16 << 20
STORE_CONNECTIONS = min(2, os.cpu_count() or 1)  # a one-shard build loads its classes over this many
FILTER_CHUNK_BYTES = 64 << 10  # n-gram filters (termx.index.ngramfilter) are read 8 bytes at a time, and a slice
                               # of a stored value costs more the longer the value (PostgreSQL 15: 150 us at 16 MB)


def save_corpus(engine: Engine, name: str, shard: Shard, replace: bool = False, params: dict[str, Any] | None = None,
                progress: Progress | None = None, timings: Timings | None = None,
                rep_cap: int = DEFAULT_REP_CAP, on_load: Callable[[], None] | None = None,
                min_freq: int = 2) -> CorpusInfo:
    """Write `shard` as corpus `name`; `replace` swaps out an existing corpus. Readers never wait on it.
    Only classes with freq >= `min_freq` get a class row (store_shard).

    The new version is built nameless beside the old one (its own shard rows and class table) and swapped in by
    one short transaction; the old version is purged afterwards. `on_load` is called between the bulk loads
    (tests use it to inject a failure half-way).
    """
    progress = progress or Silent()
    timings = timings if timings is not None else Timings()
    url = _url(engine)
    with transactions.connection(engine) as conn, transactions.conflicts_as_errors(f"corpus {name!r}"):
        transactions.collect_garbage(conn, url)
        if not replace and _named(conn, name) is not None:
            raise _exists(name)
        corpus_id, shard_id = _stage_rows(conn, shard, {**(params or {}), "store_min_freq": min_freq}, rep_cap)
        with transactions.staged_swap(conn, url, corpus_id) as swap:
            with contextlib.ExitStack() as helpers:
                extra = (helpers.enter_context(transactions.connection(engine)) for _ in range(STORE_CONNECTIONS - 1))
                conns = [conn, *extra]
                store_shard(conns, corpus_id, shard_id, shard, rep_cap, timings, progress, on_load=on_load,
                            min_freq=min_freq)
            fault_point("staged")
            swap.old = _swap(conn, name, corpus_id, [shard_id], replace, timings)
    return get_corpus(engine, name)


def store_shard(conns: Sequence[psycopg.Connection], corpus_id: int, shard_id: int, shard: Shard, rep_cap: int,
                timings: Timings, progress: Progress, first_doc: int = 0, vocab: bool = True,
                on_load: Callable[[], None] | None = None, min_freq: int = 2) -> None:
    """Load a built shard into its staged rows and class table, and index that table: documents, `vocab` (when
    the shard is the whole corpus) and arrays in one transaction on the first connection, then the rows of the
    classes with freq >= `min_freq` and the indexes spread over all of `conns` (each piece commits; nothing is
    visible before the swap). The rarer classes are computed from the arrays when looked up."""
    conn = conns[0]
    with conn.transaction():
        with timings.stage("store documents", progress, len(shard.documents)) as advance:
            copy_documents(conn, corpus_id, shard_id, shard.documents, shard.tokens.doc_start, shard.tokens.doc_len,
                           advance, first_doc)
            if vocab:
                _copy_vocab(conn, corpus_id, shard)
            copy_arrays(conn, shard_id, shard_arrays(shard))
        if on_load:
            on_load()
    store_classes(conns, shard_id, shard, rep_cap, timings, progress, min_freq)


def store_classes(conns: Sequence[psycopg.Connection], shard_id: int, shard: Shard, rep_cap: int, timings: Timings,
                  progress: Progress, min_freq: int = 2, schema: str = "termx") -> None:
    """Load the rows of the shard's classes with freq >= `min_freq` into its standalone table in `schema` over all
    of `conns` (a foreign shard's: on its storage server), then build that table's indexes and ANALYZE it."""
    with timings.stage("store classes", progress, len(shard.classes)) as advance:
        _copy_classes(conns, shard_id, shard, rep_cap, advance, min_freq, schema)
    with timings.stage("create indexes", progress):
        fault_point("create_index")
        partitions.index(conns, CLASSES, shard_id, schema)


def _url(engine: Engine) -> str:
    """The database as the local cache keys it (no password)."""
    return engine.url.render_as_string(hide_password=True)


def _named(conn: psycopg.Connection, name: str) -> int | None:
    row = run_internal(conn, "corpora.corpus_id", name=name).fetchone()
    return None if row is None else int(row[0])


def _stage_rows(conn: psycopg.Connection, shard: Shard, params: dict[str, Any], rep_cap: int) -> tuple[int, int]:
    """Commit a nameless corpus row, its shard row and the shard's empty standalone class table, owned by this
    session (LOCK_CORPUS) until the swap; if the process dies, the next writer finds it unowned and purges it."""
    ta = shard.tokens
    with conn.transaction():
        corpus_id = run_internal(
            conn, "corpora.insert_corpus", unit=ta.unit.value, max_k=shard.max_k, tokens=ta.n_tokens,
            documents=len(shard.documents), classes=len(shard.classes), rep_cap=rep_cap, params=json.dumps(params),
        ).fetchone()[0]  # type: ignore[index]
        transactions.try_own(conn, transactions.LOCK_CORPUS, corpus_id)
        shard_id = run_internal(
            conn, "corpora.insert_shard", corpus_id=corpus_id, tokens=ta.n_tokens, documents=len(shard.documents),
            classes=len(shard.classes), seconds=params.get("build_seconds"),
        ).fetchone()[0]  # type: ignore[index]
        partitions.create(conn, CLASSES, shard_id)
    return corpus_id, shard_id


def _swap(conn: psycopg.Connection, name: str, corpus_id: int, shard_ids: list[int], replace: bool,
          timings: Timings) -> int | None:
    """The short transaction that makes a staged corpus `name`: attach its shards' class tables, retire the old
    version (it becomes nameless) and name the new one. Swaps of one name serialise; returns the retired id."""
    with conn.transaction():
        transactions.lock_name(conn, transactions.LOCK_CORPUS_NAME, name)
        old = _named(conn, name)
        if old is not None and not replace:
            raise _exists(name, "another build created it; use `replace=True`")
        partitions.attach(conn, CLASSES, shard_ids)
        fault_point("swap")
        if old is not None:
            run_internal(conn, "corpora.retire_corpus", id=old)
        run_internal(conn, "corpora.name_corpus", name=name,
                     timings=json.dumps({k: round(v, 4) for k, v in timings.items()}), id=corpus_id)
    return old


def _exists(name: str, hint: str = "use `replace=True` to rebuild it, or termx drop") -> CorpusExists:
    return CorpusExists(f"corpus {name!r} already exists", hint, ("replace",))


def require_new_corpus(engine: Engine, name: str, replace: bool) -> None:
    """CorpusExists unless `replace` or no corpus has that name (checked before the work of a build)."""
    if not replace and any(c.name == name for c in list_corpora(engine)):
        raise _exists(name)


def drop_corpus(engine: Engine, name: str) -> dict[str, int]:
    """Delete a corpus and everything built for it (documents, classes, term lists, runs, models, cache);
    returns how many term lists, white space runs and TBL models went with it.

    The name goes at once in a short transaction; readers that started earlier finish on the old data, and
    its tables are purged after them (or by the next command, if they take long).
    """
    url = _url(engine)
    with transactions.connection(engine) as conn, transactions.conflicts_as_errors(f"corpus {name!r}"):
        transactions.collect_garbage(conn, url)
        with conn.transaction():
            transactions.lock_name(conn, transactions.LOCK_CORPUS_NAME, name)
            old = _named(conn, name)
            if old is None:
                raise corpus_not_found(conn, name)
            deleted = _dependents(conn, old)
            run_internal(conn, "corpora.retire_corpus", id=old)
        transactions.purge(conn, url, old)
    return deleted


def dependents(engine: Engine, name: str) -> dict[str, int]:
    """What dropping or replacing corpus `name` deletes besides its index (all zero if there is no such corpus)."""
    with transactions.connection(engine) as conn:
        old = _named(conn, name)
        return _dependents(conn, old) if old is not None else dict.fromkeys(DEPENDENTS, 0)


DEPENDENTS = ("term lists", "white space runs", "TBL models")  # the columns of corpora.dependents, in order


def _dependents(conn: psycopg.Connection, corpus_id: int) -> dict[str, int]:
    row = run_internal(conn, "corpora.dependents", id=corpus_id).fetchone()
    assert row is not None
    return {what: int(n) for what, n in zip(DEPENDENTS, row, strict=True)}


def copy_documents(conn: psycopg.Connection, corpus_id: int, shard_id: int, documents: Sequence[Document],
                   doc_start: np.ndarray, doc_len: np.ndarray, advance: Callable[[int], None],
                   first_doc: int = 0) -> None:
    """A shard's documents with their token offsets, numbered from `first_doc` (doc_no counts across the corpus's
    shards)."""

    def rows() -> Iterator[tuple[Any, ...]]:
        for n, doc in enumerate(documents):
            yield (corpus_id, first_doc + n, shard_id, doc.name, doc.title, int(doc_start[n]), int(doc_len[n]),
                   doc.text)
            if n == 0:
                fault_point("copy_documents")  # mid-COPY
            if n % 1000 == 999:
                advance(1000)

    copy_binary(conn, "termx.document", ("corpus_id", "doc_no", "shard_id", "name", "title", "start", "length",
                                         "text"), ("int4", "int4", "int4", "text", "text", "int8", "int4", "text"),
                rows())
    advance(len(documents) % 1000)


def _copy_vocab(conn: psycopg.Connection, corpus_id: int, shard: Shard) -> None:
    vocab = shard.tokens.vocab
    if vocab is None:
        return
    copy_binary(conn, "termx.vocab", ("corpus_id", "token_id", "token"), ("int4", "int4", "text"),
                ((corpus_id, n, token) for n, token in enumerate(vocab, 1)))


StoredArray = tuple[str, np.ndarray, int]
"""An array look-ups need: its stored name (termx.index_array), the array, and the bytes of each stored chunk."""


def shard_arrays(shard: Shard) -> list[StoredArray]:
    """The arrays of `shard` that are stored for look-ups, each with its chunk size."""
    arrays = [("tokens", shard.tokens.tokens, ARRAY_CHUNK_BYTES), ("sa", shard.sa, ARRAY_CHUNK_BYTES),
              ("doc_start", shard.tokens.doc_start, ARRAY_CHUNK_BYTES)]
    if shard.ngram_filter is not None:
        from termx.index.ngramfilter import ARRAY

        arrays.append((ARRAY, shard.ngram_filter, FILTER_CHUNK_BYTES))
    return arrays


def copy_arrays(conn: psycopg.Connection, shard_id: int, arrays: Sequence[StoredArray]) -> None:
    """A shard's arrays (shard_arrays) in chunks of raw little-endian bytes."""

    def rows() -> Iterator[tuple[Any, ...]]:
        for name, arr, chunk_bytes in arrays:
            for row in array_chunks(arr, chunk_bytes):
                yield (shard_id, name, *row)

    copy_binary(conn, "termx.index_array", ("shard_id", "name", "dtype", "length", "chunk", "data"),
                ("int4", "text", "text", "int8", "int4", "bytea"), rows())


def array_chunks(arr: np.ndarray, chunk_bytes: int = ARRAY_CHUNK_BYTES) -> Iterator[tuple[str, int, int, bytes]]:
    """(dtype, length, chunk number, bytes) rows of a 1-d array in raw little-endian chunks, for COPY."""
    arr = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))
    data = arr.data.cast("B")
    for chunk, at in enumerate(range(0, max(len(data), 1), chunk_bytes)):
        yield arr.dtype.str, len(arr), chunk, bytes(data[at: at + chunk_bytes])


def join_chunks(rows: Sequence[Any]) -> np.ndarray:
    """The array from its (dtype, length, data) rows in chunk order (the inverse of array_chunks)."""
    dtype, length = np.dtype(rows[0][0]), rows[0][1]
    arr = np.frombuffer(b"".join(r[2] for r in rows), dtype=dtype)
    assert len(arr) == length
    return arr.astype(dtype.newbyteorder("="), copy=False)


def _copy_classes(conns: Sequence[psycopg.Connection], shard_id: int, shard: Shard, rep_cap: int,
                  advance: Callable[[int], None], min_freq: int = 2, schema: str = "termx") -> None:
    """The rows of the classes with freq >= `min_freq` by binary COPY into shard `shard_id`'s table in `schema`:
    one contiguous run of rows per connection, all loaded at the same time (each run in its own transaction, or a
    savepoint of the caller's), so the server parses them on several cores."""
    from termx.storage.classrows import class_rows

    blob, offsets, joiner = token_strings(shard.tokens.unit, shard.tokens.vocab)
    c = shard.classes
    # the rows to store as int32 indexes (4 bytes a hot class), not copies of the rows
    hot = np.flatnonzero(c.j - c.i + 1 >= min_freq).astype(np.int32) if min_freq > 2 else None
    count = len(c) if hot is None else len(hot)
    advance(len(c) - count)
    cuts = [count * k // len(conns) for k in range(len(conns) + 1)]

    def load(conn: psycopg.Connection, lo: int, hi: int) -> None:
        with conn.transaction(), partitions.copy(conn, CLASSES, shard_id, schema) as copy:
            if hot is None:
                chunks = class_rows(shard_id, c.i[lo:hi], c.j[lo:hi], c.lbl[lo:hi], c.sil[lo:hi], shard.df[lo:hi],
                                    shard.sa, shard.tokens.tokens, blob, offsets, joiner, rep_cap)
            else:
                chunks = class_rows(shard_id, c.i, c.j, c.lbl, c.sil, shard.df, shard.sa, shard.tokens.tokens, blob,
                                    offsets, joiner, rep_cap, rows=hot[lo:hi])
            for k, (data, rows) in enumerate(chunks):
                copy.write(data)
                advance(rows)
                if k == 0 and lo == 0:
                    fault_point("copy_classes")  # mid-COPY, after the header

    partitions.in_parallel(conns, [functools.partial(load, lo=lo, hi=hi) for lo, hi in itertools.pairwise(cuts)])


def _info(row: Any) -> CorpusInfo:
    return CorpusInfo(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9],
                      row[10].isoformat(timespec="seconds"), int(row[11]))


@dataclass
class ShardInfo:
    """One shard of a corpus as `termx corpora --shards` shows it."""

    corpus: str
    shard_no: int
    documents: int
    tokens: int
    classes: int
    built_at: str
    seconds: float | None

    def as_row(self) -> dict[str, Any]:
        """The JSON/table row."""
        return dict(self.__dict__)


def list_shards(engine: Engine, name: str | None = None) -> list[ShardInfo]:
    """The shards of corpus `name` (of every corpus when None), in corpus name and shard order."""
    with engine.connect() as conn:
        rows = run_internal(conn, "corpora.shards", n=name).all()
        if name is not None and not rows:
            get_corpus(conn, name)
    return [ShardInfo(r[0], r[1], r[2], r[3], r[4], r[5].isoformat(timespec="seconds"), r[6]) for r in rows]


def list_corpora(engine: Engine) -> list[CorpusInfo]:
    """Every corpus, by name (nameless rows are builds in progress or retired versions being purged)."""
    with engine.connect() as conn:
        rows = run_internal(conn, "corpora.corpora").all()
    return [_info(r) for r in rows]


def corpus_bytes(engine: Engine, name: str | None = None) -> dict[int, int]:
    """Bytes each corpus (or corpus `name`) takes in the database, by corpus id (`termx corpora` db_bytes)."""
    with engine.connect() as conn:
        return {int(r[0]): int(r[1]) for r in run_internal(conn, "corpora.corpus_bytes", n=name)}


def corpus_rows(engine: Engine, name: str | None = None) -> list[dict[str, Any]]:
    """`termx corpora` (and GET /corpora): each corpus's row, with the bytes it takes in the database (db_bytes)
    and in this machine's look-up cache (cache_bytes)."""
    from termx.storage.disk_cache import cache_bytes

    listed = [get_corpus(engine, name)] if name else list_corpora(engine)
    in_db, cached = corpus_bytes(engine, name), cache_bytes(engine.url.render_as_string(hide_password=True))
    return [{**c.as_row(), "db_bytes": in_db.get(c.id, 0), "cache_bytes": cached.get(c.id, 0)} for c in listed]


def get_corpus(engine: Engine | sa.Connection, name: str) -> CorpusInfo:
    """One corpus by name, or CorpusNotFound (on an engine, or inside a caller's connection and snapshot)."""
    if isinstance(engine, Engine):
        with engine.connect() as conn:
            return get_corpus(conn, name)
    row = run_internal(engine, "corpora.corpus", n=name).first()
    if row is None:
        raise corpus_not_found(engine, name)
    return _info(row)


def corpus_names(conn: Engine | sa.Connection | psycopg.Connection) -> list[str]:
    """The names of the corpora, unordered (what an unknown name is compared with)."""
    if isinstance(conn, Engine):
        with conn.connect() as c:
            return corpus_names(c)
    return [row[0] for row in run_internal(conn, "corpora.corpus_names")]


def corpus_not_found(conn: Engine | sa.Connection | psycopg.Connection, name: str, message: str | None = None,
                     hint: str = "termx corpora lists them", params: Sequence[str] = ()) -> CorpusNotFound:
    """CorpusNotFound for `name`, suggesting the nearest corpus name there is (CorpusNotFound.named)."""
    return CorpusNotFound.named(name, corpus_names(conn), message, hint, params)


def load_array(conn: sa.Connection, shard_id: int, name: str) -> np.ndarray:
    """One stored index array (tokens, sa or doc_start) of a shard, reassembled from its chunks."""
    rows = run_internal(conn, "corpora.index_array", s=shard_id, n=name).all()
    if not rows:
        raise CorpusNotFound(f"shard {shard_id} has no array {name!r}", "rebuild the corpus with termx index")
    return join_chunks(rows)
