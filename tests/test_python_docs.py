"""docs/python.md's IR pipeline runs as written: termx words into a PostgreSQL tsvector column and scikit-learn."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "python.md"


def test_ir_pipeline_in_the_docs_runs(db_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The block runs, and what it prints is what it claims: words that partition each document, the documents
    holding every query word ranked by PostgreSQL, a tf-idf matrix over termx's words."""
    blocks = [b for b in re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S) if "zh-news" in b]
    assert blocks, "docs/python.md has no python block of the IR pipeline (corpus zh-news)"
    run: dict[str, Any] = {"__name__": "docs_python"}
    exec(compile(blocks[0], str(DOC), "exec"), run)  # noqa: S102 - our own docs
    docs, words, query, hits = run["docs"], run["words"], run["query_words"], run["hits"]
    assert ["".join(w) for w in words] == [d.text for d in docs]
    assert query == ["银行", "投资"]  # the stand-in vocabulary's two words, found without a dictionary
    holding = sorted(d.name for d, w in zip(docs, words, strict=True) if set(query) <= set(w))
    scores = [h.score for h in hits]
    assert len(hits) == min(5, len(holding)) and {h.id for h in hits} <= set(holding)
    assert scores == sorted(scores, reverse=True)
    out = capsys.readouterr().out
    assert f"query words: {query}\n" in out
    assert f"top documents: {[(h.id, round(h.score, 3)) for h in hits]}\n" in out
    vocabulary = {w for ws in words for w in ws}
    assert set(run["tfidf"].vocabulary_) == vocabulary
    assert run["matrix"].shape == (len(docs), len(vocabulary))
