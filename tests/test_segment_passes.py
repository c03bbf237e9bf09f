"""Re-estimation passes of the branching model (hard EM): self-training and each pass count exactly the words of
the segmentation they claim to count (checked against the search's own paths), the interpolation is as
documented, passes = 0 is self-training alone, set_final equals a fresh model, and on a toy corpus a pass moves
the segmentation toward the words the corpus was made of."""

from __future__ import annotations

import itertools
import re
import unicodedata

import numba as nb
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from termx.errors import InputError
from termx.evaluation.metrics import segmentation_prf
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.wordbreak import Scorer, Segmenter, char_lengths, corpus_candidates, viterbi
from termx.wordbreak.corpus_passes import add_pair_bonus, bigram_counts
from termx.wordbreak.entropy import corpus_classes
from termx.wordbreak.model import DEFAULTS
from termx.wordbreak.viterbi import WordScores, _state_cuts, forward_bigram
from tests.test_segment import memory_index

WORDS = ["the", "cat", "sat", "on", "mat", "rat", "ate", "a", "dog", "ran"]


def _doc_spans(index: LoadedIndex) -> list[tuple[int, int]]:
    return [(int(index.doc_start[d]), int(index.doc_start[d] + index.doc_len[d])) for d in range(index.n_docs)]


def _count(seg: Segmenter, cuts_per_doc: list[np.ndarray]) -> tuple[np.ndarray, int]:
    """Words of a segmentation of every document, counted per (class, length) as the model indexes them."""
    model, index = seg.model, seg.index
    assert model is not None
    counts = np.zeros(len(model.trained[0]))
    words = 0
    for (start, stop), cuts in zip(_doc_spans(index), cuts_per_doc, strict=True):
        cand = corpus_candidates(index, seg.tree, start, stop, seg.max_len)
        edges = [0, *cuts.tolist(), stop - start]
        for a, b in zip(edges, edges[1:], strict=False):
            c = int(cand[a, b - a - 1])
            if c >= 0:
                counts[model.type_offset[c] + b - a - index.cls_lbl[c] - 1] += 1
            words += 1
    return counts, words


def _evidence_only_cuts(seg: Segmenter) -> list[np.ndarray]:
    """Self-training's segmentation by the definition: any candidate or single character may be a word, a word
    starting at p > 0 scores evidence(p) − θ₀, nothing else counts."""
    model, index = seg.model, seg.index
    assert model is not None
    rev = model.branching
    out = []
    for start, stop in _doc_spans(index):
        n = stop - start
        fcand = corpus_candidates(index, seg.tree, start, stop, model.width)
        rcand = corpus_candidates(rev.reverse, rev.reverse_tree, start, stop, model.width)
        ev = model.evidence(fcand, rcand, corpus_classes(index, start, stop))
        char_len = char_lengths(np.asarray(index.tokens[start:stop], dtype=np.int64), index.unit)
        runs = _runs(index.decode(index.tokens[start:stop]), index.unit) if model.params.runs else {}
        scores = np.full((n, seg.max_len), -np.inf)
        for p in range(n):
            for length in range(1, min(seg.max_len, n - p) + 1):
                if char_len[p] == 0 or (p + length < n and char_len[p + length] == 0):
                    continue
                if fcand[p, length - 1] >= 0 or length == char_len[p] or runs.get(p) == length:
                    scores[p, length - 1] = ev[p] - model.params.theta0 if p > 0 else 0.0
        out.append(viterbi(scores))
    return out


