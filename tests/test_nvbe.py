"""nVBE autonomy (termx.wordbreak.nvbe) against its definition computed by brute force, and the branching model's
use of it (ν · a(w) · |w| added to a word's value)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termx.wordbreak import Scorer, Segmenter, text_candidates, text_ids
from termx.wordbreak.corpus_passes import document_chunks
from termx.wordbreak.nvbe import autonomy_table

from .test_segment import brute_entropy, memory_index

texts_strategy = st.lists(st.text(alphabet="abc", min_size=1, max_size=25), min_size=1, max_size=5)


def brute_h(texts: list[str], s: str, side: str) -> float:
    """Branching entropy with a string occurring once having one follower (h = 0); h of "" is 0."""
    return max(brute_entropy(texts, s, side), 0.0) if s else 0.0


def brute_autonomy(texts: list[str], window: int) -> tuple[dict[str, float], float]:
    """a(s) of every string type of 1..window characters, by the module docstring's definition, and a(x) of a
    character occurring once."""
    types = {t[p:p + n] for t in texts for n in range(1, window + 1) for p in range(len(t) - n + 1)}
    def delta(s: str) -> tuple[float, float]:
        return (brute_h(texts, s, "R") - brute_h(texts, s[:-1], "R"),
                brute_h(texts, s, "L") - brute_h(texts, s[1:], "L"))
    deltas = {s: delta(s) for s in types}
    norm = {}
    for n in range(1, window + 1):
        values = np.array([deltas[s] for s in types if len(s) == n]).reshape(-1, 2)
        mean, std = values.mean(axis=0), values.std(axis=0)
        norm[n] = mean, np.where(std > 0, std, 1.0)
    out = {s: float(sum((d - norm[len(s)][0][k]) / norm[len(s)][1][k] for k, d in enumerate(deltas[s])))
           for s in types}
    return out, float(-norm[1][0][0] / norm[1][1][0] - norm[1][0][1] / norm[1][1][1])


@settings(max_examples=25, deadline=None)
@given(texts_strategy, st.integers(1, 5))
def test_autonomy_equals_brute_force(texts: list[str], window: int) -> None:
    index = memory_index(texts)
    seg = Segmenter(index, Scorer.branching, 8, {"window": window})
    model = seg.model
    assert model is not None
    values, single = autonomy_table(index, seg.tree, model.branching, window, list(document_chunks(index)),
                                    model.type_offset, len(model.counts))
    want, want_single = brute_autonomy(texts, window)
    assert single == pytest.approx(want_single, rel=1e-7, abs=1e-9)  # one-pass vs two-pass variance
    seen = 0
    for s, a in want.items():
        c = int(text_candidates(index, text_ids(index, s), len(s))[0, len(s) - 1])
        if c < 0:  # occurs once: no class, no table entry
            continue
        got = values[model.type_offset[c] + len(s) - index.cls_lbl[c] - 1]
        assert got == pytest.approx(a, rel=1e-7, abs=1e-9), s
        seen += 1
    assert np.isfinite(values).sum() == seen  # exactly the repeated strings of 1..window characters


def test_autonomy_enters_the_word_values_and_set_final_matches_a_fresh_model() -> None:
    words = ["the", "cat", "sat", "on", "mat", "rat", "ate", "a", "dog", "ran"]
    rng = np.random.default_rng(7)
    index = memory_index(["".join(rng.choice(words, 40)) for _ in range(6)])
    # without re-estimation passes: a pass segments with ν, so its counts would differ between the two
    plain = Segmenter(index, Scorer.branching, options={"autonomy": 0.0, "passes": 0})
    nvbe = Segmenter(index, Scorer.branching, options={"autonomy": 2.0, "passes": 0})
    assert plain.model is not None and nvbe.model is not None
    assert not plain.model.has_autonomy and nvbe.model.has_autonomy
    lengths = nvbe.model._type_lengths()
    table, single = autonomy_table(index, nvbe.tree, nvbe.model.branching, nvbe.model.params.window,
                                   list(document_chunks(index)), nvbe.model.type_offset, len(lengths))
    words_ = np.isfinite(plain.model.log_p)
    assert words_.any()
    want = plain.model.log_p[words_] + 2.0 * np.nan_to_num(table, nan=0.0)[words_] * lengths[words_]
    assert np.allclose(nvbe.model.log_p[words_], want)
    assert nvbe.model.log_p_unknown == pytest.approx(plain.model.log_p_unknown + 2.0 * single)
    text = "thecatsatonthematadogran"
    nvbe.model.set_final(plain.model.params.weight, plain.model.params.theta, 0.0)
    assert nvbe.segment(text) == plain.segment(text)
    assert np.array_equal(nvbe.model.log_p, plain.model.log_p)
    nvbe.model.set_final(1.0, -8.0, 1.0)
    fresh = Segmenter(index, Scorer.branching, options={"autonomy": 1.0, "weight": 1.0, "theta": -8.0, "passes": 0})
    assert nvbe.segment(text) == fresh.segment(text)
    assert nvbe.model.params == fresh.model.params  # type: ignore[union-attr]
    with pytest.raises(ValueError):
        plain.model.set_final(1.0, 0.0, 1.0)
