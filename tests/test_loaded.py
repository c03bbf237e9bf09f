"""The loaded index: cache keyed by build, SA interval search, class look-up, decode."""

from __future__ import annotations

import subprocess
import sys
import uuid

import numpy as np
from typer.testing import CliRunner

from termx.cli import app
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.db import get_engine, heads
from termx.storage.index_loader import _memo, load_index
from termx.storage.indexer import index_documents


def test_rebuild_invalidates_memo_and_cache(engine) -> None:  # type: ignore[no-untyped-def]
    name = f"l-{uuid.uuid4().hex[:8]}"
    index_documents(engine, name, [Document("a", "abcabc")], Unit.char)
    first = load_index(engine, name)
    assert first.interval(first.encode("abc")) == (0, 1)
    index_documents(engine, name, [Document("b", "xyz xyz xyz")], Unit.char, replace=True)
    _memo.clear()  # a fresh process: only the on-disk cache remains
    second = load_index(engine, name)
    assert second.encode("abc") is None
    i, j = second.interval(second.encode("xyz"))
    assert j - i + 1 == 3 and second.decode(second.tokens[second.sa[i]:second.sa[i] + 3]) == "xyz"


def test_word_unit_decode_and_absent_pattern(engine) -> None:  # type: ignore[no-untyped-def]
    name = f"l-{uuid.uuid4().hex[:8]}"
    index_documents(engine, name, [Document("a", "the cat sat. The cat!")], Unit.word)
    index = load_index(engine, name)
    ids = index.encode("the  cat")
    assert ids is not None and index.decode(ids) == "the cat"
    i, j = index.interval(index.encode("cat"))
    assert (j - i + 1, index.class_of(i, j) >= 0) == (2, True)
    i, j = index.interval(np.array([index.encode("sat")[0], index.encode("The")[0]]))
    assert j < i


def test_db_commands_and_module_entry_point(db_env: str) -> None:
    runner = CliRunner()
    shown = runner.invoke(app, ["db", "upgrade"]).stdout.split()
    assert shown and set(shown) == heads(get_engine(db_env))
    assert runner.invoke(app, ["db", "current"]).stdout.split() == shown
    out = subprocess.run([sys.executable, "-m", "termx", "--help"], capture_output=True, text=True, check=True)
    assert "index" in out.stdout
