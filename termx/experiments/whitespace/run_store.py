"""A run in the database: termx.seg_run and its per-document counts in termx.seg_score."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.engine import Engine

from termx.experiments.whitespace.report import ScorerResult
from termx.experiments.whitespace.tbl import model_name
from termx.storage import transactions
from termx.storage.copyrows import copy_binary
from termx.storage.corpora import get_corpus
from termx.storage.statements import run_internal
from termx.tbl.learner import Model
from termx.tbl.model_store import save_model


def store_run(engine: Engine, corpus: str, params: dict[str, Any], results: Sequence[ScorerResult],
              models: Mapping[str, Model] | None = None) -> int:
    """Insert the run, COPY its per-document counts (termx.seg_run, termx.seg_score) and store its TBL models
    (one per scorer, tied to the corpus), all in one transaction; returns the run id."""
    corpus_id = get_corpus(engine, corpus).id
    with transactions.transaction(engine, f"corpus {corpus!r}") as conn:
        run_id = run_internal(conn, "whitespace.insert_run", corpus_id=corpus_id,
                              params=json.dumps(params)).fetchone()[0]  # type: ignore[index]
        copy_binary(conn, "termx.seg_score", ("run_id", "scorer", "kind", "doc_no", "doc_name", "b_tp", "b_fp",
                                              "b_fn", "w_tp", "w_fp", "w_fn"),
                    ("int4", "text", "text", "int4", "text", "int4", "int4", "int4", "int4", "int4", "int4"),
                    ((run_id, r.scorer, r.kind, n, name, d["boundary"].correct,
                      d["boundary"].predicted - d["boundary"].correct, d["boundary"].gold - d["boundary"].correct,
                      d["word"].correct, d["word"].predicted - d["word"].correct, d["word"].gold - d["word"].correct)
                     for r in results for n, (name, d) in enumerate(zip(r.names, r.per_document, strict=True))))
        for scorer, model in (models or {}).items():
            save_model(engine, model_name(run_id, scorer), model, replace=True, corpus_id=corpus_id, conn=conn)
    return int(run_id)


def stored_scores(engine: Engine, run_id: int) -> list[dict[str, Any]]:
    """Overall scores of a stored run, per scorer, from sql/segment_scores.sql."""
    from termx.storage.sqlfiles import run_sql

    return run_sql(engine, "segment_scores", {"run": run_id})
