"""The `words` scorer: word and pair counts of a spaced corpus, and the bigram Viterbi search over new text (exact:
brute force over every segmentation of tiny texts finds no better one), stored with its corpus, from the CLI."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from termx.cli import app
from termx.errors import InputError
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.indexer import index_documents
from termx.wordbreak import word_store
from termx.wordbreak.word_model import WORD_DEFAULTS, WordCounts, WordModel, count_words

runner = CliRunner()
SPACED = ["the cat sat on the mat", "the dog sat on a mat.", "a cat ate the rat, the dog ran",
          "the cat sat", "on the mat the dog ate"]


def test_counts_of_a_spaced_corpus() -> None:
    counts = count_words(["The cat, the CAT sat", "cat_dog 42x"])
    got = dict(zip(counts.words, counts.counts.tolist(), strict=True))
    assert got == {"the": 2, "cat": 3, "sat": 1, "dog": 1, "42x": 1}
    pairs = {(counts.words[a], counts.words[b]): n for a, b, n in
             zip(counts.pair_a.tolist(), counts.pair_b.tolist(), counts.pair_n.tolist(), strict=True)}
    # a comma or an underscore between two words is no pair; no pair crosses a document's end
    assert pairs == {("the", "cat"): 2, ("cat", "sat"): 1, ("dog", "42x"): 1}
    assert counts.chars["c"] == 3 and counts.chars["4"] == 1


def _score(counts: WordCounts, p: dict[str, float], max_len: int, words: list[str]) -> float:
    """The best score of this segmentation under the model, each word read as known or unknown (an independent
    reading of word_model's formulas)."""
    n = float(counts.counts.sum())
    c = {w: float(k) for w, k in zip(counts.words, counts.counts.tolist(), strict=True)
         if k >= p["min_count"] and len(w) <= max_len}
    pairs = {(counts.words[a], counts.words[b]): float(k) for a, b, k in
             zip(counts.pair_a.tolist(), counts.pair_b.tolist(), counts.pair_n.tolist(), strict=True)
             if k >= p["min_pair"] and counts.words[a] in c and counts.words[b] in c}
    succ = {v: sum(1 for a, _ in pairs if a == v) for v in c}
    gamma = {v: (p["discount"] * succ[v] / c[v] if succ[v] else 1.0) for v in c}
    chars = max(sum(counts.chars.values()), 1)

    def unknown(w: str) -> float:
        return p["unknown"] + p["unknown_len"] * len(w) + sum(
            math.log(counts.chars[ch] / chars) if ch in counts.chars else math.log(0.5 / chars) for ch in w)

    best = {None: 0.0}  # context word (None: none) -> best score so far
    for w in words:
        key = w.lower()
        nxt: dict[str | None, float] = {}
        for prev, s in best.items():
            if not key.isalnum():  # a character that is no word character is a word of its own
                if len(key) == 1:
                    nxt[None] = max(nxt.get(None, -math.inf), s)
                continue
            g = gamma[prev] if prev is not None else 1.0
            if len(key) <= max_len:
                nxt[None] = max(nxt.get(None, -math.inf), s + math.log(g) + unknown(key))
            if key in c:
                pr = g * c[key] / n
                if prev is not None and (prev, key) in pairs:
                    pr += max(pairs[prev, key] - p["discount"], 0) / c[prev]
                nxt[key] = max(nxt.get(key, -math.inf), s + math.log(pr))
        best = nxt
    return max(best.values(), default=-math.inf)


def _segmentations(text: str) -> list[list[str]]:
    out = []
    for cuts in itertools.product([False, True], repeat=len(text) - 1):
        words, start = [], 0
        for k, cut in enumerate(cuts, 1):
            if cut:
                words.append(text[start:k])
                start = k
        out.append(words + [text[start:]])
    return out


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet="abcA1 ,", min_size=1, max_size=12), min_size=1, max_size=6),
       st.text(alphabet="abcAé1,", min_size=1, max_size=8), st.integers(1, 5),
       st.sampled_from([0.1, 0.5, 0.9]), st.sampled_from([1, 2]), st.sampled_from([1, 2]),
       st.sampled_from([-8.0, -2.0, 0.0]), st.sampled_from([-1.0, 0.0]))
def test_viterbi_finds_the_best_segmentation(corpus: list[str], text: str, max_len: int, discount: float,
                                             min_count: int, min_pair: int, unknown: float, unknown_len: float) -> None:
    counts = count_words(corpus)
    params = {"discount": discount, "min_count": min_count, "min_pair": min_pair, "unknown": unknown,
              "unknown_len": unknown_len}
    model = WordModel(WordCounts.from_stored(counts.arrays()), max_len, params)  # as loaded
    got = model.segment_lines([text])[0]
    assert "".join(got) == text
    best = max(_score(counts, params, max_len, s) for s in _segmentations(text))
    assert _score(counts, params, max_len, got) == pytest.approx(best, abs=1e-9)


