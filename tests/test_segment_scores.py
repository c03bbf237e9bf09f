"""The word scores Corpus.segment_scores reports are the ones the branching model's Viterbi search maximised: each
equals the class-tree path's score of that word, the words are segment()'s, and their sum is the largest total
of every segmentation of the line, found by brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

import termx
from termx.errors import InputError
from termx.index.units import Unit
from termx.wordbreak import Scorer, Segmenter
from termx.wordbreak.candidates import char_lengths, text_candidates, text_ids
from termx.wordbreak.entropy import text_classes
from termx.wordbreak.word_scores import scored_words
from tests.test_segment import memory_index
from tests.test_segment_models import WORDS, _compact


def _class_tree_scores(seg: Segmenter, chunk: str) -> tuple[np.ndarray, np.ndarray]:
    """S(w, p) of every word of `chunk` and the boundary term at each p > 0, by suffix-array search and the class
    tree (no n-gram tables)."""
    assert seg.model is not None
    ids = text_ids(seg.index, chunk)
    rev = seg.model.branching
    fcand = text_candidates(seg.index, ids, seg.width)
    rcand = text_candidates(rev.reverse, ids[::-1].copy(), seg.width)
    classes = text_classes(chunk, seg.index.unit)
    return (seg.model.scores(fcand, rcand, classes, char_lengths(ids, seg.index.unit)),
            seg.model.evidence(fcand, rcand, classes) - seg.params["theta"])


def _brute_best(scores: np.ndarray) -> float:
    """The largest sum of word scores over every way to cut the span (2^(n-1) of them)."""
    n = len(scores)
    best = -np.inf
    for mask in itertools.product([False, True], repeat=n - 1):
        edges = [0, *(p + 1 for p, cut in enumerate(mask) if cut), n]
        pairs = list(zip(edges, edges[1:], strict=False))
        if all(b - a <= scores.shape[1] for a, b in pairs):
            best = max(best, sum(scores[a, b - a - 1] for a, b in pairs))
    return float(best)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.text(alphabet="ab1é.", min_size=1, max_size=30), min_size=1, max_size=4),
       st.sampled_from([Unit.byte, Unit.char]), st.integers(2, 6),
       st.lists(st.text(alphabet="ab1é. ", min_size=1, max_size=9), min_size=1, max_size=3),
       st.sampled_from([0.0, 1.5]))
def test_scores_are_the_searchs_and_sum_to_the_best_total(texts: list[str], unit: Unit, max_len: int,
                                                          lines: list[str], theta: float) -> None:
    seg = Segmenter(memory_index(texts, unit), Scorer.branching, max_len, {"theta0": 1.0, "theta": theta})
    tables = _compact(seg)
    batch, chunk_tables = tables.chunk_scores(lines)
    found = scored_words(batch, chunk_tables, tables.params["theta"], 2)
    assert [[w["word"] for w in words] for words, _ in found] == tables.segment_lines(lines)
    k = 0
    for chunks, (words, total) in zip(batch.chunks, found, strict=True):
        at = 0
        brute = 0.0
        for chunk in chunks:
            want, boundary = _class_tree_scores(seg, chunk)
            brute += _brute_best(want)
            np.testing.assert_allclose(chunk_tables[k][0], want, rtol=1e-12)
            size = len(chunk.encode() if unit is Unit.byte else chunk)
            p = 0
            while p < size:  # the chunk's words, each scored as the class tree scores it at its place
                w = words[at]
                length = len(w["word"].encode() if unit is Unit.byte else w["word"])
                assert w["score"] == pytest.approx(want[p, length - 1], rel=1e-12)
                assert w["boundary"] == (pytest.approx(boundary[p], rel=1e-12) if p else 0.0)
                assert [o["score"] for o in w["others"]] == sorted((o["score"] for o in w["others"]), reverse=True)
                assert all(o["word"] != w["word"] and np.isfinite(o["score"]) for o in w["others"])
                p += length
                at += 1
            k += 1
        assert at == len(words)
        assert sum(w["score"] for w in words) == pytest.approx(total, rel=1e-9, abs=1e-9)
        assert total == pytest.approx(brute, rel=1e-9, abs=1e-9)


def test_corpus_segment_scores_match_its_segmentation(engine: Engine, database_url: str) -> None:
    rng = np.random.default_rng(5)
    docs = [(f"d{k}", "".join(rng.choice(WORDS[:10], 50))) for k in range(10)]
    lines = ["thecatsatonthemat", "a dog ran", "ratatemat"]
    with termx.Database(database_url) as db:
        db.index("scored", docs, unit="byte", replace=True)
        corpus = db.corpus("scored")
        records = list(corpus.segment_scores(lines, others=2))
        assert [r["words"] for r in records] == list(corpus.segment(lines))
        assert [{k: r[k] for k in ("line", "text", "words", "boundaries")} for r in records] == \
            list(corpus.segment_records(lines))
        for r in records:
            assert [s["word"] for s in r["scores"]] == r["words"]
            assert sum(s["score"] for s in r["scores"]) == pytest.approx(r["total"], rel=1e-12)
            assert all(len(s["others"]) <= 2 for s in r["scores"])
        assert records[1]["scores"][1]["boundary"] == 0.0  # "dog" starts a chunk: no boundary term
        with pytest.raises(InputError):
            list(corpus.segment_scores(lines, others=-1))
        db.drop("scored")
