"""Batch.words and CharTable, the vectorised steps of segmenting new text, against the per-word code they replace."""

from __future__ import annotations

import random

import numpy as np
import pytest

from termx.index.units import Unit
from termx.wordbreak.char_table import CharTable
from termx.wordbreak.entropy import text_classes
from termx.wordbreak.line_batches import Batch

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
