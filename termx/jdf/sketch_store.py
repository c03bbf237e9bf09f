"""Sketches in PostgreSQL: `termx sketch` computes them from a corpus's loaded shards and stores them (binary
COPY, one transaction per corpus) with each shard's related classes and inverted table (termx.jdf.postings;
termx.related reads those); readers recompute the sketches from the loaded index with the stored parameters and
keep them in a local cache beside the index cache (termx.storage.disk_cache, as for the index), and read the related
tables once per process.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np
import psycopg
from sqlalchemy.engine import Engine

from termx.errors import CorpusInUse, InputError
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.jdf.exact import interval_documents
from termx.jdf.postings import RelatedClasses, related_classes
from termx.jdf.sketches import DEFAULT_K, DEFAULT_THRESHOLD, SEED, Sketches, class_sketches, doc_hashes
from termx.progress import Progress, Silent, Timings
from termx.storage import partitions
from termx.storage.copyrows import COPY_HEADER, COPY_TRAILER
from termx.storage.disk_cache import on_clear, write_cache
from termx.storage.index_loader import load_shards
from termx.storage.partitions import SKETCHES
from termx.storage.paths import home
from termx.storage.statements import internal_statements, run_internal
from termx.storage.transactions import conflicts_as_errors, connection
from termx.terms.candidates import candidate_classes

ROWS_PER_CHUNK = 20000


@dataclass
class SketchParams:
    """How a shard's sketches were made."""

    k: int
    threshold: int
    seed: int


def sketch_index(index: LoadedIndex, params: SketchParams) -> Sketches:
    """The sketches of a loaded shard (classes with df_1 >= threshold; documents numbered globally)."""
    return class_sketches(np.asarray(index.lcp), np.asarray(index.sa), np.asarray(index.doc_start),
                          np.asarray(index.doc_len), np.ascontiguousarray(index.cls_df[:, 0]), index.first_doc,
                          params.k, params.threshold, params.seed)


def build_sketches(engine: Engine, corpus: str, k: int = DEFAULT_K, threshold: int = DEFAULT_THRESHOLD,
                   progress: Progress | None = None, timings: Timings | None = None) -> dict[str, Any]:
    """Compute and store the sketches and related classes of every shard of `corpus` (replacing earlier ones,
    one transaction); a summary."""
    if k < 1 or threshold < 1:
        raise InputError("k and threshold must be at least 1")
    progress = progress or Silent()
    timings = timings if timings is not None else Timings()
    with timings.stage("load index", progress):
        shards = load_shards(engine, corpus)
    params = SketchParams(k, threshold, SEED)
    built = []
    with ThreadPoolExecutor(1) as beside:  # a shard's term candidates are found while its sketches are walked
        for index in shards:
            texts = _texts(engine, index) if index.unit is Unit.word else None
            found = beside.submit(candidate_classes, index, texts)
            with timings.stage("sketch", progress):
                sk = sketch_index(index, params)
            _cache_put(engine, index, params, sk)
            with timings.stage("related classes", progress):
                rc = related_classes(index, sk, params.seed, found.result())
            built.append((index, sk, rc))
    total = sum(len(sk) for _, sk, _ in built)
    with timings.stage("store sketches", progress, total) as advance:
        with connection(engine) as conn, conflicts_as_errors(f"corpus {corpus!r}"):
            for index, _, _ in built:  # the earlier sketches' partitions leave first (DETACH CONCURRENTLY)
                if not partitions.drop(conn, SKETCHES, index.shard_id):
                    raise CorpusInUse(f"the sketches of corpus {corpus!r} are being read by another session",
                                      "try again when it is idle")
            with conn.transaction():
                for index, sk, rc in built:
                    _store(conn, index, params, sk, timings.get("sketch", 0.0), advance)
                    _store_related(conn, index, rc)
    hash_bytes = sum(int(sk.hashes.nbytes) for _, sk, _ in built)
    return {"corpus": corpus, "k": k, "threshold": threshold, "classes": total,
            "related_classes": sum(len(rc) for _, _, rc in built), "hash_bytes": hash_bytes,
            "bytes_per_class": round(hash_bytes / max(total, 1), 1),
            "seconds": {name: round(v, 3) for name, v in timings.items()}}


