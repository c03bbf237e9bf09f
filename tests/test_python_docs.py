"""docs/python.md's IR pipeline runs as written: termx words into a PostgreSQL tsvector column and scikit-learn."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "python.md"


def test_ir_pipeline_in_the_docs_runs(db_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks, "docs/python.md has no python block"
    exec(compile(blocks[0], str(DOC), "exec"), {"__name__": "docs_python"})  # noqa: S102 - our own docs
    out = capsys.readouterr().out
    assert "top documents: [('doc" in out
