"""csv and tsv exports carry the same data as JSON: every command with a `--format` that offers csv is run on a
tiny corpus in jsonl, csv and tsv, and each csv/tsv cell parses back to the JSON value exactly."""

from __future__ import annotations

import csv
import io
import json
from enum import Enum
from pathlib import Path
from typing import Any

import click
import pytest
import typer
from typer.testing import CliRunner

from termx.cli import app
from termx.cli.output import export_cell, render

CORPUS = "exports"
DOCS = ["Hi_Ho_Hi_Ho it is off to work we go", "Hi_Ho Hi", "Hi there, Ho there", "to be or not to be",
        "Ho Ho Ho, a 52892 day", "off we go to work"]

# Per command: its arguments on the fixture's files ({dir}: the directory of the fixture's inputs). A new command
# with a csv --format fails test_every_exporting_command_is_covered until it is added here or to SKIPPED.
ARGS: dict[str, list[str]] = {
    "corpora": [],
    "cache status": [],
    "cache list": [],
    "stats": [CORPUS, "Ho", "Hi_Ho", "xyz"],
    "concordance": [CORPUS, "Ho"],
    "class": [CORPUS, "Ho"],
    "sql": ["most_adaptive", "-p", f"corpus={CORPUS}", "-p", "min_df=1"],
    "terms": [CORPUS, "--rank", "freq", "--min-df", "1", "--min-len", "1"],
    "crossval": [CORPUS],
    "adapt": [CORPUS, "Hi", "Ho", "xyz"],
    "jdf": [CORPUS, "Ho", "Hi", "work"],
    "related": [CORPUS, "Ho", "--min-df", "1"],
    "compare": ["{dir}/a.jsonl", "{dir}/b.jsonl", "--test", "sign,ttest"],
    "signtest-table": ["--max-n", "12"],
    "segscore": ["{dir}/gold.txt", "{dir}/pred.txt"],
    "whitespace": ["{dir}/docs", "--corpus", "exports-ws", "--scorers", "freq", "--replace"],
    "tbl train": ["{dir}/gold.txt", "{dir}/pred.txt", "--name", "exports", "--replace"],
    "tbl rules": ["exports"],
    "tbl models": [],
    "tbl templates": [],
    "db status": [],
    "daemon status": [],
    "servers list": [],
}
SKIPPED = {  # build reports: their seconds (and build times) differ from one run to the next
    "index": "a build report",
    "demo": "a build report",
    "sketch": "a build report",
}


def _format_choices(command: click.Command) -> list[str]:
    """The values a command's --format takes (none when it has no --format)."""
    fmt = next((p for p in command.params if "--format" in getattr(p, "opts", [])), None)
    annotation = getattr(getattr(fmt, "type_descriptor", None), "annotation", None)
    return [m.value for m in annotation] if isinstance(annotation, type) and issubclass(annotation, Enum) else []


def _exporting_commands() -> list[str]:
    """Every command (as "tbl train") whose --format offers csv, found in the app itself."""
    found = []

    def walk(cmd: click.Command, prefix: str) -> None:
        for name, sub in getattr(cmd, "commands", {}).items():
            path = f"{prefix} {name}".strip()
            walk(sub, path)
            if "csv" in _format_choices(sub):
                found.append(path)

    walk(typer.main.get_command(app), "")
    return found


def test_every_exporting_command_is_covered() -> None:
    missing = [c for c in _exporting_commands() if c not in ARGS and c not in SKIPPED]
    assert not missing, f"add the arguments of {missing} to ARGS in tests/test_exports.py"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory, database_url: str) -> Path:
    """A tiny indexed corpus with sketches, a TBL model and the files compare and segscore read."""
    folder = tmp_path_factory.mktemp("exports")
    docs = folder / "docs"
    docs.mkdir()
    for i, text in enumerate(DOCS):
        (docs / f"doc{i}.txt").write_text(text, encoding="utf-8")
    for name, errors in (("a", [3, 1, 5, 7, 2, 4]), ("b", [2, 0, 4, 2, 2, 1])):
        (folder / f"{name}.jsonl").write_text("".join(json.dumps({"id": i, "errors": e, "total": 12}) + "\n"
                                                      for i, e in enumerate(errors)), encoding="utf-8")
    (folder / "gold.txt").write_text("hi ho hi ho\nit is off to work\nwe go\nhi ho\n", encoding="utf-8")
    (folder / "pred.txt").write_text("hiho hi ho\nit is offto work\nwego\nhi ho\n", encoding="utf-8")
    env = {"TERMX_DATABASE_URL": database_url}
    for args in (["index", str(docs), "--corpus", CORPUS, "--replace", "--quiet"],
                 ["sketch", CORPUS, "--threshold", "1", "--quiet", "--format", "json"]):
        result = CliRunner().invoke(app, args, env=env)
        assert result.exit_code == 0, result.output
    return folder