def _runs(text: str, unit: Unit) -> dict[int, int]:
    """{token offset: tokens} of each maximal run of digits (full stops between two digits included when they take
    at most three tokens: one '.', '．' or '..'), of Latin letters or of Katakana in `text`, by the definition."""
    size = (lambda s: len(s.encode())) if unit is Unit.byte else len
    kinds = ["d" if re.fullmatch("[0-9０-９]", ch) else "l" if re.fullmatch("[A-Za-zé]", ch)
             else "k" if re.fullmatch("[ァ-ヺー]", ch) else "." if ch in ".．" else "" for ch in text]
    for stops in re.finditer(r"[.．]+", text):
        a, b = stops.span()
        inner = 0 < a and b < len(text) and kinds[a - 1] == kinds[b] == "d" and size(stops.group()) <= 3
        kinds[a:b] = ["d" if inner else ""] * (b - a)
    out, at = {}, 0
    for kind, group in itertools.groupby(kinds):
        n = len(list(group))
        if kind:
            out[size(text[:at])] = size(text[at:at + n])
        at += n
    return out


texts = st.lists(st.text(alphabet="ab1é東カ.", min_size=1, max_size=30), min_size=1, max_size=4)


def _unspaced(ch: str) -> bool:
    """A character of a script written without spaces (Han, Hiragana, Katakana, Hangul), by its Unicode name."""
    return unicodedata.name(ch, "").startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL"))


def _pair_cuts(seg: Segmenter, pair: float) -> list[np.ndarray]:
    """The segmentation of every document by the search's own word scores plus `pair` for every word of exactly
    two characters of unspaced scripts, by the definition (model docstring, step 4)."""
    model, index = seg.model, seg.index
    assert model is not None
    out = []
    for start, stop in _doc_spans(index):
        fcand = corpus_candidates(index, seg.tree, start, stop, model.width)
        rcand = corpus_candidates(model.branching.reverse, model.branching.reverse_tree, start, stop, model.width)
        char_len = char_lengths(np.asarray(index.tokens[start:stop], dtype=np.int64), index.unit)
        scores = model.scores(fcand, rcand, corpus_classes(index, start, stop), char_len)
        text = index.decode(index.tokens[start:stop])
        offsets = [len(text[:k].encode()) if index.unit is Unit.byte else k for k in range(len(text) + 1)]
        for k, (a, b) in enumerate(zip(offsets, offsets[2:], strict=False)):
            if b - a <= seg.max_len and _unspaced(text[k]) and _unspaced(text[k + 1]):
                scores[a, b - a - 1] += pair
        out.append(viterbi(scores))
    return out


@settings(max_examples=25, deadline=None)
@given(texts, st.sampled_from([Unit.byte, Unit.char]), st.sampled_from([0.0, 1.5]), st.sampled_from([0.5, 1.0]),
       st.sampled_from([0, 1]), st.sampled_from([0.0, 2.5]))
