"""`termx whitespace --tbl`: TBL correctors trained on context documents only, `<scorer>+tbl` rows equal to
re-applying the stored rules to the scorer's output, the paired-test section equal to termx.evaluation called
directly, the training sample, bad input and the 0008_segment_tbl migration's downgrade."""

from __future__ import annotations

import json
import random
import uuid

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from termx.cli import app
from termx.errors import InputError
from termx.evaluation import compare, pair_records, read_records, segmentation_prf, segmentation_records
from termx.evaluation.metrics import PRF
from termx.experiments.whitespace import (
    Condition,
    SpacedDocument,
    TblSettings,
    gold_words,
    run_whitespace,
    stored_scores,
    tbl_training_sample,
)
from termx.index.ingest import Document
from termx.storage.db import resolve_url, upgrade
from termx.storage.index_loader import load_index
from termx.tbl.model_store import list_models, load_model
from termx.tbl.segmentation import correct_segmentation
from termx.wordbreak import Scorer, Segmenter

runner = CliRunner()

WORDS = "the cat sat on mat and ate rat a was flat fat dog ran to park with big red ball".split()
EVAL, CONTEXT, TRAIN_CHARS = 8, 24, 2500


def texts() -> list[str]:
    rng = random.Random(7)
    return [" ".join(rng.choice(WORDS) for _ in range(50)) for _ in range(EVAL + CONTEXT)]


