"""The white space recovery experiment: conditions, pseudo-documents, baselines, stored runs, compare records,
the `termx whitespace` command (its JSON contract and bad input) and the migration's downgrade."""

from __future__ import annotations

import json
import uuid

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from termx.cli import app
from termx.errors import CorpusExists, InputError
from termx.evaluation import pair_records, read_records, sign_test
from termx.experiments.whitespace import (
    Condition,
    gold_words,
    letter_change_words,
    run_whitespace,
    spaced_documents,
    stored_scores,
)
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.db import resolve_url, upgrade
from termx.wordbreak import Scorer

runner = CliRunner()

TEXTS = ["the cat sat on the mat and the cat ate the rat " * 3, "a rat and a cat sat on a mat " * 3,
         "the mat was flat and the rat was fat " * 3, "on the mat the cat and the rat sat " * 3]


def test_conditions() -> None:
    line = "Mid-1987, Co. paid $300 mln -- up 4.5%."
    assert gold_words(line, Condition.alnum) == ["mid1987", "co", "paid", "300", "mln", "up", "45"]
    assert gold_words(line, Condition.raw) == ["Mid-1987,", "Co.", "paid", "$300", "mln", "--", "up", "4.5%."]
    assert gold_words("Ünïcode Straße 東京", Condition.alnum) == ["ünïcode", "straße", "東京"]


def test_pseudo_documents_group_lines() -> None:
    docs = [Document(f"f:{n}", t) for n, t in enumerate(["a b", "--", "c d e", "f", "g h"])]
    out = spaced_documents(docs, Condition.alnum, lines_per_doc=2)
    assert [(d.name, d.lines) for d in out] == [("f:0", [["a", "b"], ["c", "d", "e"]]), ("f:3", [["f"], ["g", "h"]])]
    assert out[0].text == "abcde"
    assert [d.lines for d in spaced_documents(docs, Condition.raw)] == [[["a", "b"]], [["--"]], [["c", "d", "e"]],
                                                                         [["f"]], [["g", "h"]]]
    with pytest.raises(InputError):
        spaced_documents(docs, Condition.raw, lines_per_doc=0)


def test_letter_change_baseline() -> None:
    assert letter_change_words("mid1987co") == ["mid", "1987", "co"]
    assert letter_change_words("$300mln.") == ["$300", "mln", "."]
    assert letter_change_words("") == []


