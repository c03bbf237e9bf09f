"""Batches of patterns: --patterns FILE|- for stats, class, concordance and jdf, streamed; a bad pattern gets its
own record with an error naming it and its position (CLI json and table, Python, SQL, HTTP), the rest are answered."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

import termx
from termx.cli import app
from termx.cli.patterns import BATCH
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.indexer import index_documents

runner = CliRunner()
LONG = "Hi_Ho" * 12  # 60 bytes: longer than every document
# the lines of a pattern file: good ones, an empty line (pattern 2) and one too long (pattern 4)
LINES = ["Hi", "", "Ho", LONG, "xyz"]
EMPTY = "pattern 2 '': empty pattern (give at least one token)"
TOO_LONG = f"pattern 4 '{LONG[:39]}…': the pattern has 60 byte tokens, more than the longest document"


@pytest.fixture(scope="module")
def hiho(engine: Engine) -> str:
    name = f"batches-{uuid.uuid4().hex[:8]}"
    docs = [Document("d0", "Hi_Ho_Hi_Ho"), Document("d1", "Hi_Ho"), Document("d2", "Hi"), Document("d3", "-x-")]
    index_documents(engine, name, docs, Unit.byte, 3)
    return name


def run(*args: str, stdin: str | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), input=stdin)


@pytest.fixture
def pattern_file(tmp_path: Path) -> str:
    path = tmp_path / "patterns.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return str(path)


def test_stats_json_answers_every_good_pattern_and_names_the_bad(db_env, hiho, pattern_file) -> None:  # type: ignore[no-untyped-def]
    r = run("stats", hiho, "--patterns", pattern_file, "--format", "json")
    assert r.exit_code == 1  # after printing every record
    rows = json.loads(r.stdout)
    assert [row["pattern"] for row in rows] == LINES
    assert [row["freq"] for row in rows] == [4, None, 3, None, 0]
    assert rows[1]["error"] == EMPTY and rows[3]["error"].startswith(TOO_LONG)
    assert all("error" not in rows[k] for k in (0, 2, 4))
    assert rows[1].keys() - {"error"} == rows[0].keys()  # the same fields, None
    assert "2 patterns failed" in r.stderr and len(r.stderr.splitlines()) == 1
    good = run("stats", hiho, "Hi", "Ho", "xyz", "--format", "json")
    assert good.exit_code == 0 and json.loads(good.stdout) == [rows[k] for k in (0, 2, 4)]


def test_stats_table_and_csv_print_the_errors_on_stderr(db_env, hiho, pattern_file) -> None:  # type: ignore[no-untyped-def]
    table = run("stats", hiho, "--patterns", pattern_file)
    assert table.exit_code == 1
    assert [line.split()[0] for line in table.stdout.splitlines()[2:]] == ["Hi", "Ho", "xyz"]
    errors = table.stderr.splitlines()
    assert errors[0] == f"Error: {EMPTY}" and errors[1].startswith(f"Error: {TOO_LONG}") and len(errors) == 2
    csv = run("stats", hiho, "--patterns", pattern_file, "--format", "csv")
    assert csv.exit_code == 1 and [line.split(",")[0] for line in csv.stdout.splitlines()] == \
        ["pattern", "Hi", "Ho", "xyz"]
    assert csv.stderr == table.stderr


def test_stdin_positional_and_big_lists_stream(db_env, hiho) -> None:  # type: ignore[no-untyped-def]
    r = run("stats", hiho, "-", "Hi", "--patterns", "-", "--format", "jsonl", stdin="Ho\r\n_\n")
    assert r.exit_code == 0, r.output
    assert [(x["pattern"], x["freq"]) for x in map(json.loads, r.stdout.splitlines())] == \
        [("-", 2), ("Hi", 4), ("Ho", 3), ("_", 4)]  # "-" as an argument is a pattern; CRLF read as LF
    many = ["Hi_Ho"[: 1 + k % 5] for k in range(2 * BATCH + 7)]  # over several batches in and out
    for fmt in ("json", "csv"):
        out = run("stats", hiho, "--patterns", "-", "--format", fmt, stdin="\n".join(many) + "\n")
        assert out.exit_code == 0
        one = run("stats", hiho, *many[:5], "--format", fmt).stdout
        if fmt == "json":
            rows = json.loads(out.stdout)
            assert len(rows) == len(many) and rows[:5] == json.loads(one)
        else:
            lines = out.stdout.splitlines()
            assert len(lines) == len(many) + 1 and lines[:6] == one.splitlines()  # one header
    missing = run("stats", hiho, "--patterns", "/no/such/file")
    assert missing.exit_code == 1 and "no such file" in missing.stderr
    assert run("stats", hiho).exit_code == 2  # no pattern at all: usage


def test_dist_class_and_concordance_batches(db_env, hiho, pattern_file) -> None:  # type: ignore[no-untyped-def]
    dist = run("stats", hiho, "--dist", "--patterns", pattern_file, "--format", "json")
    assert dist.exit_code == 1
    assert [row.get("error") for row in json.loads(dist.stdout)][:3] == [None, EMPTY, None]
    cls = run("class", hiho, "--patterns", pattern_file, "--format", "json")
    assert cls.exit_code == 1
    assert [(row["pattern"], row["freq"], row.get("error")) for row in json.loads(cls.stdout)][:3] == \
        [("Hi", 4, None), ("", None, EMPTY), ("Ho", 3, None)]
    members = run("class", hiho, "Hi_", "--patterns", "-", "--members", "--format", "csv", stdin="Ho\n\n")
    assert members.exit_code == 1
    assert members.stdout.splitlines() == ["pattern,length,member", "Hi_,3,Hi_", "Hi_,4,Hi_H", "Hi_,5,Hi_Ho",
                                           "Ho,2,Ho"]
    assert members.stderr.strip() == f"Error: {EMPTY.replace('pattern 2', 'pattern 3')}"
    kwic = run("concordance", hiho, "--patterns", pattern_file, "-l", "2", "-r", "2", "--format", "json")
    assert kwic.exit_code == 1
    lines = json.loads(kwic.stdout)
    assert [x["pattern"] for x in lines] == ["Hi"] * 4 + [""] + ["Ho"] * 3 + [LONG]  # xyz: no line
    assert lines[4]["error"] == EMPTY and lines[4]["rank"] is None
    single = json.loads(run("concordance", hiho, "Ho", "-l", "2", "-r", "2", "--format", "json").stdout)
    assert [{k: v for k, v in x.items() if k != "pattern"} for x in lines[5:8]] == single
    table = run("concordance", hiho, "--patterns", pattern_file, "-l", "2", "-r", "2")
    assert table.exit_code == 1 and len(table.stdout.splitlines()) == 7 and len(table.stderr.splitlines()) == 2


def test_jdf_pairs_from_a_file(db_env, hiho) -> None:  # type: ignore[no-untyped-def]
    with_x = run("jdf", hiho, "Ho", "--patterns", "-", "--format", "json", stdin="Hi\n\n-x\n")
    assert with_x.exit_code == 1
    rows = json.loads(with_x.stdout)
    assert [(r["x"], r["y"], r["jdf"]) for r in rows] == [("Ho", "Hi", 2), ("Ho", "", None), ("Ho", "-x", 0)]
    assert rows[1]["error"] == "pair 2, y '': empty pattern (give at least one token)"
    pairs = run("jdf", hiho, "--patterns", "-", "--format", "csv", stdin="Hi\tHo\n\tHo\nHi\t-x\n")
    assert pairs.exit_code == 1
    assert [line.split(",")[:5] for line in pairs.stdout.splitlines()[1:]] == [["Hi", "Ho", "3", "2", "2"],
                                                                             ["Hi", "-x", "3", "1", "0"]]
    assert pairs.stderr.strip() == "Error: pair 2, x '': empty pattern (give at least one token)"
    no_tab = run("jdf", hiho, "--patterns", "-", stdin="Hi Ho\n")
    assert no_tab.exit_code == 1 and "line 1 of --patterns has no TAB" in no_tab.stderr
    bad_x = run("jdf", hiho, "", "Hi")
    assert bad_x.exit_code == 1 and bad_x.stderr.strip() == "Error: empty pattern (give at least one token)"


def test_python_stats_takes_any_iterable_lazily(db_env, hiho) -> None:  # type: ignore[no-untyped-def]
    read: list[str] = []

    def patterns() -> Iterator[str]:
        for p in LINES:
            read.append(p)
            yield p

    with termx.open(hiho) as corpus:
        records = corpus.iter_stats(patterns())
        first = next(records)
        assert first["pattern"] == "Hi" and read == ["Hi"]  # nothing read ahead
        rest = list(records)
        assert [r.get("error") for r in rest][:1] == [EMPTY]
        assert corpus.stats(p for p in LINES) == [first, *rest]
        cli = run("stats", hiho, *LINES, "--format", "json")
        assert cli.exit_code == 1 and corpus.stats(LINES) == json.loads(cli.stdout)


def test_sql_arrays_answer_every_good_pattern(engine, hiho) -> None:  # type: ignore[no-untyped-def]
    with engine.connect() as conn:
        stats = conn.execute(sa.text("SELECT pattern, freq, error FROM termx.stats(:c, CAST(:p AS text[]))"),
                             {"c": hiho, "p": [*LINES, None]}).all()
        assert [(p, f) for p, f, _ in stats] == [("Hi", 4), ("", None), ("Ho", 3), (LONG, None), ("xyz", 0),
                                                 (None, None)]
        errors = [e for _, _, e in stats]
        assert errors[1] == EMPTY and errors[3].startswith(TOO_LONG) and errors.count(None) == 4
        classes = conn.execute(sa.text("SELECT pattern, i, j, error FROM termx.find_class(:c, CAST(:p AS text[]))"
                                       ), {"c": hiho, "p": ["Ho", "", "Hi"]}).all()
        assert classes == [("Ho", 6, 8, None), ("", None, None, EMPTY), ("Hi", 2, 5, None)]
        lines = conn.execute(sa.text("SELECT pattern, doc, error FROM termx.concordance(:c, CAST(:p AS text[]), "
                                     "2, 2, 2)"), {"c": hiho, "p": ["Ho", ""]}).all()
        assert lines == [("Ho", "d1", None), ("Ho", "d0", None), ("", None, EMPTY)]
        single = conn.execute(sa.text("SELECT count(*) FROM termx.concordance(:c, 'Ho')"), {"c": hiho}).scalar()
        assert single == 3  # the one-pattern function is still the one a text literal picks
        with pytest.raises(sa.exc.DBAPIError, match="no corpus named"):
            conn.execute(sa.text("SELECT * FROM termx.stats('no-such-corpus', ARRAY['a'])"))


def test_http_stats_answers_a_batch_with_errors(engine, database_url, db_env, hiho) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from termx.serve import create_app

    client = TestClient(create_app(database_url), base_url="http://127.0.0.1")
    r = client.post("/stats", json={"corpus": hiho, "patterns": ["Hi", ""]})
    assert r.status_code == 200
    assert r.json() == json.loads(run("stats", hiho, "Hi", "", "--format", "json").stdout)
    assert r.json()[1]["error"] == EMPTY


def test_errors_stay_short_for_huge_patterns(engine, db_env) -> None:  # type: ignore[no-untyped-def]
    name = f"batches-w-{uuid.uuid4().hex[:8]}"
    index_documents(engine, name, [Document("a", "General Manuel Noriega said"), Document("b", "Noriega left")],
                    Unit.word, 3)
    blank, long = " " * 100_000, "Noriega " * 50_000
    r = run("stats", name, "--patterns", "-", "--format", "jsonl", stdin=f"Noriega\n{blank}\n{long}\n")
    assert r.exit_code == 1
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [row["freq"] for row in rows] == [2, None, None]
    assert rows[1]["error"].startswith("pattern 2 '" + " " * 39 + "…': ") and "holds no words" in rows[1]["error"]
    assert rows[2]["error"].startswith("pattern 3 'Noriega Noriega") and "more than the longest document" in \
        rows[2]["error"]
    assert max(len(row["error"]) for row in rows[1:]) < 200
