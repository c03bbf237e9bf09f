"""TBL models stored in PostgreSQL: round trip, replace, missing names."""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from termx.errors import ModelExists, ModelNotFound
from termx.tbl import learn, parse_templates
from termx.tbl.model_store import list_models, load_model, save_model
from termx.tbl.segmentation import correct_segmentation, train_segmentation_corrector

GOLD = ["the cat sat on the mat", "the dog ate the hat", "a cat and the dog"] * 5
PRED = [" ".join(s.replace("the ", "the").replace("cat", "c at").split()) for s in GOLD]


def fresh() -> str:
    return f"m_{uuid.uuid4().hex[:8]}"


def test_segmentation_model_round_trip(engine: Engine) -> None:
    name = fresh()
    model = train_segmentation_corrector(GOLD, PRED)
    save_model(engine, name, model)
    back = load_model(engine, name)
    assert back == model
    assert correct_segmentation(back, PRED) == GOLD
    row = next(m for m in list_models(engine) if m["name"] == name)
    assert row["n_rules"] == len(model.rules) and row["accuracy_after"] == 1.0
    with engine.connect() as conn:
        readable = conn.execute(sa.text(
            "SELECT r.readable FROM termx.tbl_rule r JOIN termx.tbl_model m ON m.id = r.model_id"
            " WHERE m.name = :n ORDER BY r.ord"), {"n": name}).scalars().all()
    assert readable == [model.describe(r) for r in model.rules]


def test_general_model_with_custom_templates_round_trip(engine: Engine) -> None:
    templates = parse_templates("far tag[-4..-2] tok[+3]\nnear tok[0]")
    model = learn([5, 6, 7, 5, 6, 7, 5, 6], [0, 1, 2, 0, 1, 2, 0, 1], [0] * 8, [3, 5], templates=templates,
                  min_score=1, n_tags=4)
    assert model.rules
    name = fresh()
    save_model(engine, name, model)
    assert load_model(engine, name) == model


def test_existing_name_needs_replace(engine: Engine) -> None:
    name = fresh()
    first = train_segmentation_corrector(GOLD, PRED, max_rules=1)
    save_model(engine, name, first)
    second = train_segmentation_corrector(GOLD, PRED)
    with pytest.raises(ModelExists, match="replace=True"):
        save_model(engine, name, second)
    assert load_model(engine, name) == first
    save_model(engine, name, second, replace=True)
    assert load_model(engine, name) == second
    with engine.connect() as conn:
        orphans = conn.execute(sa.text(
            "SELECT count(*) FROM termx.tbl_rule WHERE model_id NOT IN (SELECT id FROM termx.tbl_model)")).scalar()
    assert orphans == 0


def test_missing_model(engine: Engine) -> None:
    with pytest.raises(ModelNotFound, match="no TBL model"):
        load_model(engine, fresh())