@example(["1..1"], Unit.byte, 0.0, 0.5, 1, 0.0)  # two ASCII stops between digits: one number (CI once drew it)
@example(["1...1x"], Unit.char, 0.0, 0.5, 1, 0.0)
@example(["1．1"], Unit.byte, 0.0, 0.5, 1, 0.0)
@example(["東カ東ab東カ12", "東カa"], Unit.byte, 0.0, 1.0, 0, 2.5)  # two-character words of six bytes
@example(["1", "東", "11"], Unit.byte, 0.0, 0.5, 1, 0.0)  # Han letters only: `unspaced` defaults (CI could draw it)
def test_each_pass_counts_the_segmentation_it_claims(docs: list[str], unit: Unit, nu: float, mix: float,
                                                     runs: int, pair: float) -> None:
    """Also with runs as candidates (self-training admits them as it admits single characters) and with the
    passes' bonus for two-character words."""
    index = memory_index(docs, unit)
    # the bigram pass (step 5, tested on its own below) is pinned off: a corpus whose letters are all Han gets the
    # `unspaced` defaults, where it is on and changes the counts even with passes = 0
    settings_ = {"window": 3, "theta0": 1.0, "autonomy": nu, "pass_weight": 0.7, "pass_theta": -2.0, "runs": runs,
                 "kappa_run": 3.0, "pass_pair": pair, "pass_bigram": 0.0}
    base = Segmenter(index, Scorer.branching, 6, {**settings_, "passes": 0})
    assert base.model is not None
    # self-training (and passes = 0: what the final segmentation reads) is the evidence-only segmentation
    counts, words = _count(base, _evidence_only_cuts(base))
    assert np.array_equal(base.model.trained[0], counts) and base.model.trained[1] == words
    assert np.array_equal(base.model.counts, counts)
    # one pass: the segmentation by the self-trained model with the passes' λ and θ, counted and interpolated
    by = Segmenter(index, Scorer.branching, 6, {**settings_, "passes": 0, "weight": 0.7, "theta": -2.0})
    found, total = _count(by, _pair_cuts(by, pair))
    one = Segmenter(index, Scorer.branching, 6, {**settings_, "passes": 1, "pass_mix": mix})
    assert one.model is not None
    want = (1 - mix) * counts * total / words + mix * found
    assert np.allclose(one.model.counts, want, rtol=1e-12, atol=0)
    assert np.array_equal(one.model.counts > 0, want > 0)
    with np.errstate(divide="ignore"):
        log_p = np.where(want > 0, np.log(want + 0.1) - np.log(total), -np.inf) + nu * one.model.autonomy
    assert np.allclose(one.model.log_p[want > 0], log_p[want > 0])
    assert one.model.log_p_unknown == pytest.approx(np.log(0.1 / total) + nu * one.model.autonomy_single)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "1", "é", "東", "カ", "한", "。", "\U0001f600", "\U00020000"]), min_size=1,
                max_size=8), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_the_pair_bonus_goes_to_two_character_words_only(chars: list[str], max_len: int, seed: int) -> None:
    """add_pair_bonus against the definition, on byte tokens (characters of one to four bytes): only words of two
    characters of unspaced scripts ('12', 'a東' get nothing)."""
    text = "".join(chars).encode()
    tokens = np.frombuffer(text, dtype=np.uint8).astype(np.int64)
    char_len = char_lengths(tokens, Unit.byte)
    classes = corpus_classes(memory_index(["".join(chars)]), 0, len(text))
    rng = np.random.default_rng(seed)
    scores = rng.normal(0, 1, (len(text), max_len))
    scores[rng.uniform(size=scores.shape) < 0.3] = -np.inf
    want = scores.copy()
    starts = [len("".join(chars[:k]).encode()) for k in range(len(chars) + 1)]
    for k, (a, b) in enumerate(zip(starts, starts[2:], strict=False)):
        if b - a <= max_len and want[a, b - a - 1] > -np.inf and _unspaced(chars[k]) and _unspaced(chars[k + 1]):
            want[a, b - a - 1] += 1.5
    add_pair_bonus(scores, char_len, classes, 1.5)
    assert np.array_equal(scores, want)


def test_set_final_runs_the_passes_again_and_equals_a_fresh_model() -> None:
    rng = np.random.default_rng(5)
    index = memory_index(["".join(rng.choice(WORDS, 40)) for _ in range(6)])
    tuned = Segmenter(index, Scorer.branching, options={"passes": 0})
    assert tuned.model is not None
    plain = tuned.model.counts.copy()
    options = {"weight": 3.0, "theta": -2.0, "passes": 2, "pass_weight": 0.5, "pass_theta": -6.0, "pass_mix": 0.5}
    tuned.model.set_final(3.0, -2.0, passes=2, pass_weight=0.5, pass_theta=-6.0, pass_mix=0.5)
    fresh = Segmenter(index, Scorer.branching, options=options)
    assert fresh.model is not None
    assert tuned.model.params == fresh.model.params
    assert np.array_equal(tuned.model.counts, fresh.model.counts)
    assert not np.array_equal(tuned.model.counts, plain)  # the passes did something
    text = "thecatsatonthematadogran"
    assert tuned.segment(text) == fresh.segment(text)
    tuned.model.set_final(3.0, -2.0, passes=0)
    assert np.array_equal(tuned.model.counts, plain)  # the self-training counts are left as they were


