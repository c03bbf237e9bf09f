"""The look-up cache under $TERMX_HOME/cache: a full disk turns it off (look-ups go on from the database), its size
per corpus in `termx corpora`, `termx cache` to list and clear it."""

from __future__ import annotations

import errno
import logging
import uuid
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from termx.cli import app
from termx.index.indexer import index_documents
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage import loaded

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
    monkeypatch.setattr(loaded, "_cache_off", False, raising=False)
    monkeypatch.setattr(loaded, "_memo", {})
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
    monkeypatch.setattr(loaded, "_memo", {})
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
        monkeypatch.setattr(loaded, "_memo", {})  # another load in the same process: no second notice
        assert _lookups(corpus) == expected
    notices = [r.getMessage() for r in caplog.records if "look-up cache" in r.getMessage()]
    assert len(notices) == 1 and "No space left on device" in notices[0] and "cache is off" in notices[0]
    assert list((own_home / "cache").iterdir()) == []  # no partial cache folder or file is left
