"""The look-up cache under $TERMX_HOME/cache: a full disk turns it off (look-ups go on from the database), its size
per corpus in `termx corpora`, `termx cache` to list and clear it."""

from __future__ import annotations

import errno
import importlib.util
import json
import logging
import uuid
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from termx.cli import app
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage import disk_cache, index_loader
from termx.storage.indexer import index_documents

runner = CliRunner()


@pytest.fixture
def corpus(engine) -> str:  # type: ignore[no-untyped-def]
    name = f"cache-{uuid.uuid4().hex[:8]}"
    index_documents(engine, name, [Document("a", "Hi_Ho_Hi_Ho"), Document("b", "Hi_Ho"), Document("c", "Hi")],
                    Unit.byte, 3)
    return name


@pytest.fixture
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A TERMX_HOME of this test (its cache alone), a fresh process memo and the cache on."""
    monkeypatch.setenv("TERMX_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(disk_cache, "_cache_off", False, raising=False)
    monkeypatch.setattr(index_loader, "_memo", {})
    return tmp_path / "home"


def _lookups(corpus: str) -> list[str]:
    outputs = []
    for args in (["stats", corpus, "Hi", "Ho", "_H", "xyz"], ["class", corpus, "Hi_"],
                 ["concordance", corpus, "Ho"]):
        result = runner.invoke(app, [*args, "--format", "json"])
        assert result.exit_code == 0, result.output
        outputs.append(result.stdout)
    return outputs


def test_a_full_disk_turns_the_cache_off_and_the_lookup_still_answers(
        db_env: str, corpus: str, own_home: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    expected = _lookups(corpus)  # with the cache
    monkeypatch.setattr(index_loader, "_memo", {})
    for folder in (own_home / "cache").iterdir():
        for file in folder.iterdir():
            file.unlink()
        folder.rmdir()

    def full_disk(path: Path, array: np.ndarray) -> None:
        Path(path).write_bytes(b"\x93NUMPY partial")  # a write cut short by ENOSPC
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "save", full_disk)
    with caplog.at_level(logging.WARNING, logger="termx"):
        assert _lookups(corpus) == expected
        monkeypatch.setattr(index_loader, "_memo", {})  # another load in the same process: no second notice
        assert _lookups(corpus) == expected
    notices = [r.getMessage() for r in caplog.records if "look-up cache" in r.getMessage()]
    assert len(notices) == 1 and "No space left on device" in notices[0] and "cache is off" in notices[0]
    assert list((own_home / "cache").iterdir()) == []  # no partial cache folder or file is left


def test_a_full_disk_while_caching_sketches_leaves_nothing_and_jdf_answers(
        db_env: str, corpus: str, own_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sketch cache is written like the look-up cache: `termx sketch` on a full disk failed with 'unexpected
    OSError' and left its half-written folder (tmp*) in the cache for good."""
    from termx.jdf import sketch_store

    monkeypatch.setattr(sketch_store, "_memo", {})

    def full_disk(path: Path, array: np.ndarray) -> None:
        Path(path).write_bytes(b"\x93NUMPY partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "save", full_disk)
    for args in (["sketch", corpus], ["jdf", corpus, "Hi", "Ho"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    assert not (own_home / "cache").exists() or list((own_home / "cache").iterdir()) == []


def _corpora(name: str | None = None) -> dict[str, dict]:  # type: ignore[type-arg]
    result = runner.invoke(app, ["corpora", *([name] if name else []), "--format", "json"])
    assert result.exit_code == 0, result.output
    return {row["name"]: row for row in json.loads(result.stdout)}


def test_corpora_show_database_and_cache_bytes_and_cache_clear_empties_one_or_all(
        db_env: str, engine, own_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    small, large = f"cache-s-{uuid.uuid4().hex[:6]}", f"cache-l-{uuid.uuid4().hex[:6]}"
    index_documents(engine, small, [Document("a", "Hi_Ho")], Unit.byte, 3)
    index_documents(engine, large, [Document(f"d{k}", f"text {k} of a larger corpus " * 40) for k in range(30)],
                    Unit.byte, 3)
    before = _corpora()
    assert before[small]["cache_bytes"] == 0 and before[large]["cache_bytes"] == 0
    with engine.connect() as conn:  # at least its class tables, whole
        classes = conn.exec_driver_sql(
            "SELECT sum(pg_total_relation_size(to_regclass('termx.class_' || s.id))) FROM termx.shard s"
            " JOIN termx.corpus c ON c.id = s.corpus_id WHERE c.name = %(n)s", {"n": large}).scalar_one()
    assert before[large]["db_bytes"] >= classes > 0 and before[large]["db_bytes"] > before[small]["db_bytes"] > 0
    assert _corpora(small)[small]["db_bytes"] == before[small]["db_bytes"]
    if importlib.util.find_spec("fastapi") and importlib.util.find_spec("httpx"):  # GET /corpora: the same rows
        from fastapi.testclient import TestClient

        from termx.serve import create_app

        served = {r["name"]: r for r in TestClient(create_app(db_env), base_url="http://127.0.0.1").get("/corpora").json()}
        assert served[small] == before[small]

    for name in (small, large):
        assert runner.invoke(app, ["stats", name, "Hi"]).exit_code == 0
    after = _corpora()
    assert after[large]["cache_bytes"] > after[small]["cache_bytes"] > 0
    listed = json.loads(runner.invoke(app, ["cache", "list", "--format", "json"]).stdout)
    assert sorted(r["cache_bytes"] for r in listed) == sorted(after[n]["cache_bytes"] for n in (small, large))
    monkeypatch.setenv("TERMX_CACHE_MAX_GB", "0.5")
    status = json.loads(runner.invoke(app, ["cache", "status", "--format", "json"]).stdout)[0]
    assert status == {"path": str(own_home / "cache"), "cache_bytes": sum(r["cache_bytes"] for r in listed),
                      "cache_max_bytes": 1 << 29, "folders": 2}
    db_status = json.loads(runner.invoke(app, ["db", "status", "--format", "json"]).stdout)[0]
    assert db_status["cache_bytes"] == status["cache_bytes"] and "db_bytes" in db_status

    result = runner.invoke(app, ["cache", "clear", large])
    assert result.exit_code == 0 and "removed 1 cache folder" in result.stderr
    cleared = _corpora()
    assert cleared[large]["cache_bytes"] == 0 and cleared[small]["cache_bytes"] == after[small]["cache_bytes"]
    assert runner.invoke(app, ["stats", large, "Hi", "--format", "json"]).exit_code == 0  # filled again
    result = runner.invoke(app, ["cache", "clear"])
    assert result.exit_code == 0 and "removed 2 cache folders" in result.stderr
    assert list((own_home / "cache").iterdir()) == [] and runner.invoke(app, ["cache", "clear", "nope"]).exit_code == 1
