"""The stored branching model: its n-gram tables segment exactly as the class tree and suffix-array search do,
it is trained once and stored with its corpus, loaded afterwards, and invalidated by a rebuild or drop."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from termx.cli import app
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.indexer import index_documents
from termx.wordbreak import Scorer, Segmenter, model
from termx.wordbreak import corpus_model as stored_module
from termx.wordbreak.corpus_model import segment_model
from termx.wordbreak.model import DEFAULTS
from termx.wordbreak.ngram_tables import CompactModel, compact_model
from tests.test_segment import memory_index

runner = CliRunner()
WORDS = ["the", "cat", "sat", "on", "mat", "rat", "ate", "a", "dog", "ran", "é1"]
CLASS_SETTINGS = {"kappa_digit": 2.0, "kappa_han_kana": 3.0, "kappa_run": 5.0, "runs": 1}
SUFFIXES = {"suffix": 0.2, "suffix_stems": 1}  # attached even in corpora of a few short texts


def _compact(seg: Segmenter) -> CompactModel:
    assert seg.model is not None
    built = compact_model(seg.model, seg.index.unit, seg.index.vocab)
    return CompactModel.from_stored(built.meta(), built.arrays())  # as loaded: tables rebuilt from the arrays


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(alphabet="ab1é東カ.", min_size=1, max_size=30), min_size=1, max_size=4),
       st.sampled_from([Unit.byte, Unit.char]), st.integers(1, 4), st.integers(2, 8),
       st.lists(st.text(alphabet="ab1é東カ.x ", max_size=20), max_size=3), st.sampled_from([0.0, 1.5]),
       st.sampled_from([0, 2]), st.sampled_from([{}, CLASS_SETTINGS]), st.sampled_from([0.0, 0.8]),
       st.sampled_from([0.0, 2.0]), st.sampled_from([{}, SUFFIXES]))
def test_tables_segment_like_the_class_tree_and_the_suffix_array(texts: list[str], unit: Unit, window: int,
                                                                 max_len: int, new: list[str], nu: float,
                                                                 passes: int, classes: dict[str, float],
                                                                 bigram: float, pair: float,
                                                                 suffixes: dict[str, float]) -> None:
    """Also with re-estimation passes, their bonus for two-character words, their suffix attachment and the bigram
    pass (their counts are what the stored word values are made of) and with per-class evidence and runs as
    candidates."""
    index = memory_index(texts, unit)
    seg = Segmenter(index, Scorer.branching, max_len, {"window": window, "theta0": 1.0, "autonomy": nu,
                                                       "passes": passes, "pass_theta": -2.0, "pass_mix": 0.5,
                                                       "pass_bigram": bigram, "pass_pair": pair, **classes,
                                                       **suffixes})
    tables = _compact(seg)
    spans = [(int(index.doc_start[d]), int(index.doc_start[d] + index.doc_len[d])) for d in range(index.n_docs)]
    inside = seg.corpus_spans(spans)
    got = tables.segment_lines(texts)
    for text, cuts, words in zip(texts, inside, got, strict=True):
        edges = [0, *cuts.tolist(), len(text.encode() if unit is Unit.byte else text)]
        data = text.encode() if unit is Unit.byte else text
        want = [data[a:b] for a, b in zip(edges, edges[1:], strict=False)]
        assert [w.encode() if unit is Unit.byte else w for w in words] == want
    assert tables.segment_lines(new) == seg.segment_lines(new)  # text the corpus has never seen


def test_tables_hold_only_what_scores_need() -> None:
    rng = np.random.default_rng(3)
    texts = ["".join(rng.choice(WORDS[:10], 60)) for _ in range(8)]
    index = memory_index(texts)
    seg = Segmenter(index, Scorer.branching)
    tables = _compact(seg)
    assert seg.model is not None
    words = int((seg.model.counts > 0).sum())
    assert 0 < words <= len(tables.fkeys) < len(index.cls_i) * seg.max_len
    assert np.isfinite(tables.flogp).sum() == words
    assert tables.segment_lines(["thecatsatonthemat"]) == [["the", "cat", "sat", "on", "the", "mat"]]


def test_a_changed_default_changes_the_stored_models_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A model stored under the old defaults must not be found once a default changes (same flags)."""
    before = stored_module.model_key(20, {})
    monkeypatch.setitem(DEFAULTS, "unspaced", replace(DEFAULTS["unspaced"], runs=1 - DEFAULTS["unspaced"].runs))
    assert stored_module.model_key(20, {}) != before
    assert stored_module.model_key(20, {"autonomy": 0.0}) != stored_module.model_key(20, {})


