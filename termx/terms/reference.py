"""Counts of a corpus's term candidates in a reference corpus (the specificity ranking compares against them)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy.engine import Engine

from termx.errors import CorpusNotFound, InputError
from termx.lookup import Shards, as_shards
from termx.progress import Progress, Silent, Timings
from termx.storage.corpora import corpus_not_found, get_corpus
from termx.storage.index_loader import load_shards
from termx.storage.statements import run_internal
from termx.terms.candidate_store import ensure_candidates, store_reference
from termx.terms.corpus_candidates import summed_counts


def reference_counts(index: Shards, terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(freq, df_1) of each term in a loaded reference index, summed over its shards: two binary searches in
    each shard's SA per term, df_1 from the class of that interval (a term found once in a shard is in one
    document there; one it cannot spell occurs 0 times)."""
    shards = as_shards(index)
    encoded = [shards[0].encode(term) for term in terms]
    pieces = [np.zeros(0, dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64) for ids in encoded]
    offsets = np.concatenate([[0], np.cumsum([len(p) for p in pieces], dtype=np.int64)])
    flat = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
    freq, df = summed_counts(shards, flat, offsets)
    return freq, df[:, 0].copy()


def _reference_info(engine: Engine, corpus: str, reference: str) -> int:
    """The reference corpus's id, after checking that it exists, differs from `corpus` and has its unit."""
    try:
        ref = get_corpus(engine, reference)
    except CorpusNotFound:
        raise corpus_not_found(engine, reference, f"reference corpus {reference!r} not found",
                               "index it first, in the unit of the corpus; termx corpora lists the corpora") from None
    info = get_corpus(engine, corpus)
    if ref.id == info.id:
        raise InputError("the reference corpus must differ from the corpus", "use a corpus of general text")
    if ref.unit != info.unit:
        raise InputError(f"reference corpus {reference!r} has unit {ref.unit}, corpus {corpus!r} has {info.unit}",
                         f"index the reference with `unit={info.unit}`", ("unit",))
    return ref.id


def ensure_reference(engine: Engine, corpus: str, reference: str, progress: Progress | None = None,
                     timings: Timings | None = None) -> None:
    """Count the corpus's candidates in the reference corpus and store the counts, unless stored already."""
    progress = progress or Silent()
    timings = timings if timings is not None else Timings()
    ref_id = _reference_info(engine, corpus, reference)
    ensure_candidates(engine, corpus, progress, timings)
    info = get_corpus(engine, corpus)
    with engine.connect() as conn:
        missing = list(run_internal(conn, "terms.shards_without_reference", r=ref_id, c=info.id).scalars())
    if not missing:
        return
    with timings.stage("load reference index", progress):
        ref_index = load_shards(engine, reference)
    for shard_id in missing:
        with engine.connect() as conn:
            rows = run_internal(conn, "terms.shard_candidates", s=shard_id).all()
        with timings.stage("count candidates in the reference", progress):
            freq, df = reference_counts(ref_index, [r.term for r in rows])
        with timings.stage("store reference counts", progress):
            store_reference(engine, shard_id, ref_id, rows, freq, df)
