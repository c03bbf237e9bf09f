"""The look-up commands: the stats JSON contract, KWIC lines, class members, bad input as one-line errors."""

from __future__ import annotations

import json
import uuid

import pytest
from typer.testing import CliRunner

from termx.cli import app
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.indexer import index_documents

runner = CliRunner()


@pytest.fixture(scope="module")
def hiho(engine) -> str:  # type: ignore[no-untyped-def]
    name = f"lookup-cli-{uuid.uuid4().hex[:8]}"
    docs = [Document("d0.txt", "Hi_Ho_Hi_Ho"), Document("d1.txt", "Hi_Ho"), Document("d2.txt", "Hi")]
    index_documents(engine, name, docs, Unit.byte, 4)
    return name


@pytest.fixture(scope="module")
def lines(engine) -> str:  # type: ignore[no-untyped-def]
    name = f"lookup-cli-w-{uuid.uuid4().hex[:8]}"
    docs = [Document("a", "General Manuel Noriega said\nNoriega\tleft."), Document("b", "Noriega , Noriega !")]
    index_documents(engine, name, docs, Unit.word, 3)
    return name


def run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args))


def test_stats_json_contract(db_env, hiho) -> None:  # type: ignore[no-untyped-def]
    r = run("stats", hiho, "H", "Hi", "Ho", "Hi_Ho", "_", "xyz", "--format", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    want = {"H": (7, [3, 2, 1, 1]), "Hi": (4, [3, 1, 0, 0]), "Ho": (3, [2, 1, 0, 0]), "Hi_Ho": (3, [2, 1, 0, 0]),
            "_": (4, [2, 1, 1, 0]), "xyz": (0, [0, 0, 0, 0])}
    assert [r["pattern"] for r in rows] == list(want)
    for row in rows:
        assert list(row) == ["pattern", "freq", "df", "adaptation", "poisson_adaptation", "ridf", "i", "j", "lbl",
                             "sil", "shortest", "longest"]
        assert (row["freq"], row["df"]) == want[row["pattern"]]
    assert rows[3]["i"] == 1 and rows[3]["j"] == 3 and rows[3]["lbl"] == 2 and rows[3]["sil"] == 5
    assert rows[5]["adaptation"] is None and rows[5]["i"] is None


def test_stats_table_and_csv(db_env, hiho) -> None:  # type: ignore[no-untyped-def]
    table = run("stats", hiho, "Hi_Ho")
    assert table.exit_code == 0 and "Hi_Ho" in table.stdout and "2 1 0 0" in table.stdout
    csv = run("stats", hiho, "Hi", "--format", "csv")
    assert csv.stdout.splitlines()[0] == "pattern,freq,df,adaptation,poisson_adaptation,ridf,i,j,lbl,sil,shortest," \
                                         "longest"
    assert csv.stdout.splitlines()[1].startswith("Hi,4,3 1 0 0,0.3333333333333333,")  # exact, as in JSON


def test_concordance_kwic(db_env, lines) -> None:  # type: ignore[no-untyped-def]
    r = run("concordance", lines, "Noriega", "-l", "2", "-r", "2")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == ["b:2       Noriega , Noriega !",
                                     "b:0                 Noriega , Noriega",
                                     "a:4    Noriega said Noriega left .",
                                     "a:2  General Manuel Noriega said Noriega"]  # suffix-array order, aligned
    assert "4 of 4 occurrences" in r.stderr
    js = json.loads(run("concordance", lines, "Noriega", "-l", "2", "-r", "2", "--format", "json").stdout)
    assert [(x["doc"], x["offset"]) for x in js] == [("b", 2), ("b", 0), ("a", 4), ("a", 2)]
    assert js[3]["right"] == "said Noriega" and js[0]["right"] == "!" and js[1]["left"] == ""
    limited = run("concordance", lines, "Noriega", "--limit", "1", "--format", "jsonl")
    assert len(limited.stdout.splitlines()) == 1 and "--limit 0" in limited.stderr


def test_concordance_shows_newlines(db_env, engine) -> None:  # type: ignore[no-untyped-def]
    name = f"lookup-cli-b-{uuid.uuid4().hex[:8]}"
    index_documents(engine, name, [Document("x", "one\ntwo\tthree two")], Unit.byte, 2)
    r = run("concordance", name, "two", "-l", "4", "-r", "3")
    assert r.stdout.splitlines() == ["x:14  ree two", "x:4   one⏎two⇥th"]
    assert json.loads(run("concordance", name, "two", "-l", "4", "--format", "json").stdout)[1]["left"] == "one\n"


def test_class_members(db_env, hiho) -> None:  # type: ignore[no-untyped-def]
    r = run("class", hiho, "Hi_H", "--members", "--format", "json")
    assert r.exit_code == 0, r.output
    [cls] = json.loads(r.stdout)
    assert (cls["i"], cls["j"], cls["lbl"], cls["sil"], cls["size"]) == (1, 3, 2, 5, 3)
    assert cls["members"] == ["Hi_", "Hi_H", "Hi_Ho"]
    rows = run("class", hiho, "Hi_H", "--members", "--format", "csv").stdout.splitlines()
    assert rows == ["length,member", "3,Hi_", "4,Hi_H", "5,Hi_Ho"]
    short = run("class", hiho, "Hi_Ho_Hi", "--members", "--limit", "2", "--format", "jsonl")
    assert len(short.stdout.splitlines()) == 2 and "2 of 6 members" in short.stderr
    plain = run("class", hiho, "Hi_H")
    assert plain.exit_code == 0 and "Hi_Ho" in plain.stdout


@pytest.mark.parametrize("args, message", [
    (["stats", "no-such-corpus", "x"], "Error: no corpus named 'no-such-corpus'"),
    (["stats", "{hiho}", ""], "Error: pattern 1 '': empty pattern"),
    (["stats", "{hiho}", "Hi_Ho_Hi_Ho_Hi"], "more than the longest document"),
    (["stats", "{hiho}", "H\udcffi"], "not valid UTF-8"),
    (["concordance", "{hiho}", ""], "Error: empty pattern"),
    (["class", "{hiho}", "Hi_Ho_Hi_Ho!"], "more than the longest document"),
    (["sql", "no_such_query"], "Error: no query named 'no_such_query'"),
    (["sql", "stats", "-p", "corpus={hiho}"], "needs pattern"),
    (["sql", "stats", "-p", "corpus={hiho}", "-p", "pattern=x", "-p", "oops=1"], "has no parameter oops"),
    (["sql", "stats", "-p", "corpus=nope", "-p", "pattern=x"], "Error: no corpus named 'nope'"),
    (["sql", "stats", "-p", "corpus={hiho}", "-p", "pattern="], "Error: empty pattern"),
])
def test_bad_input_is_one_line(db_env, hiho, args: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    r = run(*[a.format(hiho=hiho) for a in args])
    assert r.exit_code == 1, r.output
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.output


def test_usage_errors(db_env, hiho) -> None:  # type: ignore[no-untyped-def]
    assert run("sql", "stats", "-p", "corpus").exit_code == 2
    assert run("sql").exit_code == 2
    assert run("concordance", hiho, "Hi", "-l", "-1").exit_code == 2


def test_sql_command(db_env, hiho) -> None:  # type: ignore[no-untyped-def]
    listed = run("sql", "--list", "--format", "json")
    names = {q["name"] for q in json.loads(listed.stdout)}
    assert {"stats", "classes_with_prefix", "most_adaptive", "lcp_distribution", "documents_with_pattern",
            "concordance"} <= names
    r = run("sql", "stats", "--param", f"corpus={hiho}", "--param", "pattern=Hi_Ho", "--format", "json")
    assert r.exit_code == 0, r.output
    cli = json.loads(run("stats", hiho, "Hi_Ho", "--format", "json").stdout)
    assert json.loads(r.stdout) == [{**cli[0], "shards": None}]  # the query's `shards` column: NULL on one shard
    docs = json.loads(run("sql", "documents_with_pattern", "-p", f"corpus={hiho}", "-p", "pattern=Hi",
                          "-p", "k=2", "--format", "json").stdout)
    assert docs == [{"doc_no": 0, "doc": "d0.txt", "occurrences": 2, "first_offset": 0}]


def test_sql_limit_caps_the_rows_shown(db_env, hiho) -> None:  # type: ignore[no-untyped-def]
    args = ("sql", "documents_with_pattern", "-p", f"corpus={hiho}", "-p", "pattern=H", "-p", "k=1", "--format", "json")
    every = json.loads(run(*args).stdout)
    assert len(every) == 3  # H is in all three documents of the Hi_Ho example
    assert json.loads(run(*args, "--limit", "2").stdout) == every[:2]
    assert json.loads(run(*args, "-n", "0").stdout) == every
    assert run(*args, "--limit", "-1").exit_code == 2
