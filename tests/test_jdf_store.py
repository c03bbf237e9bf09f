"""Stored sketches (termx sketch, index --sketches), their cascade with the corpus, and related from the CLI and
SQL."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from termx.cli import app
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.jdf.pairs import jdf_pairs, load_parts
from termx.jdf.sketch_store import _memo, build_sketches, load_sketches
from termx.storage.corpora import drop_corpus
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents

TEXTS = ["the cat sat on the mat", "the dog sat", "a cat and a dog", "cats chase mice", "the mat is red",
         "a red cat", "dogs and cats", "the mice ran", "cat food for the cat", "no animals here"] * 3


@pytest.fixture
def pets(engine, db_env):  # type: ignore[no-untyped-def]
    docs = [Document(str(n), t) for n, t in enumerate(TEXTS)]
    index_documents(engine, "pets", docs, Unit.word, replace=True)
    return engine


def test_stored_sketches_equal_recomputed_and_cascade(pets) -> None:  # type: ignore[no-untyped-def]
    summary = build_sketches(pets, "pets", k=4, threshold=3)
    index = load_index(pets, "pets")
    _memo.clear()
    sk = load_sketches(pets, index)
    assert summary["classes"] == len(sk) > 0
    with pets.connect() as conn:
        rows = conn.execute(sa.text("SELECT cls, i, j, df, hashes, sil FROM termx.sketch WHERE shard_id = :s"
                                    " ORDER BY cls"), {"s": index.shard_id}).all()
    assert [r[0] for r in rows] == sk.cls.tolist()
    for n, r in enumerate(rows):
        m = r[0]
        assert (r[1], r[2], r[3], r[5]) == (index.cls_i[m], index.cls_j[m], index.cls_df[m, 0], index.cls_sil[m])
        assert np.frombuffer(r[4], dtype="<i8").tolist() == np.asarray(sk.of(n)).tolist()
    drop_corpus(pets, "pets")
    with pets.connect() as conn:
        for table in ("sketch", "sketch_set", "related_class", "related_doc"):
            assert conn.execute(sa.text(f"SELECT count(*) FROM termx.{table} WHERE shard_id = :s"),
                                {"s": index.shard_id}).scalar() == 0
    index_documents(pets, "pets", [Document(str(n), t) for n, t in enumerate(TEXTS)], Unit.word)
    build_sketches(pets, "pets", k=4, threshold=3)
    build_sketches(pets, "pets", k=5, threshold=3)
    with pets.connect() as conn:  # the dropped shard's emptied partition is gone, the rebuilt one replaced
        names = conn.execute(sa.text("SELECT c.relname FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid"
                                     " WHERE h.inhparent = 'termx.sketch'::regclass")).scalars().all()
        shard = load_index(pets, "pets").shard_id
        assert f"sketch_{shard}" in names and f"sketch_{index.shard_id}" not in names


def test_sketch_estimates_and_related(pets) -> None:  # type: ignore[no-untyped-def]
    runner = CliRunner()
    r = runner.invoke(app, ["sketch", "pets", "--k", "4", "--threshold", "3", "-f", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(runner.invoke(app, ["jdf", "pets", "cat", "the", "dog", "--sketch", "-f", "json"]).stdout)
    exact = jdf_pairs(load_parts(pets, "pets", with_sketches=False), "cat", ["the", "dog"])
    for row, ex in zip(rows, exact, strict=True):
        assert row["method"] == "sketch" and (row["df_x"], row["df_y"]) == (ex["df_x"], ex["df_y"])
        assert row["interval"][0] <= row["jdf"] <= row["interval"][1]
    r = runner.invoke(app, ["related", "pets", "cat", "--min-df", "3", "--measure", "pmi", "-f", "json"])
    assert r.exit_code == 0, r.output
    related = json.loads(r.stdout)
    assert related and all({"term", "df", "jdf", "score"} <= set(x) for x in related)
    parts = load_parts(pets, "pets", with_sketches=False)
    for x in related:
        assert "cat" not in x["term"] and x["term"] not in "cat"
        assert jdf_pairs(parts, "cat", [x["term"]])[0]["jdf"] == x["jdf"]
    assert [x["score"] for x in related] == sorted((x["score"] for x in related), reverse=True)
    with pets.connect() as conn:
        sql_rows = conn.execute(sa.text("SELECT * FROM termx.related('pets', 'cat', 20, 'pmi', 3)")).mappings().all()
    assert sql_rows
    for x in sql_rows:
        assert jdf_pairs(parts, "cat", [x["term"]])[0]["jdf"] == x["jdf"]
        assert "cat" not in x["term"]
    r = runner.invoke(app, ["related", "pets", "zebra"])
    assert r.exit_code == 1 and "does not occur" in r.stderr
    r = runner.invoke(app, ["related", "pets", "cat", "--measure", "chi"])
    assert r.exit_code == 1 and "unknown measure" in r.stderr
