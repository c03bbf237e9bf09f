"""Rankings of the stored term candidates: each is one commented query sql/terms_<rank>.sql, so the library and
an analyst in psql see the same list."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Engine

from termx.defaults import Ranking
from termx.errors import InputError
from termx.progress import Progress, Silent, Timings
from termx.storage.corpora import get_corpus
from termx.terms.candidate_store import ensure_candidates
from termx.terms.nested import NESTED_RANKS, rerank
from termx.terms.reference import ensure_reference

ALL_ROWS = 2**31 - 1  # the ranking queries take an integer LIMIT


def _check(rank: Ranking, top: int, min_df: int, min_len: int, max_len: int, max_k: int,
           reference: str | None, nested: bool) -> None:
    """Reject parameters no ranking can use (the messages name them as `extract_terms` does)."""
    if top < 1:
        raise InputError("`top` must be at least 1", params=("top",))
    if min_df < 1:
        raise InputError("`min_df` must be at least 1", params=("min_df",))
    if min_len < 1 or max_len < min_len:
        raise InputError(f"need 1 <= `min_len` <= `max_len` (got {min_len} and {max_len})",
                         params=("min_len", "max_len"))
    if rank in (Ranking.adaptation, Ranking.poisson) and max_k < 2:
        raise InputError(f"`rank={rank.value}` needs df_2, but the corpus was built with `max_k={max_k}`",
                         "rebuild it with `max_k=2` or more", ("rank", "max_k"))
    if rank is Ranking.specificity and reference is None:
        raise InputError("`rank=specificity` needs `reference=REF`", "REF: an indexed corpus of general text",
                         ("rank", "reference"))
    if rank is not Ranking.specificity and reference is not None:
        raise InputError(f"`reference` only serves `rank=specificity`, not `rank={rank.value}`",
                         params=("reference", "rank"))
    if nested and rank.value not in NESTED_RANKS:
        raise InputError(f"`nested` discounts freq, which `rank={rank.value}` does not use",
                         "use it with rank freq, specificity or cvalue", ("nested", "rank"))


def extract_terms(engine: Engine, corpus: str, rank: Ranking | str = Ranking.adaptation, top: int = 100,
                  min_df: int = 3, min_len: int = 2, max_len: int = 40, progress: Progress | None = None,
                  timings: Timings | None = None, reference: str | None = None,
                  nested: bool = False) -> list[dict[str, Any]]:
    """The corpus's top terms by `rank`, best first: rows with rank, term, score, freq, df (df_1..df_K), len
    (and ref_freq, ref_df for specificity, which compares against the corpus `reference`).

    Filters: df_1 >= min_df and min_len <= length in tokens <= max_len. Ties: score, then freq, descending,
    then term in C collation. `nested` (rank freq or specificity) scores with C-value's discounted frequency
    instead of freq, and rank cvalue is C-value itself (termx.terms.nested: both rescore every candidate that
    passes the filters in Python, from the rows of the freq or specificity query).
    """
    from termx.storage.sqlfiles import run_sql

    rank = Ranking(rank)
    info = get_corpus(engine, corpus)
    _check(rank, top, min_df, min_len, max_len, info.max_k, reference, nested)
    timings = timings if timings is not None else Timings()
    params: dict[str, Any] = {"corpus": corpus, "min_df": min_df, "min_len": min_len, "max_len": max_len, "top": top}
    if reference is not None:
        ensure_reference(engine, corpus, reference, progress, timings)
        params["reference"] = reference
    else:
        ensure_candidates(engine, corpus, progress, timings)
    if not nested and rank is not Ranking.cvalue:
        with timings.stage(f"rank by {rank.value}", progress or Silent()):
            return run_sql(engine, f"terms_{rank.value}", params)
    query = "terms_freq" if rank is Ranking.cvalue else f"terms_{rank.value}"
    with timings.stage(f"rank by {rank.value}" + (" with the nested discount" if nested else ""),
                       progress or Silent()):
        rows = run_sql(engine, query, {**params, "top": ALL_ROWS})
        ref_tokens = get_corpus(engine, reference).tokens if reference is not None else None
        return rerank(rows, rank.value, info.unit, nested or rank is Ranking.cvalue, info.tokens, ref_tokens, top)
