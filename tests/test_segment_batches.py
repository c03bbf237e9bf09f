"""Batch.words, CharTable and append_best_within, the faster steps of segmenting new text with a stored model,
against the code they replace."""

from __future__ import annotations

import random

import numpy as np
import pytest

from termx.errors import InputError
from termx.index.units import Unit
from termx.wordbreak.char_table import CharTable
from termx.wordbreak.entropy import text_classes
from termx.wordbreak.line_batches import Batch
from termx.wordbreak.viterbi import append_best, append_best_within, best_path, combine

ALPHABET = "ab1.。中文字日本語カナひら😀𠀀\0\x85é "
"""Han, Kana, digits, a full stop, beyond the BMP (an emoji, a plane-2 Han), NUL, NEL (white space) and Latin."""


def _sliced_words(batch: Batch, cuts: np.ndarray, counts: np.ndarray) -> list[list[str]]:
    """Batch.words as it was: each chunk sliced between its cuts, one word at a time."""
    data = batch.joined.encode("utf-8") if batch.unit is Unit.byte else batch.joined
    found = iter(np.split(cuts[:int(counts.sum())], np.cumsum(counts)[:-1]))
    out, k = [], 0
    for line in batch.chunks:
        words: list[str] = []
        for _ in line:
            edges = [0, *next(found).tolist(), int(batch.stops[k] - batch.starts[k])]
            piece = data[int(batch.starts[k]):int(batch.stops[k])]
            words.extend(piece[a:b].decode("utf-8") if isinstance(piece, bytes) else piece[a:b]
                         for a, b in zip(edges, edges[1:], strict=False))
            k += 1
        out.append(words)
    return out


def _random_cuts(batch: Batch, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """Ascending cuts inside each chunk, never inside a UTF-8 character, and spare room after the last."""
    cuts: list[int] = []
    counts = []
    for lo, hi in zip(batch.starts.tolist(), batch.stops.tolist(), strict=True):
        inside = range(1, hi - lo)
        if batch.unit is Unit.byte:
            raw = batch.joined.encode("utf-8")[lo:hi]
            inside = range(1, hi - lo) if raw.isascii() else [p for p in inside if raw[p] & 0xC0 != 0x80]
        chosen = sorted(rng.sample(list(inside), rng.randint(0, len(inside)))) if len(inside) else []
        cuts.extend(chosen)
        counts.append(len(chosen))
    return np.array([*cuts, 0, 0], dtype=np.int64), np.array(counts, dtype=np.int64)


@pytest.mark.parametrize("unit", [Unit.char, Unit.byte])
def test_words_equal_slicing(unit: Unit) -> None:
    rng = random.Random(3)
    for _ in range(200):
        lines = ["".join(rng.choice(ALPHABET + "  \t") for _ in range(rng.randint(0, 12)))
                 for _ in range(rng.randint(0, 6))]
        batch = Batch.of(lines, unit)
        cuts, counts = _random_cuts(batch, rng)
        assert batch.words(cuts, counts) == _sliced_words(batch, cuts, counts)
    assert Batch.of([], unit).words(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)) == []
    assert Batch.of(["", " "], unit).words(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)) == [[], []]


def _searched_ids(vocab: np.ndarray, cps: np.ndarray) -> np.ndarray:
    """Token ids as CompactModel.ids found them: a binary search of the sorted vocabulary."""
    order = np.argsort(vocab, kind="stable")
    ordered, ids = vocab[order], (order + 1).astype(np.int64)
    if not len(ordered):
        return np.full(len(cps), -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(ordered, cps), len(ordered) - 1)
    return np.where(ordered[at] == cps, ids[at], -1)


def test_char_table_equals_search_and_text_classes() -> None:
    rng = random.Random(5)
    for size in (0, 1, 7):
        vocab = np.array([ord(ch) for ch in rng.sample(ALPHABET, size)], dtype=np.int64)
        table = CharTable(vocab)
        for _ in range(20):  # the class table fills in as code points are met: later calls read it
            text = "".join(rng.choice(ALPHABET + "x\u3000") for _ in range(rng.randint(0, 30)))
            cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
            assert table.ids(cps).tolist() == _searched_ids(vocab, cps).tolist()
            assert table.classes(cps).tolist() == text_classes(text, Unit.char).tolist()
    twice = np.array([ord("a"), ord("b"), ord("a"), ord("😀"), ord("😀")], dtype=np.int64)
    cps = np.array([ord("a"), ord("😀")], dtype=np.int64)
    assert CharTable(twice).ids(cps).tolist() == _searched_ids(twice, cps).tolist()


def test_search_within_depth_equals_combine_then_search() -> None:
    """append_best_within (the stored model's search) finds the cuts of combine() then append_best(), ties (small
    integer values) and positions inside a UTF-8 character (char_len 0) included."""
    rng = np.random.default_rng(11)
    compared = 0
    for _ in range(300):
        n, max_len = int(rng.integers(1, 30)), int(rng.integers(1, 8))
        values = rng.integers(-3, 1, size=(n, max_len)).astype(np.float64)
        depth = rng.integers(0, max_len + 2, size=n)
        values[np.arange(max_len)[None, :] >= depth[:, None]] = -np.inf  # no value past the depth
        values[rng.random((n, max_len)) < 0.3] = -np.inf
        char_len = np.where(rng.random(n) < 0.2, 0, rng.integers(1, 3, size=n)).astype(np.int64)
        char_len[0] = 1
        runs = np.where(rng.random(n) < 0.3, rng.integers(1, max_len + 3, size=n), 0).astype(np.int64)
        ev = rng.integers(-2, 3, size=n + 1).astype(np.float64)
        unknown, weight, theta = float(rng.integers(-4, 0)), float(rng.integers(1, 3)), float(rng.integers(-2, 2))
        scores = values.copy()
        combine(scores, ev, unknown, weight, theta, char_len, runs)
        try:
            best_path(scores)
        except InputError:  # no segmentation at all: append_best would not end
            continue
        compared += 1
        expected = (np.zeros(n, dtype=np.int64), np.zeros(1, dtype=np.int64))
        got = (np.zeros(n, dtype=np.int64), np.zeros(1, dtype=np.int64))
        assert append_best(scores, *expected, 0, 0) == append_best_within(values, depth, ev, unknown, weight, theta,
                                                                          char_len, runs, *got, 0, 0)
        assert expected[0].tolist() == got[0].tolist() and expected[1].tolist() == got[1].tolist()
    assert compared > 150