@pytest.fixture(scope="module")
def report(engine, tmp_path_factory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("results")
    docs = [Document(f"doc{n}", t) for n, t in enumerate(TEXTS)]
    rep = run_whitespace(engine, docs, "ws_lib", scorers=[Scorer.adaptation, Scorer.freq, Scorer.poisson],
                         eval_docs=2, results_dir=folder, replace=True)
    return rep, folder


def test_report_scores_every_scorer_and_baseline(report) -> None:  # type: ignore[no-untyped-def]
    rep, _ = report
    out = rep.as_dict()
    assert [r["scorer"] for r in out["scorers"]] == ["no-boundaries", "letter-change", "adaptation", "freq",
                                                     "poisson"]
    assert out["eval_documents"] == 2 and out["context_documents"] == 2
    gold_boundaries = sum(len(gold_words(t, Condition.alnum)) - 1 for t in TEXTS[:2])
    for r in out["scorers"]:
        assert [d["id"] for d in r["documents"]] == ["doc0", "doc1"]
        assert r["boundary"]["gold"] == gold_boundaries
        assert r["boundary"]["correct"] == sum(d["boundary"]["correct"] for d in r["documents"])
    none = out["scorers"][0]
    assert none["boundary"]["predicted"] == 0 and none["boundary"]["recall"] == 0.0
    assert none["word"]["predicted"] == 2


def test_stored_scores_match_the_report(engine, report) -> None:  # type: ignore[no-untyped-def]
    rep, _ = report
    rows = {r["scorer"]: r for r in stored_scores(engine, rep.run_id)}
    for res in rep.results:
        row = rows[res.scorer]
        assert row["documents"] == 2 and row["kind"] == res.kind
        assert row["boundary_f1"] == pytest.approx(res.boundary.f1)
        assert row["word_p"] == pytest.approx(res.word.precision)
        assert row["word_r"] == pytest.approx(res.word.recall)
    with engine.connect() as conn:
        params = conn.execute(sa.text("SELECT params FROM termx.seg_run WHERE id = :r"), {"r": rep.run_id}).scalar()
    assert params["eval_docs"] == 2 and params["scorers"] == ["adaptation", "freq", "poisson"]


def test_results_feed_the_paired_tests(report) -> None:  # type: ignore[no-untyped-def]
    rep, folder = report
    a, b = read_records(folder / "adaptation.jsonl"), read_records(folder / "freq.jsonl")
    paired = pair_records(a, b, "adaptation", "freq")
    assert paired.ids == ["doc0", "doc1"] and paired.measure == "error rate"
    total = len("".join(gold_words(TEXTS[0], Condition.alnum))) - 1
    assert a[0].total == total and a[0].errors == a[0].outcomes.count(0)  # type: ignore[union-attr]
    # the paired columns are the two scorers' per-document error rates, in document order
    assert list(paired.a) == [r.errors / r.total for r in a] and list(paired.b) == [r.errors / r.total for r in b]
    res = sign_test([-v for v in paired.a], [-v for v in paired.b])  # fewer errors = better
    lower_a = sum(ra.errors < rb.errors for ra, rb in zip(a, b, strict=True))
    lower_b = sum(ra.errors > rb.errors for ra, rb in zip(a, b, strict=True))
    assert (res.details["x_better"], res.details["y_better"], res.n) == (lower_a, lower_b, lower_a + lower_b)


def test_bad_arguments(engine) -> None:  # type: ignore[no-untyped-def]
    docs = [Document("a", "x y"), Document("b", "z w")]
    with pytest.raises(InputError, match="eval_docs"):
        run_whitespace(engine, docs, "ws_bad", eval_docs=3, replace=True)
    with pytest.raises(InputError, match="no words"):
        run_whitespace(engine, [Document("a", "-- !!")], "ws_bad", replace=True)
    with pytest.raises(InputError, match="byte or char"):
        run_whitespace(engine, docs, "ws_bad", unit=Unit.word, replace=True)
    run_whitespace(engine, docs, "ws_twice", scorers=[Scorer.freq])
    with pytest.raises(CorpusExists):
        run_whitespace(engine, docs, "ws_twice")


def test_raw_condition_in_char_unit_with_pseudo_documents(engine) -> None:  # type: ignore[no-untyped-def]
    lines = ["東京 大学 に 行く", "東京 に 住む", "大学 に 行く", "京都 大学 に 行く"]
    docs = [Document(f"l{n}", t) for n, t in enumerate(lines)]
    rep = run_whitespace(engine, docs, "ws_zh", unit=Unit.char, condition=Condition.raw, lines_per_doc=2,
                         scorers=[Scorer.adaptation], replace=True)
    res = {r.scorer: r for r in rep.results}
    assert rep.eval_documents == 2
    # the join of two lines is never a boundary to find: 3 + 2 + 2 + 3 interior boundaries
    assert res["no-boundaries"].boundary.gold == 10 and res["no-boundaries"].word.predicted == 4
    assert res["adaptation"].word.gold == 14


def test_cli_contract_json(db_env: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    for n, t in enumerate(TEXTS):
        (tmp_path / f"doc{n:02d}.txt").write_text(t, encoding="utf-8")
    res = runner.invoke(app, ["whitespace", str(tmp_path), "--corpus", "c_ws", "--scorers", "adaptation,freq",
                              "--eval-docs", "2", "--format", "json", "--replace", "--quiet"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    rows = out["scorers"]
    assert {"adaptation", "freq"} <= {r["scorer"] for r in rows}
    for r in rows:
        assert "documents" in r
        for part in ("boundary", "word"):
            assert {"precision", "recall", "f1"} <= set(r[part])
    res = runner.invoke(app, ["whitespace", str(tmp_path), "--corpus", "c_ws", "--replace", "--quiet",
                              "--results", str(tmp_path / "res")])
    assert res.exit_code == 0, res.output
    assert "adaptation" in res.stdout and "letter-change" in res.stdout
    assert sorted(p.name for p in (tmp_path / "res").iterdir()) == [
        "adaptation.jsonl", "branching.jsonl", "freq.jsonl", "letter-change.jsonl", "no-boundaries.jsonl"]


def test_cli_bad_input(db_env: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.txt").write_text("a b c", encoding="utf-8")
    res = runner.invoke(app, ["whitespace", str(tmp_path), "--corpus", "c_ws_bad", "--scorers", "adaptation,magic"])
    assert res.exit_code == 1 and res.stderr.startswith("Error: unknown scorer 'magic'")
    res = runner.invoke(app, ["whitespace", str(tmp_path / "nope"), "--corpus", "c_ws_bad"])
    assert res.exit_code == 1 and "no such file" in res.stderr and "Traceback" not in res.output
    res = runner.invoke(app, ["whitespace", str(tmp_path), "--corpus", "c_ws_bad", "--eval-docs", "5"])
    assert res.exit_code == 1 and "--eval-docs" in res.stderr
    res = runner.invoke(app, ["whitespace", str(tmp_path), "--corpus", "c_ws_bad", "--condition", "nope"])
    assert res.exit_code == 2
    for spec, message in (("theta", "bad --param"), ("zeta=1", "no chosen scorer takes"),
                          ("freq.theta=1", "has no parameter"), ("branching.window=0", "window")):
        res = runner.invoke(app, ["whitespace", str(tmp_path), "--corpus", "c_ws_bad", "--param", spec])
        assert res.exit_code == 1 and message in res.stderr, (spec, res.stderr)


def test_cli_params_reach_the_scorers(db_env: str, engine, tmp_path) -> None:  # type: ignore[no-untyped-def]
    for n, t in enumerate(TEXTS):
        (tmp_path / f"doc{n:02d}.txt").write_text(t, encoding="utf-8")
    res = runner.invoke(app, ["whitespace", str(tmp_path), "--corpus", "c_ws_p", "--scorers", "branching,freq",
                              "--param", "beta=-3", "--param", "branching.theta=-2", "--format", "json",
                              "--replace", "--quiet"])
    assert res.exit_code == 0, res.output
    params = {r["scorer"]: r.get("params") for r in json.loads(res.stdout)["scorers"]}
    assert params["freq"] == {"beta": -3.0} and params["branching"]["theta"] == -2.0


def test_migration_downgrades_cleanly(database_url: str) -> None:
    from alembic import command

    from termx.storage.db import _alembic_config

    server = resolve_url(database_url)
    name = f"termx_seg_mig_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    eng = sa.create_engine(server.set(database=name))
    try:
        upgrade(eng, "0006_segment")
        tables = "SELECT count(*) FROM pg_tables WHERE schemaname = 'termx' AND tablename LIKE 'seg_%'"
        with eng.connect() as conn:
            assert conn.execute(sa.text(tables)).scalar() == 2
        command.downgrade(_alembic_config(eng), "0001_core")
        with eng.connect() as conn:
            assert conn.execute(sa.text(tables)).scalar() == 0
            assert conn.execute(sa.text("SELECT count(*) FROM pg_tables WHERE schemaname = 'termx'"
                                        " AND tablename = 'corpus'")).scalar() == 1
    finally:
        eng.dispose()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()
