"""The score the branching model's Viterbi search gave each word of a segmentation, and the other words it could
have chosen at the same place (what the explorer shows on hover; docs/design.md, "Word breaking")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

import numpy as np

from termx.index.units import Unit
from termx.wordbreak.line_batches import Batch
from termx.wordbreak.viterbi import best_path


class Candidate(TypedDict):
    """A word the search could have chosen at a place, with its score."""

    word: str
    score: float


class WordScore(TypedDict):
    """One chosen word: its score in the search (weight · log P(word) + boundary), the boundary term in it
    (evidence − θ at the word's start; 0 at the start of a chunk) and the best `others` words starting there."""

    word: str
    score: float
    boundary: float
    others: list[Candidate]


def scored_words(batch: Batch, tables: Sequence[tuple[np.ndarray, np.ndarray]], theta: float, others: int
                 ) -> list[tuple[list[WordScore], float]]:
    """Each line's words with their scores, and the line's total (the largest sum of word scores the search
    found), from the per-chunk scores and evidence of CompactModel.chunk_scores()."""
    data: bytes | str = batch.joined.encode("utf-8") if batch.unit is Unit.byte else batch.joined
    out = []
    k = 0
    for line in batch.chunks:
        words: list[WordScore] = []
        total = 0.0
        for _ in line:
            scores, ev = tables[k]
            piece = data[int(batch.starts[k]):int(batch.stops[k])]
            cuts, best = best_path(scores)
            total += best
            edges = [0, *cuts.tolist(), len(piece)]
            for a, b in zip(edges, edges[1:], strict=False):
                row = scores[a]
                rivals = [n for n in np.argsort(-row, kind="stable") if np.isfinite(row[n]) and n != b - a - 1]
                words.append({"word": _text(piece, a, b), "score": float(row[b - a - 1]),
                              "boundary": float(ev[a] - theta) if a > 0 else 0.0,
                              "others": [{"word": _text(piece, a, a + int(n) + 1), "score": float(row[n])}
                                         for n in rivals[:others]]})
            k += 1
        out.append((words, total))
    return out


def _text(piece: bytes | str, a: int, b: int) -> str:
    """Tokens a..b-1 of a chunk as text."""
    return piece[a:b].decode("utf-8") if isinstance(piece, bytes) else piece[a:b]