def _texts(engine: Engine, index: LoadedIndex) -> list[str]:
    """The texts of a shard's documents (word-unit term candidates need their spacing)."""
    with engine.connect() as conn:
        return list(run_internal(conn, "jdf.shard_texts", s=index.shard_id).scalars())


def _store(conn: psycopg.Connection, index: LoadedIndex, params: SketchParams, sk: Sketches, seconds: float,
           advance: Any) -> None:
    """The shard's sketch set (replacing an earlier one) and its sketch partition: created, loaded by binary COPY,
    indexed after the load, attached (termx.storage.partitions; the earlier partition was dropped before)."""
    run_internal(conn, "jdf.delete_sketch_set", shard_id=index.shard_id)
    hashes = doc_hashes(np.arange(index.n_docs, dtype=np.int64) + index.first_doc, params.seed)
    run_internal(conn, "jdf.insert_sketch_set", shard_id=index.shard_id, k=params.k, threshold=params.threshold,
                 seed=params.seed, classes=len(sk), doc_hash=hashes.tolist(), seconds=seconds)
    ci = np.asarray(index.cls_i)[sk.cls]
    cj = np.asarray(index.cls_j)[sk.cls]
    sil = np.asarray(index.cls_sil)[sk.cls]
    df1 = np.asarray(index.cls_df[:, 0])[sk.cls]
    partitions.create(conn, SKETCHES, index.shard_id)
    with partitions.copy(conn, SKETCHES, index.shard_id) as copy:
        copy.write(COPY_HEADER)
        for r0 in range(0, len(sk), ROWS_PER_CHUNK):
            r1 = min(len(sk), r0 + ROWS_PER_CHUNK)
            size = (2 + 6 * 8 + 4) * (r1 - r0) + 8 * int(sk.offsets[r1] - sk.offsets[r0])
            buf = np.empty(size, dtype=np.uint8)
            n = _encode(index.shard_id, r0, r1, sk.cls, ci, cj, sil, df1, sk.offsets, sk.hashes, buf)
            copy.write(buf[:n].tobytes())
            advance(r1 - r0)
        copy.write(COPY_TRAILER)
    partitions.index([conn], SKETCHES, index.shard_id)
    partitions.attach(conn, SKETCHES, [index.shard_id])


def _store_related(conn: psycopg.Connection, index: LoadedIndex, rc: RelatedClasses) -> None:
    """The shard's related classes (with their documents, for SQL's exact scores) and its inverted table. The
    integer arrays go in as array literals made here (psycopg's element-by-element list dumper took seconds)."""
    with conn.cursor().copy(internal_statements("jdf")["copy_related_class"]) as copy:
        for n in range(len(rc)):
            docs = interval_documents(index, int(rc.i[n]), int(rc.j[n])) + index.first_doc
            copy.write_row((index.shard_id, n, int(rc.i[n]), int(rc.j[n]), int(rc.df[n]), int(rc.tau[n]),
                            rc.terms[n], _array_literal(docs)))
    with conn.cursor().copy(internal_statements("jdf")["copy_related_doc"]) as copy:
        for d in range(index.n_docs):
            held = rc.holding(d)
            if len(held):
                copy.write_row((index.shard_id, d + index.first_doc, _array_literal(held)))


def _array_literal(values: np.ndarray) -> str:
    """PostgreSQL's text form of an integer array: {1,2,3}."""
    return "{" + ",".join(map(str, values.tolist())) + "}"


@nb.njit(cache=True)
def _put(buf, pos, v, width):  # type: ignore[no-untyped-def]
    for b in range(width):
        buf[pos + b] = (v >> (8 * (width - 1 - b))) & 0xFF
    return pos + width


@nb.njit(cache=True)
def _int4(buf, pos, v):  # type: ignore[no-untyped-def]
    pos = _put(buf, pos, 4, 4)
    return _put(buf, pos, v, 4)