def test_unspaced_scripts_get_their_own_defaults() -> None:
    han = memory_index(["北京大学生前来应聘" * 3, "研究生命起源" * 3], Unit.char)
    latin = memory_index(["the cat sat on the mat 北京"] * 3, Unit.char)
    kana = memory_index(["東京都に住んでいる学生です" * 3, "日本語の文を単語に分ける" * 3], Unit.char)
    assert Segmenter(han, Scorer.branching).params == DEFAULTS["unspaced"].as_dict()
    assert Segmenter(kana, Scorer.branching).params == DEFAULTS["kana"].as_dict() != DEFAULTS["unspaced"].as_dict()
    assert Segmenter(latin, Scorer.branching).params == DEFAULTS["spaced"].as_dict()
    assert Segmenter(han, Scorer.branching, options={"theta": 1.0}).params["theta"] == 1.0


def _models(engine: Engine, corpus: str) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.text("SELECT count(*) FROM termx.segment_model m JOIN termx.corpus c"
                                    " ON c.id = m.corpus_id WHERE c.name = :n"), {"n": corpus}).scalar_one()


def _all_models(engine: Engine) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.text("SELECT count(*) FROM termx.segment_model")).scalar_one()


def test_model_is_trained_once_stored_and_invalidated(engine: Engine, db_env: str, tmp_path: object,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERMX_HOME", str(tmp_path))
    rng = np.random.default_rng(5)
    docs = [Document(f"d{k}", "".join(rng.choice(WORDS, 80))) for k in range(6)]
    index_documents(engine, "models", docs, Unit.byte, 3, replace=True)
    before = _all_models(engine)
    first = runner.invoke(app, ["segment", "models", "-"], input="thecatsatonthemat\nadogran\n")
    assert first.exit_code == 0, first.output
    assert "trained the branching model" in first.stderr
    assert _models(engine, "models") == 1

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the stored model should have been loaded")

    with monkeypatch.context() as patched:
        patched.setattr(model.BranchingModel, "__init__", refuse)
        stored_module._memo.clear()
        second = runner.invoke(app, ["segment", "models", "-"], input="thecatsatonthemat\nadogran\n")
        assert second.exit_code == 0, second.output
        assert second.stdout == first.stdout and "trained" not in second.stderr
        assert segment_model(engine, "models")[1] == "memory"
        stored_module._memo.clear()
        assert segment_model(engine, "models")[1] == "cache"
        stored_module._memo.clear()
        patched.setenv("TERMX_HOME", str(tmp_path / "empty"))  # no disk cache: read back from PostgreSQL
        loaded, source = segment_model(engine, "models")
        assert source == "database"
        assert loaded.segment_lines(["thecatsatonthemat"])[0] == first.stdout.splitlines()[0].split()
    assert _models(engine, "models") == 1  # nothing stored twice
    # other settings are another model
    assert segment_model(engine, "models", options={"theta": 3.0})[1] == "trained"
    assert _models(engine, "models") == 2
    # a rebuild or a drop removes the corpus's models
    index_documents(engine, "models", docs, Unit.byte, 3, replace=True)
    assert _models(engine, "models") == 0 and _all_models(engine) == before
    stored_module._memo.clear()
    assert segment_model(engine, "models")[1] == "trained"
    assert _all_models(engine) == before + 1
    assert runner.invoke(app, ["drop", "models"]).exit_code == 0
    assert _all_models(engine) == before
