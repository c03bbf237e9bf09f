"""TBL models in PostgreSQL (tables termx.tbl_model, termx.tbl_rule; migration 0003_tbl)."""

from __future__ import annotations

import json
import math
from typing import Any

import psycopg
from sqlalchemy.engine import Engine

from termx.errors import ModelExists, ModelNotFound
from termx.storage import transactions
from termx.storage.statements import run_internal, run_internal_many
from termx.tbl.learner import Model, Rule
from termx.tbl.templates import parse_templates


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def save_model(engine: Engine, name: str, model: Model, replace: bool = False, corpus_id: int | None = None,
               conn: psycopg.Connection | None = None) -> int:
    """Store `model` as `name` in one transaction (replacing an existing one only if asked); returns its id.

    `corpus_id` ties the model to the corpus it was trained for (it is dropped with it); `conn` writes inside a
    caller's transaction (termx.storage.transactions) instead of a transaction of its own.
    """
    if conn is None:
        with transactions.transaction(engine, f"TBL model {name!r}") as own:
            return save_model(engine, name, model, replace, corpus_id, own)
    params = {"templates": [t.spec for t in model.templates], "n_tags": model.n_tags,
              "tag_names": list(model.tag_names) if model.tag_names is not None else None,
              "token_kind": model.token_kind, "min_score": model.min_score}
    try:
        transactions.free_name(conn, "tbl.lock_model", "tbl.delete_model", name, replace,
                               ModelExists(f"TBL model {name!r} already exists", "use `replace=True` to overwrite it",
                                           ("replace",)))
        model_id = int(run_internal(
            conn, "tbl.insert_model", name=name, params=json.dumps(params, ensure_ascii=False),
            n_positions=model.n_positions, accuracy_before=_finite(model.accuracy_before),
            accuracy_after=_finite(model.accuracy_after), n_rules=len(model.rules), corpus_id=corpus_id,
        ).fetchone()[0])  # type: ignore[index]
        run_internal_many(conn, "tbl.insert_rule", [
            {"model_id": model_id, "ord": i, "template": r.template.name, "from_tag": r.from_tag, "to_tag": r.to_tag,
             "args": [int(a) for a in r.args], "score": r.score, "good": r.good, "bad": r.bad,
             "readable": model.describe(r)} for i, r in enumerate(model.rules)])
    except psycopg.errors.UniqueViolation:
        raise ModelExists(f"TBL model {name!r} already exists", "another run created it; use `replace=True`",
                          ("replace",)) from None
    return model_id


def load_model(engine: Engine, name: str) -> Model:
    """The stored model `name`, rules in order, ready for `apply` / `correct_segmentation`."""
    with engine.connect() as conn:
        row = run_internal(conn, "tbl.model", name=name).one_or_none()
        if row is None:
            known = run_internal(conn, "tbl.model_names").scalars().all()
            raise ModelNotFound(f"no TBL model named {name!r}",
                                "stored: " + ", ".join(known) if known else "train one with `termx tbl train`")
        rules = run_internal(conn, "tbl.rules", id=row.id).all()
    params: dict[str, Any] = row.params
    templates = parse_templates("\n".join(params["templates"]))
    by_name = {t.name: t for t in templates}
    return Model(
        rules=tuple(Rule(by_name[r.template], r.from_tag, r.to_tag, tuple(int(a) for a in r.args), r.score, r.good,
                         r.bad) for r in rules),
        templates=templates, n_tags=params["n_tags"],
        tag_names=tuple(params["tag_names"]) if params.get("tag_names") is not None else None,
        token_kind=params["token_kind"], min_score=params["min_score"], n_positions=row.n_positions,
        accuracy_before=row.accuracy_before if row.accuracy_before is not None else math.nan,
        accuracy_after=row.accuracy_after if row.accuracy_after is not None else math.nan)


def list_models(engine: Engine) -> list[dict[str, Any]]:
    """One row per stored model: name, rules, training size and accuracy before/after, creation time."""
    with engine.connect() as conn:
        rows = run_internal(conn, "tbl.models").mappings().all()
    return [dict(r) for r in rows]