def test_a_pass_moves_a_toy_corpus_toward_its_words() -> None:
    """Documents made of ten words, so the gold segmentation is known: the self-trained model leaves frequent
    neighbours together; re-estimating from a segmentation that cuts more often (λ_p 1, θ_p −16) splits them,
    and word F1 of the corpus's own segmentation rises."""
    rng = np.random.default_rng(11)
    gold = [list(rng.choice(WORDS, 50)) for _ in range(12)]
    index = memory_index(["".join(g) for g in gold])

    def f1(passes: int) -> float:
        seg = Segmenter(index, Scorer.branching, options={"passes": passes, "pass_weight": 1.0, "pass_theta": -16.0,
                                                          "weight": 4.0, "theta": 0.0})
        words = [seg.segment("".join(g)) for g in gold]
        return segmentation_prf([w for g in gold for w in g], [w for ws in words for w in ws])["word"].f1

    before, after = f1(0), f1(1)
    assert after > before


def test_bad_pass_parameters_are_refused() -> None:
    index = memory_index(["abcab"])
    with pytest.raises(InputError, match="passes"):
        Segmenter(index, Scorer.branching, options={"passes": -1})
    with pytest.raises(InputError, match="pass_mix"):
        Segmenter(index, Scorer.branching, options={"pass_mix": 1.5})
    with pytest.raises(InputError, match="pass_bigram"):
        Segmenter(index, Scorer.branching, options={"pass_bigram": -0.5})


# --- the bigram pass ----------------------------------------------------------------------------------------


def _bigram_total(cuts: list[int], n: int, uni: np.ndarray, tid: np.ndarray, start: np.ndarray, weight: float,
                  pairs: tuple[np.ndarray, ...], discount: float, size: int) -> float:
    """The score of one segmentation by the definition (model docstring, step 5), −inf if a word is forbidden."""
    keys, pair_counts, context, types = pairs
    total, before = 0.0, -1
    for a, b in zip([0, *cuts], [*cuts, n], strict=True):
        u = uni[a, b - a - 1] if b - a <= uni.shape[1] else -np.inf
        if u == -np.inf:
            return -np.inf
        w = int(tid[a, b - a - 1])
        if before < 0 or context[before] == 0:
            log_p = u
        else:
            hit = np.flatnonzero(keys == before * size + w)
            c = pair_counts[hit[0]] if len(hit) else 0.0
            log_p = np.log((max(c - discount, 0.0) + discount * types[before] * np.exp(u)) / context[before])
        total += weight * log_p + (start[a] if a > 0 else 0.0)
        before = w
    return float(total)


def test_bigram_counts_of_a_word_sequence() -> None:
    pairs = bigram_counts(np.array([-1, 0, 1, 0, 1, 2, -1, 1, 2]), 3)
    assert pairs[0].tolist() == sorted(pairs[0].tolist())
    assert dict(zip(pairs[0].tolist(), pairs[1].tolist(), strict=True)) == {1: 2.0, 3: 1.0, 5: 2.0}
    assert pairs[2].tolist() == [2.0, 3.0, 0.0] and pairs[3].tolist() == [1.0, 2.0, 0.0]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 7), st.integers(1, 3), st.integers(0, 2**32 - 1), st.sampled_from([0.3, 0.8, 1.0]))