def _run(path: str, fmt: str, folder: Path, database_url: str) -> str:
    args = [a.replace("{dir}", str(folder)) for a in ARGS[path]]
    result = CliRunner().invoke(app, [*path.split(), *args, "--format", fmt],
                                env={"TERMX_DATABASE_URL": database_url})
    assert result.exit_code == 0, f"{path} --format {fmt}: {result.output}"
    return result.stdout


def _lookup(row: dict[str, Any], column: str) -> Any:
    """The JSON value a csv column shows: the row's key, or a key of one of its objects (csv flattens the jdf
    contingency table, for one)."""
    if column in row:
        return row[column]
    nested = [v[column] for v in row.values() if isinstance(v, dict) and column in v]
    assert len(nested) == 1, f"column {column!r} is not in the JSON row {row}"
    return nested[0]


def _parses_back(text: str, value: Any) -> bool:
    """Whether a csv/tsv cell is `value` exactly: numbers equal as numbers (integers written as integers),
    None empty, lists of numbers space-separated, other lists and objects as JSON."""
    if value is None:
        return text == ""
    if isinstance(value, bool):
        return text == str(value)
    if isinstance(value, int):
        return text.lstrip("-").isdigit() and int(text) == value
    if isinstance(value, float):
        return float(text) == value
    if isinstance(value, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        cells = text.split(" ") if text else []
        return len(cells) == len(value) and all(map(_parses_back, cells, value))
    if isinstance(value, (list, dict)):
        return bool(json.loads(text) == value)
    return bool(text == value)


@pytest.mark.parametrize("path", list(ARGS))
def test_csv_and_tsv_are_the_json_values(path: str, inputs: Path, database_url: str) -> None:
    rows = [json.loads(line) for line in _run(path, "jsonl", inputs, database_url).splitlines() if line]
    for fmt, delimiter in (("csv", ","), ("tsv", "\t")):
        text = _run(path, fmt, inputs, database_url)
        parsed = list(csv.reader(io.StringIO(text), delimiter=delimiter))
        header, body = (parsed[0], parsed[1:]) if parsed else ([], [])
        assert len(body) == len(rows), f"{path} {fmt}: {len(body)} rows, JSON has {len(rows)}"
        for cells, row in zip(body, rows, strict=True):
            for column, cell in zip(header, cells, strict=True):
                value = _lookup(row, column)
                assert _parses_back(cell, value), f"{path} {fmt}: {column} = {cell!r}, JSON has {value!r}"


def test_export_cells_are_exact() -> None:
    """The numbers the issue found rounded: a count as an integer, floats to their last digit."""
    assert export_cell(52892) == "52892" and export_cell(52892.0) == "52892.0"
    assert float(export_cell(0.6180987654321)) == 0.6180987654321
    assert float(export_cell(1.234567891e-12)) == 1.234567891e-12
    assert export_cell(None) == export_cell(float("nan")) == ""
    assert export_cell([3, 1, 0.5]) == "3 1 0.5" and export_cell(["a b", None]) == '["a b", null]'
    rows = [{"term": "Hi_Ho", "score": 0.123456789, "freq": 52892, "p": 3.3e-17}]
    assert render(rows, "csv") == "term,score,freq,p\nHi_Ho,0.123456789,52892,3.3e-17"
    assert "0.1235" in render(rows, "table")  # the table rounds, for the eye
