"""`termx terms` end to end: output formats, the contract's JSON fields, --save, and one-line errors."""

from __future__ import annotations

import json
import math
import uuid

import sqlalchemy as sa
from typer.testing import CliRunner

from termx.cli import app
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.indexer import index_documents

runner = CliRunner()
TEXTS = ["The wind turbine blade. A wind turbine.", "wind turbine blade and wind farm", "a wind farm",
         "wind farm and wind turbine blade", "solar panel"]


def _corpus(engine, texts: list[str] = TEXTS, unit: Unit = Unit.byte, max_k: int = 4) -> str:  # type: ignore[no-untyped-def]
    name = f"cli-{uuid.uuid4().hex[:10]}"
    index_documents(engine, name, [Document(f"d{n}", t) for n, t in enumerate(texts)], unit, max_k)
    return name


def _error_line(result) -> str:  # type: ignore[no-untyped-def]
    assert result.exit_code == 1, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def test_hiho_contract_json(engine, db_env: str) -> None:  # type: ignore[no-untyped-def]
    name = _corpus(engine, ["Hi_Ho_Hi_Ho", "Hi_Ho", "Hi"])
    result = runner.invoke(app, ["terms", name, "--rank", "adaptation", "--min-df", "1", "--min-len", "1",
                                 "--top", "5", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    # "Ho" follows "_", which cannot begin a term, so it stays; "Hi_Ho" and "Ho" tie and go by term
    assert [(r["rank"], r["term"], r["freq"], r["df"]) for r in rows] == [
        (1, "H", 7, [3, 2, 1, 1]), (2, "Hi_Ho", 3, [2, 1, 0, 0]), (3, "Ho", 3, [2, 1, 0, 0]),
        (4, "Hi", 4, [3, 1, 0, 0])]
    assert [r["score"] for r in rows] == [2.5 / 4, 1.5 / 3, 1.5 / 3, 1.5 / 4]


def test_formats(engine, db_env: str) -> None:  # type: ignore[no-untyped-def]
    name = _corpus(engine)
    args = ["terms", name, "--min-df", "2", "--rank", "df"]
    table = runner.invoke(app, args)
    assert table.exit_code == 0 and "wind turbine" in table.stdout and "rank" in table.stdout
    tsv = runner.invoke(app, [*args, "--format", "tsv"]).stdout.splitlines()
    assert tsv[0] == "term\tscore\tfreq\tdf"
    assert [line.split("\t") for line in tsv[1:]] == [
        ["wind", "4.0", "7", "4 3 0 0"], ["wind turbine", "3.0", "4", "3 1 0 0"],
        ["wind farm", "3.0", "3", "3 0 0 0"], ["wind turbine blade", "3.0", "3", "3 0 0 0"]]
    # "blade", "turbine", "farm" always follow one word; the score is a float, exact as in JSON
    csv_lines = runner.invoke(app, [*args, "--format", "csv"]).stdout.splitlines()
    assert csv_lines[0] == "rank,term,score,freq,df,len"
    rows = json.loads(runner.invoke(app, [*args, "--format", "json", "--top", "2"]).stdout)
    assert rows == [{"rank": 1, "term": "wind", "score": 4.0, "freq": 7, "df": [4, 3, 0, 0], "len": 4},
                    {"rank": 2, "term": "wind turbine", "score": 3.0, "freq": 4, "df": [3, 1, 0, 0], "len": 12}]
    assert json.loads(runner.invoke(app, [*args, "--format", "json", "--limit", "2"]).stdout) == rows
    every = json.loads(runner.invoke(app, [*args, "--format", "json", "-n", "0"]).stdout)
    assert len(every) == len(tsv) - 1 == 4 and every[:2] == rows  # 0 = all, as for concordance and class


def test_save_and_replace(engine, db_env: str) -> None:  # type: ignore[no-untyped-def]
    name = _corpus(engine)
    list_name = f"terms-{uuid.uuid4().hex[:8]}"
    args = ["terms", name, "--min-df", "2", "--top", "3", "--save", list_name]
    first = runner.invoke(app, args)
    assert first.exit_code == 0 and f"saved 3 terms as term list {list_name!r}" in first.stderr
    with engine.connect() as conn:
        stored = conn.execute(sa.text(
            "SELECT t.rank, t.term, l.params FROM termx.term t JOIN termx.term_list l ON l.id = t.list_id"
            " WHERE l.name = :n ORDER BY t.rank"), {"n": list_name}).all()
    assert [r[1] for r in stored] == [r["term"] for r in json.loads(runner.invoke(
        app, ["terms", name, "--min-df", "2", "--top", "3", "--format", "json"]).stdout)]
    assert stored[0][2] == {"rank": "adaptation", "top": 3, "min_df": 2, "min_len": 2, "max_len": 40}
    assert "already exists" in _error_line(runner.invoke(app, args))
    assert runner.invoke(app, [*args, "--replace", "--quiet"]).exit_code == 0


def test_bad_input_is_one_line(engine, db_env: str) -> None:  # type: ignore[no-untyped-def]
    assert "no corpus named 'nope-nope'" in _error_line(runner.invoke(app, ["terms", "nope-nope"]))
    name = _corpus(engine, max_k=1)
    assert "needs df_2" in _error_line(runner.invoke(app, ["terms", name]))
    assert "--min-len" in _error_line(runner.invoke(app, ["terms", name, "--rank", "freq", "--min-len", "5",
                                                          "--max-len", "2"]))
    for args in (["--rank", "tfidf"], ["--top", "-1"], ["--limit", "-1"], ["--min-df", "-1"]):
        result = runner.invoke(app, ["terms", name, *args])
        assert result.exit_code == 2 and "Traceback" not in result.output


def test_help_names_every_option(db_env: str) -> None:
    out = runner.invoke(app, ["terms", "--help"]).stdout
    for option in ("--top", "--rank", "--min-df", "--min-len", "--max-len", "--format", "--save", "--reference"):
        assert option in out


def test_specificity_against_a_reference(engine, db_env: str) -> None:  # type: ignore[no-untyped-def]
    name = _corpus(engine)
    ref = _corpus(engine, ["The wind was cold.", "a farm and a panel", "wind and rain"])
    result = runner.invoke(app, ["terms", name, "--rank", "specificity", "--reference", ref, "--min-df", "1",
                                 "--format", "json", "--save", f"{name}-spec"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    by_term = {r["term"]: r for r in rows}
    assert by_term["wind"]["ref_freq"] == 2 and by_term["wind turbine"]["ref_freq"] == 0
    assert by_term["wind turbine"]["rank"] < by_term["wind"]["rank"]   # as frequent, but news never says it
    with engine.connect() as conn:
        params = conn.execute(sa.text("SELECT params FROM termx.term_list WHERE name = :n"),
                              {"n": f"{name}-spec"}).scalar()
    assert params["reference"] == ref and params["rank"] == "specificity"
    table = runner.invoke(app, ["terms", name, "--rank", "specificity", "--reference", ref, "--min-df", "1"])
    assert "ref_freq" in table.stdout


def test_reference_errors_are_one_line(engine, db_env: str) -> None:  # type: ignore[no-untyped-def]
    name = _corpus(engine)
    words = _corpus(engine, unit=Unit.word)
    assert "reference corpus 'nope-nope' not found" in _error_line(
        runner.invoke(app, ["terms", name, "--rank", "specificity", "--reference", "nope-nope"]))
    assert f"reference corpus {words!r} has unit word" in _error_line(
        runner.invoke(app, ["terms", name, "--rank", "specificity", "--reference", words]))
    assert "needs --reference" in _error_line(runner.invoke(app, ["terms", name, "--rank", "specificity"]))
    assert "only serves --rank specificity" in _error_line(runner.invoke(app, ["terms", name, "--reference", words]))


def test_nested_discount_and_cvalue_reach_the_output(engine, db_env: str) -> None:  # type: ignore[no-untyped-def]
    """--nested replaces freq by C-value's discounted frequency, worked by hand: "wind" (7) lies inside "wind
    turbine" (4), "wind farm" (3) and "wind turbine blade" (3), so 7 - 10/3; "wind turbine" inside "wind turbine
    blade" only, 4 - 3; --rank cvalue weights that by log2(len + 1)."""
    name = _corpus(engine, unit=Unit.word)
    base = ["terms", name, "--min-df", "1", "--min-len", "1", "--format", "json"]

    def rows(*extra: str) -> list[tuple[str, float, int]]:
        result = runner.invoke(app, [*base, *extra])
        assert result.exit_code == 0, result.output
        return [(r["term"], r["score"], r["freq"]) for r in json.loads(result.stdout)]

    assert rows("--rank", "freq") == [("wind", 7, 7), ("wind turbine", 4, 4), ("wind farm", 3, 3),
                                      ("wind turbine blade", 3, 3)]
    assert rows("--rank", "freq", "--nested") == [("wind", 7 - 10 / 3, 7), ("wind farm", 3, 3),
                                                  ("wind turbine blade", 3, 3), ("wind turbine", 1, 4)]
    assert rows("--rank", "cvalue") == [("wind turbine blade", 6, 3), ("wind farm", 3 * math.log2(3), 3),
                                        ("wind", 7 - 10 / 3, 7), ("wind turbine", math.log2(3), 4)]
    assert "--nested discounts freq, which --rank ridf does not use" in _error_line(
        runner.invoke(app, [*base, "--rank", "ridf", "--nested"]))
