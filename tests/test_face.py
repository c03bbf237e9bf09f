"""The face's study, TBL and admin methods (termx/face/) return the records the CLI prints with --format json, and
those records are the algorithm's (issue 28: the CLI is a thin mapping of the library)."""

from __future__ import annotations

import json
import uuid

import pytest
from typer.testing import CliRunner

from termx.cli import app
from termx.database import Database
from termx.studies.adaptation import adapt_rows
from termx.studies.crossval import crossval_bins, half_statistics

runner = CliRunner()


@pytest.fixture(scope="module")
def hiho(database_url: str) -> str:
    name = f"face-{uuid.uuid4().hex[:8]}"
    with Database(database_url) as db:
        db.index(name, [("a", "Hi_Ho_Hi_Ho"), ("b", "Hi_Ho"), ("c", "Hi")])
    return name


def _json(*args: str) -> object:
    r = runner.invoke(app, list(args))
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_crossval_and_adaptation_are_the_studies_records(db_env: str, hiho: str) -> None:
    with Database(db_env) as db:
        corpus = db.corpus(hiho)
        report = corpus.crossval()
        index = corpus.index
        assert report["rows"] == crossval_bins(half_statistics(index)).rows()
        assert (report["documents"], report["tokens"], report["bins"]) == (3, index.n, len(report["rows"]))
        assert _json("crossval", hiho, "--format", "json") == report["rows"]
        rows = corpus.adaptation(["Hi", "Ho"], method="1")
        assert list(rows[0]) == ["pattern", "a", "b", "c", "d", "p_adapt", "prior", "p_neg_adapt"]
        assert rows == [{k: r[k] for k in rows[0]} for r in adapt_rows(index, ["Hi", "Ho"])]
        assert _json("adapt", hiho, "Hi", "Ho", "--method", "1", "--format", "json") == rows
        assert _json("adapt", hiho, "--min-df", "1", "--format", "json") == [corpus.agreement(min_df=1)]
        assert _json("adapt", hiho, "--shape", "--format", "json") == corpus.shape()


def test_tbl_methods_learn_store_apply_and_list(db_env: str) -> None:
    name = f"face-tbl-{uuid.uuid4().hex[:8]}"
    gold, pred = ["ab cd", "ab ef", "ab cd ef"], ["abcd", "abef", "abcdef"]
    with Database(db_env) as db:
        record = db.tbl_learn(name, gold, pred, min_score=1)
        assert record["n_rules"] >= 1 and record["accuracy_after"] > record["accuracy_before"]
        assert db.tbl_model(name) == record == _json("tbl", "rules", name, "--format", "json")
        assert db.tbl_corrector(name)(pred) == gold
        assert name in [m["name"] for m in db.tbl_models()]
    assert Database.tbl_templates() == _json("tbl", "templates", "--format", "json")
    assert len(Database.tbl_templates("chars8_tags")) > len(Database.tbl_templates())


def test_admin_methods_need_no_connection() -> None:
    status = Database.cache_status()
    assert set(status) == {"path", "cache_bytes", "cache_max_bytes", "folders"}
    assert status["folders"] == len(Database.cache_folders())
    server = Database.server_status()
    assert server["running"] is Database.server_running()
    assert {"pid", "data_dir", "db_bytes", "cache_bytes"} <= set(server)
