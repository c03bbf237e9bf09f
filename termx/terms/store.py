"""The term writers: a shard's candidates and its reference counts (computed once, stored by binary COPY under a
per-shard advisory lock) and saved term lists."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import psycopg
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from termx.errors import InputError
from termx.faults import fault_point
from termx.index.units import Unit
from termx.progress import Progress, Silent, Timings
from termx.storage import txn
from termx.storage.copyrows import copy_binary
from termx.storage.loaded import LoadedIndex, load_index
from termx.storage.store import get_corpus
from termx.terms.candidates import CANDIDATE_RULES, NULL_BINS, SPACED_FRACTION, Candidates, candidate_classes

COPY_ROWS = 50_000         # candidates per COPY chunk


def _shards_without_candidates(engine: Engine, corpus_id: int) -> list[int]:
    with engine.connect() as conn:
        return list(conn.execute(sa.text(
            "SELECT s.id FROM termx.shard s LEFT JOIN termx.candidate_set c ON c.shard_id = s.id"
            " AND c.rules = :r WHERE s.corpus_id = :c AND c.shard_id IS NULL ORDER BY s.id"),
            {"r": CANDIDATE_RULES, "c": corpus_id}).scalars())


def _texts(engine: Engine, corpus_id: int) -> list[str]:
    with engine.connect() as conn:
        return list(conn.execute(sa.text("SELECT text FROM termx.document WHERE corpus_id = :c ORDER BY doc_no"),
                                 {"c": corpus_id}).scalars())


def ensure_candidates(engine: Engine, corpus: str, progress: Progress | None = None,
                      timings: Timings | None = None) -> None:
    """Compute and store the corpus's term candidates unless they are stored already (one transaction)."""
    progress = progress or Silent()
    timings = timings if timings is not None else Timings()
    info = get_corpus(engine, corpus)
    missing = _shards_without_candidates(engine, info.id)
    if not missing:
        return
    with timings.stage("load index", progress):
        index = load_index(engine, corpus, "termx terms")
    with timings.stage("term candidates", progress):
        texts = _texts(engine, info.id) if index.unit is Unit.word else None
        found = candidate_classes(index, texts)
    with timings.stage("store candidates", progress, len(found.cls)) as advance:
        _store_candidates(engine, index, found, advance)


def _candidate_rows(index: LoadedIndex, found: Candidates, advance: Any) -> Iterator[tuple[Any, ...]]:
    """Rows (shard_id, i, j, len, freq, df, p0, term) of the candidates, reporting progress every COPY_ROWS."""
    shard = index.shard_id
    cls_i, cls_j, cls_df = np.asarray(index.cls_i), np.asarray(index.cls_j), np.asarray(index.cls_df)
    for at in range(0, len(found.cls), COPY_ROWS):
        cls = found.cls[at: at + COPY_ROWS]
        i, j = cls_i[cls].tolist(), cls_j[cls].tolist()
        yield from zip([shard] * len(cls), i, j, found.length[at: at + COPY_ROWS].tolist(),
                       [b - a + 1 for a, b in zip(i, j, strict=True)], cls_df[cls].tolist(),
                       found.p0[at: at + COPY_ROWS].tolist(), found.terms[at: at + COPY_ROWS], strict=True)
        advance(len(cls))


def _store_candidates(engine: Engine, index: LoadedIndex, found: Candidates, advance: Any) -> None:
    fault_point("store_candidates")
    with txn.transaction(engine, f"corpus {index.corpus.name!r}") as conn:
        txn.lock(conn, txn.LOCK_CANDIDATES, index.shard_id)
        done = conn.execute("SELECT rules FROM termx.candidate_set WHERE shard_id = %s",
                            (index.shard_id,)).fetchone()
        if done is not None and done[0] == CANDIDATE_RULES:
            return  # another process stored them while we computed
        conn.execute("DELETE FROM termx.candidate_set WHERE shard_id = %s", (index.shard_id,))
        conn.execute("INSERT INTO termx.candidate_set (shard_id, rules, spaced, candidates, params)"
                     " VALUES (%s, %s, %s, %s, %s)",
                     (index.shard_id, CANDIDATE_RULES, found.spaced, len(found.cls),
                      json.dumps({"spaced_fraction": SPACED_FRACTION, "null_bins": NULL_BINS,
                                  "max_len": index.corpus.rep_cap})))
        copy_binary(conn, "termx.candidate", ("shard_id", "i", "j", "len", "freq", "df", "p0", "term"),
                    ("int4", "int4", "int4", "int4", "int4", "int4[]", "float8", "text"),
                    _candidate_rows(index, found, advance))
        conn.execute("ANALYZE termx.candidate")


def store_reference(engine: Engine, shard_id: int, ref_id: int, rows: Sequence[Any], freq: np.ndarray,
                    df: np.ndarray) -> None:
    """Store the reference counts (freq, df) of a shard's candidates `rows` (with .i, .j), unless another
    process stored them first."""
    with txn.transaction(engine, "the corpus or its reference corpus") as conn:
        txn.lock(conn, txn.LOCK_CANDIDATES, shard_id)
        if conn.execute("SELECT 1 FROM termx.reference_set WHERE shard_id = %s AND ref_corpus_id = %s",
                        (shard_id, ref_id)).fetchone() is not None:
            return  # another process stored them while we counted
        conn.execute("INSERT INTO termx.reference_set (shard_id, ref_corpus_id) VALUES (%s, %s)",
                     (shard_id, ref_id))
        copy_binary(conn, "termx.candidate_reference", ("shard_id", "ref_corpus_id", "i", "j", "ref_freq", "ref_df"),
                    ("int4", "int4", "int4", "int4", "int4", "int4"),
                    ((shard_id, ref_id, r.i, r.j, f, d)
                     for r, f, d in zip(rows, freq.tolist(), df.tolist(), strict=True)))
        conn.execute("ANALYZE termx.candidate_reference")


def save_terms(engine: Engine, name: str, corpus: str, rows: Sequence[dict[str, Any]], params: dict[str, Any],
               replace: bool = False) -> int:
    """Store a ranked list as termx.term_list `name` with its terms (COPY); returns the list id.

    An existing list of that name is an error unless `replace`, which swaps it out in the same transaction.
    """
    if not name or len(name) > 200:
        raise InputError("a term list name must have 1 to 200 characters")
    info = get_corpus(engine, corpus)
    try:
        with txn.transaction(engine, f"corpus {corpus!r}") as conn:
            old = conn.execute("SELECT id FROM termx.term_list WHERE name = %s FOR UPDATE", (name,)).fetchone()
            if old is not None:
                if not replace:
                    raise InputError(f"term list {name!r} already exists", "use `replace=True` to overwrite it",
                                     ("replace",))
                conn.execute("DELETE FROM termx.term_list WHERE id = %s", (old[0],))
            list_id = conn.execute("INSERT INTO termx.term_list (name, corpus_id, params) VALUES (%s, %s, %s)"
                                   " RETURNING id", (name, info.id, json.dumps(params))).fetchone()[0]  # type: ignore[index]
            copy_binary(conn, "termx.term", ("list_id", "rank", "term", "score", "freq", "df"),
                        ("int4", "int4", "text", "float8", "int4", "int4[]"),
                        ((list_id, r["rank"], r["term"], r["score"], r["freq"], list(r["df"])) for r in rows))
    except psycopg.errors.UniqueViolation:
        raise InputError(f"term list {name!r} already exists",
                         "another process saved it; use `replace=True`", ("replace",)) from None
    return int(list_id)
