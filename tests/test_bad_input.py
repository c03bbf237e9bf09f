"""Every bad input of issue 11 is one line on stderr, exit status 1, no traceback, nothing half-written."""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from termx.cli import app
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage import classrows
from termx.storage.corpora import list_corpora
from termx.storage.indexer import index_documents

runner = CliRunner()


def _name() -> str:
    return f"bad-{uuid.uuid4().hex[:10]}"


def one_line_error(result: Any) -> str:
    """The error line of a failed command, after checking it is the only thing the command said."""
    assert result.exit_code == 1, (result.exit_code, result.output)
    assert "Traceback" not in result.output and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert not lines[0].startswith("Error: unexpected"), lines[0]
    return lines[0]


def test_lone_surrogate_in_json_document(db_env: str, tmp_path: Path) -> None:
    f = tmp_path / "docs.jsonl"
    f.write_text('{"text": "fine"}\n{"id": "x", "text": "half \\ud800 a pair"}\n', encoding="utf-8")
    name = _name()
    line = one_line_error(runner.invoke(app, ["index", str(f), "--corpus", name]))
    assert f"{f}:2" in line and "lone surrogate" in line and "\\ud800" in line
    assert name not in {c.name for c in list_corpora_of(db_env)}


def test_lone_surrogate_in_compare_records(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text('{"id": "s\\udc00", "errors": 1}\n', encoding="utf-8")
    b.write_text('{"id": "s1", "errors": 2}\n', encoding="utf-8")
    assert "lone surrogate" in one_line_error(runner.invoke(app, ["compare", str(a), str(b)]))


def test_dev_null_is_empty_input(db_env: str) -> None:
    line = one_line_error(runner.invoke(app, ["index", "/dev/null", "--corpus", _name()]))
    assert "/dev/null is empty" in line and "no such file" not in line


def test_compare_with_a_400_digit_integer(tmp_path: Path) -> None:
    huge = "9" * 400
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(f'{{"id": "s1", "errors": {huge}}}\n{{"id": "s2", "errors": 1}}\n', encoding="utf-8")
    b.write_text('{"id": "s1", "errors": 1}\n{"id": "s2", "errors": 2}\n', encoding="utf-8")
    line = one_line_error(runner.invoke(app, ["compare", str(a), str(b)]))
    assert f"{a}:1" in line and "`errors` must be a finite number" in line and len(line) < 300
    a.write_text(f'{{"id": "s1", "score": -{huge}}}\n', encoding="utf-8")
    assert "`score` must be a finite number" in one_line_error(runner.invoke(app, ["compare", str(a), str(b)]))


def list_corpora_of(url: str) -> list[Any]:
    from termx.storage.db import get_engine

    return list_corpora(get_engine(url))


def test_server_connection_killed_mid_copy(db_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The backend doing the build's COPY is terminated (as when the server is shut down): one line, and the
    previous state is intact, and the next command works."""
    plain = db_env.replace("+psycopg", "")
    original = classrows.class_rows  # store imports it at each build, so the patch below is what it calls

    first = threading.Lock()  # the class rows go out in halves over two connections: kill once, at the first

    def killing_rows(*args: Any, **kwargs: Any) -> Iterator[Any]:
        rows = original(*args, **kwargs)
        yield next(rows)  # the COPY has started: now its server process goes away
        if first.acquire(blocking=False):
            with psycopg.connect(plain, autocommit=True) as other:
                killed = other.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
                                       "current_database() AND pid <> pg_backend_pid() AND query LIKE 'COPY %'")
                ended = [ok for (ok,) in killed]  # this COPY, and the other half's if it has begun
                assert any(ended), ended
        yield from rows

    monkeypatch.setattr(classrows, "class_rows", killing_rows)
    docs = tmp_path / "d.txt"
    docs.write_text("Hi_Ho_Hi_Ho Hi_Ho Hi " * 50, encoding="utf-8")
    name = _name()
    line = one_line_error(runner.invoke(app, ["index", str(docs), "--corpus", name, "-q"]))
    assert "database connection" in line and "is the server running?" in line
    # SQLAlchemy's pool logs a traceback when it cannot roll the dead connection back; outside pytest (which
    # captures logs) nothing but a handler on its logger keeps that off stderr.
    assert any(isinstance(h, logging.NullHandler) for h in logging.getLogger("sqlalchemy").handlers)
    monkeypatch.setattr(classrows, "class_rows", original)
    after = runner.invoke(app, ["corpora", "--format", "json"])
    assert after.exit_code == 0, after.output
    assert name not in {row["name"] for row in json.loads(after.stdout)}


def test_schema_revision_of_a_down_server() -> None:
    result = runner.invoke(app, ["db", "current", "--db", "postgresql://postgres@127.0.0.1:1/nothing"])
    line = one_line_error(result)
    assert "127.0.0.1" in line and "is the server running?" in line


@pytest.fixture(scope="module")
def small_corpus(engine) -> str:  # type: ignore[no-untyped-def]
    name = f"bad-seg-{uuid.uuid4().hex[:8]}"
    index_documents(engine, name, [Document("d", "thecatsatonthemat" * 4)], Unit.char)
    return name


def test_nul_bytes_one_rule_for_segment_and_index(db_env: str, small_corpus: str, tmp_path: Path) -> None:
    f = tmp_path / "nul.txt"
    f.write_bytes(b"thecat\nsat\x00on\n")
    from_index = one_line_error(runner.invoke(app, ["index", str(f), "--corpus", _name()]))
    from_segment = one_line_error(runner.invoke(app, ["segment", small_corpus, str(f), "--scorer", "freq", "-q"]))
    assert from_index == from_segment == f"Error: {f} contains a NUL byte at offset 10 (binary input cannot be " \
                                          "read as text)"
    piped = runner.invoke(app, ["segment", small_corpus, "-", "--scorer", "freq", "-q"], input=b"ab\x00\n")
    assert "<stdin> contains a NUL byte at offset 2" in one_line_error(piped)
