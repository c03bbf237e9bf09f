"""`termx demo` on a small stand-in for the stdlib docstrings: three rankings side by side, a concordance of the
top adaptation term, an unspaced sentence broken into words; a second run reuses the corpus and the model."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from termx.cli import app
from termx.experiments import demo
from termx.index.ingest import Document

runner = CliRunner()


def test_demo_shows_terms_context_and_words(db_env: str, monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    monkeypatch.setenv("TERMX_HOME", str(tmp_path))
    rng = np.random.default_rng(9)
    words = ["return", "a", "new", "list", "containing", "all", "the", "items", "from", "iterable", "object"]
    docs = [Document(f"m{k}.py", " ".join(rng.choice(words, 80)) + (" frobnicate frobnicate" if k % 3 else ""))
            for k in range(20)]
    monkeypatch.setattr(demo, "stdlib_docstrings", lambda limit=None: docs)
    first = runner.invoke(app, ["demo", "-c", "demo-test", "--top", "5", "-q"])
    assert first.exit_code == 0, first.output
    out = first.stdout
    assert "adaptation" in out and "freq" in out and "ridf" in out
    assert "in context" in out and "words:" in out
    report = demo.run_demo(__import__("termx").get_engine(db_env), "demo-test", top=5)
    assert not report.indexed and report.model_source in ("memory", "cache", "database")
    assert report.terms["adaptation"][0]["term"] == report.term and report.concordance
    assert all(c["match"] == report.term for c in report.concordance)
    assert "".join(report.words) == demo.DEMO_SENTENCE
    assert runner.invoke(app, ["drop", "demo-test"]).exit_code == 0