@nb.njit(cache=True)
def _encode(shard_id, r0, r1, cls, ci, cj, sil, df1, offsets, hashes, buf):  # type: ignore[no-untyped-def]
    """Binary COPY rows r0..r1-1: shard_id, cls, i, j, sil, df (int4) and hashes (bytea, int64 little-endian)."""
    pos = 0
    for r in range(r0, r1):
        pos = _put(buf, pos, 7, 2)
        pos = _int4(buf, pos, shard_id)
        pos = _int4(buf, pos, cls[r])
        pos = _int4(buf, pos, ci[r])
        pos = _int4(buf, pos, cj[r])
        pos = _int4(buf, pos, sil[r])
        pos = _int4(buf, pos, df1[r])
        n = offsets[r + 1] - offsets[r]
        pos = _put(buf, pos, 8 * n, 4)
        for t in range(offsets[r], offsets[r + 1]):
            v = hashes[t]
            for b in range(8):
                buf[pos + b] = (v >> (8 * b)) & 0xFF
            pos += 8
    return pos


def load_related(engine: Engine, index: LoadedIndex) -> RelatedClasses:
    """The shard's stored related classes and inverted table (memoised per process)."""
    key = (engine.url.render_as_string(hide_password=True), index.shard_id, index.corpus.created_at)
    hit = _related_memo.get(key)
    if hit is None:
        with engine.connect() as conn:
            rows = run_internal(conn, "jdf.related_classes", s=index.shard_id).all()
            held = run_internal(conn, "jdf.related_docs", s=index.shard_id).all()
        counts = np.zeros(index.n_docs, dtype=np.int64)
        for d, cl in held:
            counts[d - index.first_doc] = len(cl)
        offsets = np.zeros(index.n_docs + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        classes = np.array([n for _, cl in held for n in cl], dtype=np.int32)
        col = list(zip(*rows, strict=True)) if rows else [(), (), (), (), ()]
        hit = RelatedClasses(np.array(col[0], dtype=np.int32),
                             np.array(col[1], dtype=np.int32), np.array(col[2], dtype=np.int64),
                             np.array(col[3], dtype=np.int64), list(col[4]), offsets, classes)
        _related_memo[key] = hit
    return hit


def stored_params(engine: Engine, index: LoadedIndex) -> SketchParams | None:
    """The parameters of the shard's stored sketches, or None when it has none."""
    with engine.connect() as conn:
        row = run_internal(conn, "jdf.sketch_params", s=index.shard_id).first()
    return SketchParams(row[0], row[1], row[2]) if row else None


_memo: dict[tuple[str, int, int, str, int, int, int], Sketches] = {}
on_clear(lambda: _memo.clear())  # `termx cache clear` removes the folders these sketches were read from
_related_memo: dict[tuple[str, int, str], RelatedClasses] = {}


def load_sketches(engine: Engine, index: LoadedIndex) -> Sketches:
    """The shard's sketches (memo, local cache, or recomputed with the stored parameters); InputError when the
    corpus has none."""
    params = stored_params(engine, index)
    if params is None:
        raise InputError(f"corpus {index.corpus.name!r} has no sketches",
                         f"run termx sketch {index.corpus.name}, or use --exact")
    key = (engine.url.render_as_string(hide_password=True), index.corpus.id, index.shard_id, index.corpus.created_at,
           params.k,
           params.threshold, params.seed)
    hit = _memo.get(key)
    if hit is None:
        folder = _cache_dir(engine, index, params)
        if (folder / "hashes.npy").exists():
            arrays = {a: np.load(folder / f"{a}.npy", mmap_mode="r") for a in ("cls", "offsets", "hashes")}
            hit = Sketches(params.k, params.threshold, **arrays)
        else:
            hit = sketch_index(index, params)
            _cache_put(engine, index, params, hit)
        _memo[key] = hit
    return hit


def _cache_dir(engine: Engine, index: LoadedIndex, params: SketchParams) -> Path:
    url = engine.url.render_as_string(hide_password=True)
    tag = hashlib.sha256(f"{url}|{index.corpus.id}|{index.shard_id}|{index.corpus.created_at}|{params}".encode())\
        .hexdigest()[:16]
    return home() / "cache" / f"sketch-{index.corpus.id}-{tag}"


def _cache_put(engine: Engine, index: LoadedIndex, params: SketchParams, sk: Sketches) -> None:
    """Keep the sketches in the local cache with disk_cache.write_cache (atomic; a full disk leaves nothing behind and
    turns the cache off, the command going on with the sketches in memory; listed and cleared with the corpus)."""
    folder = _cache_dir(engine, index, params)
    if not folder.exists():
        write_cache(folder, {a: getattr(sk, a) for a in ("cls", "offsets", "hashes")}, {},
                    engine.url.render_as_string(hide_password=True), index.corpus)