def test_bigram_viterbi_finds_the_best_segmentation(n: int, max_len: int, seed: int, discount: float) -> None:
    """forward_bigram's segmentation scores as well as the best of every segmentation, enumerated."""
    rng = np.random.default_rng(seed)
    size = 5
    uni = np.log(rng.uniform(0.01, 1, (n, max_len)))
    uni[rng.uniform(size=(n, max_len)) < 0.3] = -np.inf
    uni[:, 0] = np.log(rng.uniform(0.01, 1, n))  # every single character allowed
    tid = rng.integers(0, size, (n, max_len))
    start = rng.normal(0, 2, n)
    sequence = rng.integers(-1, size, 15)
    pairs = bigram_counts(sequence, size)
    got = forward_bigram(uni, tid, start, 1.7, *pairs, discount, size).tolist()
    best = max(_bigram_total([k + 1 for k in range(n - 1) if mask[k]], n, uni, tid, start, 1.7, pairs, discount,
                             size) for mask in itertools.product([0, 1], repeat=n - 1))
    assert _bigram_total(got, n, uni, tid, start, 1.7, pairs, discount, size) == pytest.approx(best, abs=1e-9)


@nb.njit(cache=True)
def _bigram_by_end(uni, tid, start, weight, keys, pair_counts, context, types, discount, size):  # type: ignore[no-untyped-def]
    """The bigram search as it was first written (by end position, a binary search of the sorted pair ids and
    exp(P(w)) for every pair of words): forward_bigram must find exactly its cuts, ties and all."""
    n, max_len = uni.shape
    best = np.full((n + 1, max_len), -np.inf)
    back = np.zeros((n + 1, max_len), dtype=np.int64)
    for q in range(1, n + 1):
        for length in range(1, min(q, max_len) + 1):
            p = q - length
            u = uni[p, length - 1]
            if u == -np.inf:
                continue
            if p == 0:
                best[q, length - 1] = weight * u
                continue
            w = tid[p, length - 1]
            for before in range(1, min(p, max_len) + 1):
                b = best[p, before - 1]
                if b == -np.inf:
                    continue
                v = tid[p - before, before - 1]
                log_p = u
                if context[v] != 0:
                    key = v * size + w
                    at = np.searchsorted(keys, key)
                    c = pair_counts[at] if at < len(keys) and keys[at] == key else 0.0
                    log_p = np.log((max(c - discount, 0.0) + discount * types[v] * np.exp(u)) / context[v])
                score = b + weight * log_p + start[p]
                if score > best[q, length - 1]:
                    best[q, length - 1] = score
                    back[q, length - 1] = before
    return _state_cuts(best, back, n, max_len)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 40), st.integers(1, 6), st.integers(0, 2**32 - 1), st.sampled_from([0.3, 0.95, 1.0]),
       st.booleans())
def test_bigram_viterbi_equals_the_search_by_end_position(n: int, max_len: int, seed: int, discount: float,
                                                          ties: bool) -> None:
    """The search by start position with hashed pair counts (viterbi.forward_pairs) finds the very cuts of the
    search it replaced, also where scores tie (few distinct values: whole-number starts, four unigram values)."""
    rng = np.random.default_rng(seed)
    size = 6
    if ties:
        uni = np.log(rng.choice([0.125, 0.25, 0.5, 1.0], (n, max_len)))
        start = rng.integers(-2, 3, n).astype(np.float64)
    else:
        uni = np.log(rng.uniform(0.01, 1, (n, max_len)))
        start = rng.normal(0, 2, n)
    uni[rng.uniform(size=(n, max_len)) < 0.3] = -np.inf
    uni[:, 0] = np.log(0.5) if ties else np.log(rng.uniform(0.01, 1, n))
    tid = rng.integers(0, size, (n, max_len))
    pairs = bigram_counts(rng.integers(-1, size - 1, 60), size)  # id size − 1 never a left context
    want = _bigram_by_end(uni, tid, start, 1.7, *pairs, discount, size)
    assert forward_bigram(uni, tid, start, 1.7, *pairs, discount, size).tolist() == want.tolist()


