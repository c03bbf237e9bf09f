"""Suffix attachment in the re-estimation passes (termx.wordbreak.model, step 4): the bound suffixes and the
attached cuts are what their definitions say (checked against brute force), a pass with suffixes counts the
segmentation it claims, the option is off unless asked for on unspaced scripts, and on a toy corpus of stems and
suffixes it joins them again."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termx.errors import InputError
from termx.evaluation.metrics import segmentation_prf
from termx.progress import Silent
from termx.wordbreak import Scorer, Segmenter, corpus_candidates
from termx.wordbreak.corpus_passes import attach_suffixes, bound_suffixes
from termx.wordbreak.entropy import corpus_classes, effective_classes
from termx.wordbreak.model import DEFAULTS
from tests.test_segment import memory_index
from tests.test_segment_passes import _count, _doc_spans


def _bound_by_definition(sequence: list[int], names: dict[int, str], size: int, share: float,
                         stems: int) -> np.ndarray:
    """x is bound when it follows >= `stems` distinct words v (neither a document start nor a word that is no
    class) and vx is a word of the sequence for >= share of them."""
    words = {names[w] for w in sequence if 0 <= w < size - 1}
    out = np.zeros(size, dtype=bool)
    for x in range(size - 1):
        preds = {v for v, w in zip(sequence, sequence[1:], strict=False) if w == x and 0 <= v < size - 1}
        hits = sum(names[v] + names[x] in words for v in preds)
        out[x] = len(preds) >= max(stems, 1) and hits >= share * len(preds)
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-1, 7), max_size=60), st.lists(st.text("ab", min_size=1, max_size=3), min_size=8,
                                                           max_size=8),
       st.sampled_from([0.1, 0.3, 0.5, 1.0]), st.integers(0, 3))
def test_bound_suffixes_follow_their_definition(sequence: list[int], strings: list[str], share: float,
                                                stems: int) -> None:
    size = 8  # id 7: a word that is no class
    names = dict(enumerate(strings))

    def lookup(ids: np.ndarray) -> list[bytes]:
        return [names[int(i)].encode() for i in ids]

    got = bound_suffixes(np.array(sequence, dtype=np.int64), lookup, size, share, stems)
    assert np.array_equal(got, _bound_by_definition(sequence, names, size, share, stems))


def test_a_suffix_that_follows_words_it_also_ends_is_bound() -> None:
    # ids: 0 walk, 1 s, 2 walks, 3 the, 4 of, 5 talk, 6 talks; "s" follows walk and talk (both also with s)
    names = {0: "walk", 1: "s", 2: "walks", 3: "the", 4: "of", 5: "talk", 6: "talks"}
    sequence = [-1, 0, 1, 4, 3, 5, 1, 2, 4, 3, 6, 0, 3]
    got = bound_suffixes(np.array(sequence), lambda ids: [names[int(i)].encode() for i in ids], 8, 0.5, 2)
    assert got.tolist() == [False, True, False, False, False, False, False, False]  # "the" after "of": ofthe no word


def _attach_by_definition(cuts: list[int], n: int, f: np.ndarray, classes: np.ndarray, bound: np.ndarray,
                          lbl: np.ndarray, offset: np.ndarray, max_len: int) -> list[int]:
    """Words left to right: a bound word joins the word before it when both classes meet, the join is at most
    max_len long and a candidate."""
    edges = [0, *cuts, n]
    words = [(a, b) for a, b in zip(edges, edges[1:], strict=False)]
    out = [words[0]]
    for a, b in words[1:]:
        c = f[a, b - a - 1]
        first = out[-1][0]
        if c >= 0 and bound[offset[c] + b - a - lbl[c] - 1] and b - first <= max_len \
                and classes[a - 1] == classes[a] and f[first, b - first - 1] >= 0:
            out[-1] = (first, b)
        else:
            out.append((a, b))
    return [a for a, _ in out[1:]]


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 12), st.integers(1, 5), st.integers(0, 2 ** 32 - 1))
def test_attach_suffixes_follows_its_definition(n: int, max_len: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    classes_n = 4
    lbl = rng.integers(0, 3, classes_n)
    counts = rng.integers(1, 4, classes_n)
    offset = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    f = np.full((n, max_len + 2), -1, dtype=np.int64)
    for p in range(n):
        for length in range(1, min(max_len + 2, n - p) + 1):
            c = int(rng.integers(-1, classes_n))
            if c >= 0 and lbl[c] < length <= lbl[c] + counts[c]:
                f[p, length - 1] = c
    classes = rng.integers(0, 2, n).astype(np.int8)
    bound = rng.random(int(counts.sum()) + 1) < 0.5
    steps = [0]
    while steps[-1] < n:  # words of 1..max_len tokens, as every segmentation has them
        steps.append(min(n, steps[-1] + int(rng.integers(1, max_len + 1))))
    cuts = np.array(steps[1:-1], dtype=np.int64)
    got = attach_suffixes(cuts, n, f, classes, bound, lbl, offset, max_len)
    assert got.tolist() == _attach_by_definition(cuts.tolist(), n, f, classes, bound, lbl, offset, max_len)


STEMS = ["walk", "talk", "jump", "play", "kick", "look", "call", "turn", "help", "work"]
SUFFIXES = ["", "s", "ed", "ing"]


def _toy(seed: int) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    return [[str(rng.choice(STEMS)) + str(rng.choice(SUFFIXES)) for _ in range(40)] for _ in range(12)]


def test_a_pass_with_suffixes_counts_the_segmentation_it_claims() -> None:
    """The pass's counts are the words of the pass's segmentation (the final search with the passes' λ, θ on the
    self-trained model) with the bound suffixes of that segmentation attached, by the definition."""
    index = memory_index(["".join(doc) for doc in _toy(2)])
    options = {"window": 4, "theta0": 8.0, "pass_weight": 2.0, "pass_theta": 4.0, "suffix": 0.2, "suffix_stems": 2}
    by = Segmenter(index, Scorer.branching, 8, {**options, "passes": 0, "weight": 2.0, "theta": 4.0})
    assert by.model is not None
    plain = by.model.passes.count_words(by.model.log_p, by.model.log_p_unknown, 2.0, 4.0, Silent())[2]
    bound = by.model.passes.bound_suffixes(plain, by.model.params.suffix, by.model.params.suffix_stems)
    assert bound.any()
    attached = []
    for (start, stop), cuts in zip(_doc_spans(index), by.corpus_spans(_doc_spans(index)), strict=True):
        f = corpus_candidates(index, by.tree, start, stop, by.width)
        classes = effective_classes(corpus_classes(index, start, stop))
        attached.append(np.array(_attach_by_definition(cuts.tolist(), stop - start, f, classes, bound,
                                                       index.cls_lbl, by.model.type_offset, 8), dtype=np.int64))
    found, total = _count(by, attached)
    one = Segmenter(index, Scorer.branching, 8, {**options, "passes": 1})
    assert one.model is not None
    assert np.array_equal(one.model.counts, found)
    assert not np.array_equal(found, _count(by, by.corpus_spans(_doc_spans(index)))[0])  # something was attached


def test_suffixes_join_stems_again_on_a_toy_corpus() -> None:
    """Stems and suffixes: the self-trained model cuts `walk|ed`; attaching the suffixes in a pass raises the
    corpus's own word F1."""
    gold = _toy(7)
    index = memory_index(["".join(g) for g in gold])

    def f1(suffix: float) -> float:
        seg = Segmenter(index, Scorer.branching, options={"passes": 1, "suffix": suffix, "suffix_stems": 3})
        words = [seg.segment("".join(g)) for g in gold]
        return segmentation_prf([w for g in gold for w in g], [w for ws in words for w in ws])["word"].f1

    assert f1(0.2) > f1(0.0)


def test_suffixes_are_off_for_unspaced_scripts_and_checked() -> None:
    assert DEFAULTS["unspaced"].suffix == 0 and DEFAULTS["kana"].suffix == 0
    index = memory_index(["abcab"])
    with pytest.raises(InputError, match="suffix"):
        Segmenter(index, Scorer.branching, options={"suffix": 1.5})