@pytest.fixture(scope="module")
def run(tmp_path_factory, database_url):  # type: ignore[no-untyped-def]
    """One CLI run with --tbl on two scorers: its JSON report and its --results folder."""
    folder = tmp_path_factory.mktemp("tbl_docs")
    for n, t in enumerate(texts()):
        (folder / f"d{n:02d}.txt").write_text(t, encoding="utf-8")
    results = folder / "results"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TERMX_DATABASE_URL", database_url)
        res = runner.invoke(app, ["whitespace", str(folder), "--corpus", "ws_tbl", "--scorers", "branching,freq",
                                  "--eval-docs", str(EVAL), "--tbl", "--tbl-train-chars", str(TRAIN_CHARS),
                                  "--results", str(results), "--format", "json", "--replace", "--quiet"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout), results


def test_tbl_rows_sit_next_to_their_scorers(run) -> None:  # type: ignore[no-untyped-def]
    out, results = run
    assert [(r["scorer"], r["kind"]) for r in out["scorers"]] == [
        ("no-boundaries", "baseline"), ("letter-change", "baseline"), ("branching", "scorer"),
        ("branching+tbl", "tbl"), ("freq", "scorer"), ("freq+tbl", "tbl")]
    assert {p.name for p in results.iterdir()} >= {"branching+tbl.jsonl", "freq+tbl.jsonl"}
    assert [t["scorer"] for t in out["tbl"]] == ["branching", "freq"]
    rows = {r["scorer"]: r for r in out["scorers"]}
    # the weak freq scorer leaves plenty for the rules to fix on this corpus
    assert rows["freq+tbl"]["boundary"]["f1"] > rows["freq"]["boundary"]["f1"]


def test_training_documents_are_context_documents(run) -> None:  # type: ignore[no-untyped-def]
    out, _ = run
    evaluated = {d["id"] for d in out["scorers"][0]["documents"]}
    assert len(evaluated) == EVAL
    spaced = [SpacedDocument(f"d{n:02d}.txt", [gold_words(t, Condition.alnum)]) for n, t in enumerate(texts())]
    sample = [spaced[k].name for k in tbl_training_sample(spaced, EVAL, TRAIN_CHARS)]
    for step in out["tbl"]:
        train = step["train_documents"]
        assert train == sample and not set(train) & evaluated
        chars = sum(len(spaced[int(name[1:3])].text) for name in train)
        assert step["train_characters"] == chars >= TRAIN_CHARS
        assert chars - len(spaced[int(train[-1][1:3])].text) < TRAIN_CHARS or len(train) == CONTEXT


def test_tbl_scores_equal_applying_the_stored_rules(run, engine) -> None:  # type: ignore[no-untyped-def]
    out, results = run
    index = load_index(engine, "ws_tbl")
    gold = [[gold_words(t, Condition.alnum)] for t in texts()[:EVAL]]
    names = [d["id"] for d in out["scorers"][0]["documents"]]
    rows = {r["scorer"]: r for r in out["scorers"]}
    for step in out["tbl"]:
        scorer = step["scorer"]
        model = load_model(engine, step["model"])
        assert step["model"] == f"whitespace-{out['run_id']}-{scorer}" and len(model.rules) == step["rules"]
        assert step["model"] in {m["name"] for m in list_models(engine)}
        segmenter = Segmenter(index, Scorer(scorer), options=rows[scorer]["params"])
        before = [segmenter.segment_lines(["".join(line) for line in doc]) for doc in gold]
        after = [[line.split() for line in correct_segmentation(model, [" ".join(w) for w in doc])] for doc in before]
        for name, system in ((scorer, before), (f"{scorer}+tbl", after)):
            per_doc = [segmentation_prf(g[0], p[0]) for g, p in zip(gold, system, strict=True)]
            got = rows[name]["documents"]
            for mine, theirs in zip(per_doc, got, strict=True):
                assert mine["boundary"].as_dict() == theirs["boundary"]
                assert mine["word"].as_dict() == theirs["word"]
            records = segmentation_records(names, [g[0] for g in gold], [p[0] for p in system])
            assert [json.loads(x) for x in (results / f"{name}.jsonl").read_text().splitlines()] == records
        pooled = sum((segmentation_prf(g[0], p[0])["boundary"] for g, p in zip(gold, after, strict=True)),
                     PRF(0, 0, 0))
        assert step["after"] == pooled.as_dict() == rows[f"{scorer}+tbl"]["boundary"]
        assert step["before"] == rows[scorer]["boundary"]


def test_paired_tests_agree_with_the_toolkit(run) -> None:  # type: ignore[no-untyped-def]
    out, results = run
    for step in out["tbl"]:
        scorer = step["scorer"]
        a, b = read_records(results / f"{scorer}.jsonl"), read_records(results / f"{scorer}+tbl.jsonl")
        data = pair_records(a, b)
        direct = {r["test"]: r for r in compare(data, ["sign", "wilcoxon"])}
        for test in ("sign", "wilcoxon"):
            assert step[test]["p_value"] == direct[test]["p_value"]
            assert step[test]["n"] == direct[test]["n"]
            assert step[test]["better"] == {"A": scorer, "B": f"{scorer}+tbl", None: None}[direct[test]["better"]]
        fewer = sum(rb.errors < ra.errors for ra, rb in zip(a, b, strict=True))  # type: ignore[operator]
        more = sum(rb.errors > ra.errors for ra, rb in zip(a, b, strict=True))  # type: ignore[operator]
        assert (step["sign"]["b_better"], step["sign"]["a_better"]) == (fewer, more)
        assert step["sign"]["n"] == fewer + more


def test_stored_run_holds_the_tbl_rows(run, engine) -> None:  # type: ignore[no-untyped-def]
    out, _ = run
    rows = {r["scorer"]: r for r in stored_scores(engine, out["run_id"])}
    assert rows["freq+tbl"]["kind"] == "tbl"
    assert rows["freq+tbl"]["boundary_f1"] == pytest.approx(out["tbl"][1]["after"]["f1"])
    with engine.connect() as conn:
        params = conn.execute(sa.text("SELECT params FROM termx.seg_run WHERE id = :r"),
                              {"r": out["run_id"]}).scalar()
    assert params["tbl"]["train_chars"] == TRAIN_CHARS and params["tbl"]["train_documents"] == len(
        out["tbl"][0]["train_documents"])


def test_training_sample_is_deterministic_and_bounded() -> None:
    spaced = [SpacedDocument(f"x{n}", [["ab"] * (n + 1)]) for n in range(30)]
    sample = tbl_training_sample(spaced, 10, 50)
    assert sample == tbl_training_sample(spaced, 10, 50) == sorted(sample)
    assert min(sample) >= 10
    total = sum(len(spaced[k].text) for k in sample)
    assert total >= 50
    assert tbl_training_sample(spaced, 10, 10**9) == list(range(10, 30))
    assert tbl_training_sample(spaced, 30, 10) == []


def test_bad_tbl_input(engine, db_env: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    docs = [Document("a", "x y"), Document("b", "z w")]
    with pytest.raises(InputError, match="not evaluated"):
        run_whitespace(engine, docs, "ws_tbl_bad", scorers=[Scorer.freq], tbl=TblSettings(), replace=True)
    with pytest.raises(InputError, match="tbl.min_score"):
        run_whitespace(engine, docs, "ws_tbl_bad", eval_docs=1, tbl=TblSettings(min_score=0), replace=True)
    (tmp_path / "a.txt").write_text("a b c", encoding="utf-8")
    res = runner.invoke(app, ["whitespace", str(tmp_path), "--corpus", "ws_tbl_bad", "--tbl-max-rules", "5"])
    assert res.exit_code == 1 and res.stderr.startswith("Error: --tbl-max-rules needs --tbl")
    res = runner.invoke(app, ["whitespace", str(tmp_path), "--corpus", "ws_tbl_bad", "--tbl", "--replace"])
    assert res.exit_code == 1 and "not evaluated" in res.stderr and "Traceback" not in res.output
    res = runner.invoke(app, ["whitespace", str(tmp_path), "--corpus", "ws_tbl_bad", "--tbl",
                              "--tbl-train-chars", "0"])
    assert res.exit_code == 2
    res = runner.invoke(app, ["whitespace", str(tmp_path), "--corpus", "ws_tbl_bad", "--tbl",
                              "--tbl-templates", "nope"])
    assert res.exit_code == 1 and "unknown template set" in res.stderr


def test_tbl_templates_too_many_rules_for_the_characters(engine, db_env: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # 8-character contexts over 300 distinct characters have more rules than 64-bit keys can number: the run
    # stops before indexing and names the flag; Brill's 23 templates fit.
    many = "".join(chr(0x4E00 + i) for i in range(300))
    docs = [Document("a", "x y"), Document("b", " ".join(many[i:i + 3] for i in range(0, 300, 3)))]
    with pytest.raises(InputError, match="too many rules") as err:
        run_whitespace(engine, docs, "ws_tbl_cjk", scorers=[Scorer.freq], eval_docs=1, tbl=TblSettings(),
                       replace=True)
    assert err.value.params == ("tbl.templates",)
    for d in docs:  # read in file name order: a is scored, b trains
        (tmp_path / f"{d.name}.txt").write_text(d.text, encoding="utf-8")
    args = ["whitespace", str(tmp_path), "--corpus", "ws_tbl_cjk", "--tbl", "--eval-docs", "1", "--scorers", "freq",
            "--replace", "--quiet"]
    res = runner.invoke(app, args)
    assert res.exit_code == 1 and "--tbl-templates brill" in res.stderr
    res = runner.invoke(app, [*args, "--tbl-templates", "brill"])
    assert res.exit_code == 0, res.output


def test_migration_downgrade_removes_tbl_rows(database_url: str) -> None:
    from alembic import command

    from termx.storage.db import _alembic_config

    server = resolve_url(database_url)
    name = f"termx_tbl_mig_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    eng = sa.create_engine(server.set(database=name))
    insert = "INSERT INTO termx.seg_score VALUES (:run, 'freq+tbl', :kind, 0, 'd', 1, 0, 0, 1, 0, 0)"
    try:
        upgrade(eng, "0008_segment_tbl")
        with eng.begin() as conn:
            conn.execute(sa.text("INSERT INTO termx.corpus (name, unit, max_k, tokens, documents, classes, rep_cap)"
                                 " VALUES ('c', 'byte', 1, 0, 0, 0, 100)"))
            run = conn.execute(sa.text("INSERT INTO termx.seg_run (corpus_id) SELECT id FROM termx.corpus "
                                       "RETURNING id")).scalar()
            conn.execute(sa.text(insert), {"run": run, "kind": "tbl"})
        command.downgrade(_alembic_config(eng), "0006_segment")
        with eng.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM termx.seg_score")).scalar() == 0
        with pytest.raises(sa.exc.IntegrityError), eng.begin() as conn:
            conn.execute(sa.text(insert), {"run": run, "kind": "tbl"})
        upgrade(eng, "0008_segment_tbl")
    finally:
        eng.dispose()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()
