"""The term writers: a corpus's candidates and its reference counts (computed once, stored by binary COPY under
per-shard advisory locks) and saved term lists."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import psycopg
from sqlalchemy.engine import Engine

from termx.errors import InputError
from termx.faults import fault_point
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.progress import Progress, Silent, Timings
from termx.storage import transactions
from termx.storage.copyrows import copy_binary
from termx.storage.corpora import get_corpus
from termx.storage.index_loader import load_shards
from termx.storage.statements import run_internal
from termx.terms.candidates import CANDIDATE_RULES, NULL_BINS, SPACED_FRACTION
from termx.terms.corpus_candidates import CorpusCandidates, one_shard_candidates, summed_candidates

COPY_ROWS = 50_000         # candidates per COPY chunk


def _candidates_stale(conn: psycopg.Connection, corpus_id: int) -> bool:
    """Whether the corpus's candidates must be (re)computed: a shard has none under the current rules, or they
    were summed over another number of shards (an --append added shards since). A corpus without shards (dropped
    meanwhile) counts as stale, so that storing fails on its missing shards with the usual one line."""
    rows = run_internal(conn, "terms.candidates_stale", corpus_id=corpus_id).fetchall()
    return not rows or any(rules != CANDIDATE_RULES or shards != len(rows) for rules, shards in rows)


def _texts(engine: Engine, index: LoadedIndex) -> list[str] | None:
    """The texts of a shard's documents in order (word units need them for spacing; None otherwise)."""
    if index.unit is not Unit.word:
        return None
    with engine.connect() as conn:
        return list(run_internal(conn, "terms.shard_texts", c=index.corpus.id, s=index.shard_id).scalars())


def ensure_candidates(engine: Engine, corpus: str, progress: Progress | None = None,
                      timings: Timings | None = None) -> None:
    """Compute and store the corpus's term candidates unless they are stored already (one transaction).

    A corpus of several shards stores each distinct candidate string once, under its representative shard, with
    freq, df_k and p0 of the whole corpus (termx.terms.corpus_candidates), so the rankings read one row per string.
    """
    progress = progress or Silent()
    timings = timings if timings is not None else Timings()
    info = get_corpus(engine, corpus)
    with transactions.connection(engine) as conn:
        if not _candidates_stale(conn, info.id):
            return
    with timings.stage("load index", progress):
        shards = load_shards(engine, corpus)
    with timings.stage("term candidates", progress):
        texts = [_texts(engine, s) for s in shards]
        found = one_shard_candidates(shards[0], texts[0]) if len(shards) == 1 else summed_candidates(shards, texts)
    with timings.stage("store candidates", progress, len(found.terms)) as advance:
        _store_candidates(engine, shards, found, advance)


def _candidate_rows(shards: Sequence[LoadedIndex], found: CorpusCandidates, advance: Any) -> Iterator[tuple[Any, ...]]:
    """Rows (shard_id, i, j, len, freq, df, p0, term) of the candidates, reporting progress every COPY_ROWS."""
    shard_ids = np.array([s.shard_id for s in shards], dtype=np.int64)
    for at in range(0, len(found.terms), COPY_ROWS):
        part = slice(at, at + COPY_ROWS)
        yield from zip(shard_ids[found.shard[part]].tolist(), found.i[part].tolist(), found.j[part].tolist(),
                       found.length[part].tolist(), found.freq[part].tolist(), found.df[part].tolist(),
                       found.p0[part].tolist(), found.terms[part], strict=True)
        advance(len(found.terms[part]))


def _store_candidates(engine: Engine, shards: Sequence[LoadedIndex], found: CorpusCandidates, advance: Any) -> None:
    """Replace the candidate sets of every shard of the corpus by `found`, unless another process stored them."""
    fault_point("store_candidates")
    corpus = shards[0].corpus
    ids = [s.shard_id for s in shards]
    with transactions.transaction(engine, f"corpus {corpus.name!r}") as conn:
        for shard_id in sorted(ids):
            transactions.lock(conn, transactions.LOCK_CANDIDATES, shard_id)
        if not _candidates_stale(conn, corpus.id):
            return  # another process stored them while we computed
        run_internal(conn, "terms.delete_candidate_sets", ids=ids)
        counts = np.bincount(found.shard, minlength=len(shards)).tolist()
        params = json.dumps({"spaced_fraction": SPACED_FRACTION, "null_bins": NULL_BINS, "max_len": corpus.rep_cap,
                             "shards": len(shards)})
        for shard_id, count in zip(ids, counts, strict=True):
            run_internal(conn, "terms.insert_candidate_set", shard_id=shard_id, rules=CANDIDATE_RULES,
                         spaced=found.spaced, candidates=count, params=params)
        copy_binary(conn, "termx.candidate", ("shard_id", "i", "j", "len", "freq", "df", "p0", "term"),
                    ("int4", "int4", "int4", "int4", "int4", "int4[]", "float8", "text"),
                    _candidate_rows(shards, found, advance))
        run_internal(conn, "terms.analyze_candidates")


def store_reference(engine: Engine, shard_id: int, ref_id: int, rows: Sequence[Any], freq: np.ndarray,
                    df: np.ndarray) -> None:
    """Store the reference counts (freq, df) of a shard's candidates `rows` (with .i, .j), unless another
    process stored them first."""
    with transactions.transaction(engine, "the corpus or its reference corpus") as conn:
        transactions.lock(conn, transactions.LOCK_CANDIDATES, shard_id)
        if run_internal(conn, "terms.reference_stored", shard_id=shard_id, ref_id=ref_id).fetchone() is not None:
            return  # another process stored them while we counted
        run_internal(conn, "terms.insert_reference_set", shard_id=shard_id, ref_id=ref_id)
        copy_binary(conn, "termx.candidate_reference", ("shard_id", "ref_corpus_id", "i", "j", "ref_freq", "ref_df"),
                    ("int4", "int4", "int4", "int4", "int4", "int4"),
                    ((shard_id, ref_id, r.i, r.j, f, d)
                     for r, f, d in zip(rows, freq.tolist(), df.tolist(), strict=True)))
        run_internal(conn, "terms.analyze_reference")


def save_terms(engine: Engine, name: str, corpus: str, rows: Sequence[dict[str, Any]], params: dict[str, Any],
               replace: bool = False) -> int:
    """Store a ranked list as termx.term_list `name` with its terms (COPY); returns the list id.

    An existing list of that name is an error unless `replace`, which swaps it out in the same transaction.
    """
    if not name or len(name) > 200:
        raise InputError("a term list name must have 1 to 200 characters")
    info = get_corpus(engine, corpus)
    try:
        with transactions.transaction(engine, f"corpus {corpus!r}") as conn:
            transactions.free_name(conn, "terms.lock_term_list", "terms.delete_term_list", name, replace,
                                   InputError(f"term list {name!r} already exists",
                                              "use `replace=True` to overwrite it", ("replace",)))
            list_id = run_internal(conn, "terms.insert_term_list", name=name, corpus_id=info.id,
                                   params=json.dumps(params)).fetchone()[0]  # type: ignore[index]
            copy_binary(conn, "termx.term", ("list_id", "rank", "term", "score", "freq", "df"),
                        ("int4", "int4", "text", "float8", "int4", "int4[]"),
                        ((list_id, r["rank"], r["term"], r["score"], r["freq"], list(r["df"])) for r in rows))
    except psycopg.errors.UniqueViolation:
        raise InputError(f"term list {name!r} already exists",
                         "another process saved it; use `replace=True`", ("replace",)) from None
    return int(list_id)