def test_the_bigram_pass_is_off_by_default_for_spaced_scripts() -> None:
    """pass_bigram = 0 runs no bigram pass, so the `spaced` model is the one of before (its pass counts are checked
    against the search by test_each_pass_counts_the_segmentation_it_claims); the unspaced scripts' tuning chose one."""
    assert DEFAULTS["spaced"].pass_bigram == 0 and DEFAULTS["spaced"].pass_pair == 0
    rng = np.random.default_rng(5)
    index = memory_index(["".join(rng.choice(WORDS, 40)) for _ in range(6)])
    options = {"passes": 1, "pass_weight": 1.0, "pass_theta": -16.0, "weight": 4.0, "theta": 0.0}
    plain = Segmenter(index, Scorer.branching, options=options)
    assert plain.model is not None and plain.model.params.pass_bigram == 0
    bigram = Segmenter(index, Scorer.branching, options={**options, "pass_bigram": 0.8})
    assert bigram.model is not None
    assert not np.array_equal(plain.model.counts, bigram.model.counts)  # the option does something


def test_the_bigram_pass_counts_the_segmentation_it_claims() -> None:
    """Its counts are the words of forward_bigram's segmentation of every document with the final λ, θ, the
    unigram values the passes before it left and the word pairs of the last pass's segmentation."""
    rng = np.random.default_rng(7)
    index = memory_index(["".join(rng.choice(WORDS, 30)) for _ in range(5)])
    options = {"passes": 1, "pass_weight": 1.0, "pass_theta": -16.0, "weight": 4.0, "theta": -1.0}
    one = Segmenter(index, Scorer.branching, options=options)
    m = one.model
    assert m is not None
    size = len(m.counts) + 1
    # the pass's segmentation: the self-trained model's search with λ_p, θ_p; its words' ids in order
    by = Segmenter(index, Scorer.branching, options={**options, "passes": 0, "weight": 1.0, "theta": -16.0})
    sequence: list[int] = []
    tables = []
    for (start, stop), cuts in zip(_doc_spans(index), by.corpus_spans(_doc_spans(index)), strict=True):
        n = stop - start
        fcand = corpus_candidates(index, one.tree, start, stop, m.width)
        tid = np.full((n, one.max_len), size - 1, dtype=np.int64)
        for p in range(n):
            for length in range(1, min(one.max_len, n - p) + 1):
                c = int(fcand[p, length - 1])
                if c >= 0:
                    tid[p, length - 1] = m.type_offset[c] + length - index.cls_lbl[c] - 1
        sequence += [-1, *(int(tid[a, b - a - 1]) for a, b in zip([0, *cuts.tolist()], [*cuts.tolist(), n],
                                                                   strict=True))]
        rcand = corpus_candidates(m.branching.reverse, m.branching.reverse_tree, start, stop, m.width)
        ev = m.evidence(fcand, rcand, corpus_classes(index, start, stop))
        char_len = char_lengths(np.asarray(index.tokens[start:stop], dtype=np.int64), index.unit)
        uni = WordScores(m.log_p, m.log_p_unknown, 1.0, 0.0, index.cls_lbl, m.type_offset, 1).table(
            fcand, np.zeros(n + 1), char_len, one.max_len)
        tables.append((uni, tid, ev[:n] + 1.0))  # start[p] = evidence(p) − θ
    pairs = bigram_counts(np.array(sequence, dtype=np.int64), size)
    want = np.zeros(len(m.counts))
    words = 0
    for uni, tid, start_score in tables:
        n = len(uni)
        cuts = forward_bigram(uni, tid, start_score, 4.0, *pairs, 0.8, size).tolist()
        for a, b in zip([0, *cuts], [*cuts, n], strict=True):
            if tid[a, b - a - 1] < size - 1:
                want[tid[a, b - a - 1]] += 1
            words += 1
    bigram = Segmenter(index, Scorer.branching, options={**options, "pass_bigram": 0.8})
    assert bigram.model is not None and bigram.model.reestimated is not None
    assert np.array_equal(bigram.model.counts, want) and bigram.model.reestimated[1] == words
    assert not np.array_equal(want, m.counts)
