"""`termx tbl train|apply|rules|models|templates` through Typer's CliRunner."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from termx.cli import app

GOLD = ["the cat sat on the mat", "the dog ate the hat", "a cat and the dog"] * 5
PRED = [" ".join(s.replace("the ", "the").replace("cat", "c at").split()) for s in GOLD]


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    gold, pred = tmp_path / "gold.txt", tmp_path / "pred.txt"
    gold.write_text("\n".join(GOLD) + "\n", encoding="utf-8")
    pred.write_text("\n".join(PRED) + "\n", encoding="utf-8")
    return str(gold), str(pred)


def run(*args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, list(args), input=input)


def test_train_apply_rules(db_env: str, files: tuple[str, str], tmp_path: Path) -> None:
    gold, pred = files
    name = f"seg_{uuid.uuid4().hex[:6]}"
    res = run("tbl", "train", gold, pred, "--name", name, "--format", "json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["accuracy_before"] < 1.0 and out["accuracy_after"] == 1.0
    assert out["n_rules"] == len(out["rules"]) > 0
    assert out["rules"][0]["rule"].startswith("· → |") and out["rules"][0]["score"] >= 2

    res = run("tbl", "apply", name, pred)
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == GOLD
    res = run("tbl", "apply", name, "-", input="thecat sat\n")
    assert res.stdout.strip() == "the cat sat"

    res = run("tbl", "rules", name)
    assert res.exit_code == 0
    assert "previous token is 'e'" in res.stdout and "accuracy_after" in res.stdout
    res = run("tbl", "rules", name, "--format", "csv")
    assert res.stdout.splitlines()[0] == "ord,rule,score,good,bad"
    assert name in run("tbl", "models").stdout

    res = run("tbl", "train", gold, pred, "--name", name)
    assert res.exit_code == 1 and "--replace" in res.stderr and "Traceback" not in res.output
    res = run("tbl", "train", gold, pred, "--name", name, "--replace", "--max-rules", "1",
              "--templates", "prev_tok,cur_tok")
    assert res.exit_code == 0, res.output
    rows = json.loads(run("tbl", "rules", name, "--format", "json").stdout)["rules"]
    assert len(rows) == 1 and rows[0]["template"] in ("prev_tok", "cur_tok")


@pytest.mark.parametrize("args, message", [
    (["tbl", "apply", "nosuchmodel", "-"], "no TBL model"),
    (["tbl", "rules", "nosuchmodel"], "no TBL model"),
])
def test_unknown_model(db_env: str, args: list[str], message: str) -> None:
    res = run(*args, input="")
    assert res.exit_code == 1 and message in res.stderr and "Traceback" not in res.output


def test_bad_training_input(db_env: str, files: tuple[str, str], tmp_path: Path) -> None:
    gold, pred = files
    other = tmp_path / "other.txt"
    other.write_text("something else\n", encoding="utf-8")
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfeab")
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    for args, message in [
        ([gold, str(other)], "lines"),
        ([str(other), str(other).replace("other", "missing")], "no such file"),
        ([str(binary), str(binary)], "not valid UTF-8"),
        ([str(empty), str(empty)], "no text"),
        ([gold, pred, "--templates", "nonsense"], "unknown template"),
    ]:
        res = run("tbl", "train", *args, "--name", "x")
        assert res.exit_code == 1, (args, res.output)
        assert res.stderr.startswith("Error: ") and message in res.stderr and "Traceback" not in res.output
    res = run("tbl", "train", gold, pred, "--name", "x", "--min-score", "0")
    assert res.exit_code == 2


def test_templates_and_help() -> None:
    res = run("tbl", "templates", "--format", "tsv")
    assert res.exit_code == 0 and "prev_tag\ttag[-1]" in res.stdout and "chars_2_2" not in res.stdout
    res = run("tbl", "templates", "--set", "chars8_tags", "--format", "tsv")
    assert res.exit_code == 0 and "chars_2_2\ttok[-2] tok[-1] tok[0] tok[+1]" in res.stdout
    res = run("tbl", "templates", "--set", "nope")
    assert res.exit_code == 1 and "unknown template set" in res.stderr
    for cmd in ("train", "apply", "rules", "models", "templates"):
        res = run("tbl", cmd, "--help")
        assert res.exit_code == 0 and len(res.stdout) > 100


def test_apply_formats(db_env: str, files: tuple[str, str]) -> None:
    gold, pred = files
    name = f"fmt_{uuid.uuid4().hex[:6]}"
    assert run("tbl", "train", gold, pred, "--name", name).exit_code == 0
    text = "thecat sat\n\nthe dog\n"
    res = run("tbl", "apply", name, "-", "--format", "jsonl", input=text)
    assert res.exit_code == 0, res.output
    assert [json.loads(line) for line in res.stdout.splitlines()] == [
        {"line": 1, "words": ["the", "cat", "sat"]}, {"line": 2, "words": []}, {"line": 3, "words": ["the", "dog"]}]
    res = run("tbl", "apply", name, "-", "--format", "json", input=text)
    assert [r["words"] for r in json.loads(res.stdout)] == [["the", "cat", "sat"], [], ["the", "dog"]]
    res = run("tbl", "apply", name, "-", "--format", "tsv", input=text)
    assert res.stdout == "the\tcat\tsat\n\nthe\tdog\n"
    assert run("tbl", "apply", name, "-", input=text).stdout == "the cat sat\n\nthe dog\n"
    assert run("tbl", "apply", name, "-", "--format", "json", input="").stdout == "[]\n"