def test_new_text_against_a_spaced_corpus() -> None:
    model = WordModel(count_words(SPACED * 3), 20)
    assert model.segment_lines(["thecatsatonthemat", "#TheDogAteTheRat!", "the catsat"]) == [
        ["the", "cat", "sat", "on", "the", "mat"], ["#", "The", "Dog", "Ate", "The", "Rat", "!"],
        ["the", "cat", "sat"]]
    # an unknown word is one word, not single characters
    assert model.segment_lines(["thezebrasat"])[0] == ["the", "zebra", "sat"]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(max_size=30), max_size=5))
def test_any_text_comes_back_whole(lines: list[str]) -> None:
    lines = [line.replace("\n", " ").replace("\r", " ") for line in lines]
    model = WordModel(count_words(SPACED), 6)
    for line, words in zip(lines, model.segment_lines(lines), strict=True):
        assert "".join(words) == "".join(line.split()) and all(words)


def test_the_defaults_are_what_the_tuning_printed() -> None:
    """docs/segment.md quotes what `bench/tune_word_model.py --seed 0` printed; the code's defaults are those."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "segment.md").read_text(encoding="utf-8")
    quoted = " ".join(f"{k}={v:g}" for k, v in WORD_DEFAULTS.items())
    assert f"`{quoted}`" in " ".join(doc.split())


def test_bad_parameters_are_refused() -> None:
    counts = count_words(SPACED)
    with pytest.raises(InputError, match="no parameter 'theta'"):
        WordModel(counts, 20, {"theta": 1.0})
    with pytest.raises(InputError, match="discount"):
        WordModel(counts, 20, {"discount": 2.0})
    assert set(WORD_DEFAULTS) == {"discount", "min_count", "min_pair", "unknown", "unknown_len"}


def _words_models(engine: Engine, corpus: str) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.text("SELECT count(*) FROM termx.segment_model m JOIN termx.corpus c"
                                    " ON c.id = m.corpus_id WHERE c.name = :n AND m.scorer = 'words'"),
                            {"n": corpus}).scalar_one()


@pytest.mark.parametrize("unit", [Unit.byte, Unit.char, Unit.word])
def test_cli_counts_once_stores_and_loads(engine: Engine, db_env: str, tmp_path: object,
                                          monkeypatch: pytest.MonkeyPatch, unit: Unit) -> None:
    monkeypatch.setenv("TERMX_HOME", str(tmp_path))
    rng = np.random.default_rng(3)
    docs = [Document(f"d{k}", " ".join(rng.choice(SPACED, 4))) for k in range(8)]
    name = f"spaced_{unit.value}"
    index_documents(engine, name, docs, unit, 3, replace=True)
    word_store._counts_memo.clear()
    first = runner.invoke(app, ["segment", name, "-", "--scorer", "words"], input="thecatsatonthemat\nadogran\n")
    assert first.exit_code == 0, first.output
    assert first.stdout == "the cat sat on the mat\na dog ran\n"
    assert "trained the words model" in first.stderr and _words_models(engine, name) == 1

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the stored counts should have been loaded")

    with monkeypatch.context() as patched:
        patched.setattr(word_store, "count_words", refuse)
        for home in (tmp_path, tmp_path / "empty"):  # from the disk cache, then from PostgreSQL
            word_store._counts_memo.clear()
            patched.setenv("TERMX_HOME", str(home))
            again = runner.invoke(app, ["segment", name, "-", "--scorer", "words", "-p", "unknown=-4"],
                                  input="thecatsatonthemat\n")
            assert again.exit_code == 0, again.output
            assert again.stdout == "the cat sat on the mat\n" and "trained" not in again.stderr
    assert _words_models(engine, name) == 1  # parameters need no other model
    bad = runner.invoke(app, ["segment", name, "-", "--scorer", "words", "-p", "theta=1"], input="x\n")
    assert bad.exit_code != 0 and "takes --param 'theta'" in bad.output and "Traceback" not in bad.output
    spaced = tmp_path / "spaced.txt"  # type: ignore[operator]
    spaced.write_text("the cat sat\n", encoding="utf-8")
    with pytest.raises(InputError, match="no spaces"):
        from termx.database import Database

        Database(db_env).whitespace("ws_words", [str(spaced)], scorers=["words"])
