"""Batches of lines for the segmenters: their white-space-free chunks joined by NUL (which matches no candidate),
searched and scored in a few calls, and the words cut back out of the joined text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from termx.index.units import Unit

_SPACE = re.compile(r"\s+")


@dataclass
class Batch:
    """Lines as one text: chunk k is tokens starts[k]..stops[k]-1 of `joined` (in the corpus's unit)."""

    unit: Unit
    chunks: list[list[str]]  # each line's chunks
    joined: str
    starts: np.ndarray
    stops: np.ndarray

    @classmethod
    def of(cls, lines: Sequence[str], unit: Unit) -> Batch:
        """White space in a line is kept as a boundary; the chunks between it are segmented."""
        chunks = [[c for c in _SPACE.split(line) if c] for line in lines]
        flat = [c for line in chunks for c in line]
        byte = unit is Unit.byte
        sizes = np.array([len(c.encode("utf-8")) if byte else len(c) for c in flat], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(sizes + 1)[:-1]]).astype(np.int64)[:len(sizes)]
        return cls(unit, chunks, "\0".join(flat), starts, starts + sizes)

    def words(self, cuts: np.ndarray, counts: np.ndarray) -> list[list[str]]:
        """Each line's words, given the flat cuts of every chunk (offsets inside it) and the count per chunk."""
        data = self.joined.encode("utf-8") if self.unit is Unit.byte else self.joined
        found = iter(np.split(cuts[:int(counts.sum())], np.cumsum(counts)[:-1]))
        out = []
        k = 0
        for line in self.chunks:
            words: list[str] = []
            for _ in line:
                edges = [0, *next(found).tolist(), int(self.stops[k] - self.starts[k])]
                piece = data[int(self.starts[k]):int(self.stops[k])]
                words.extend(piece[a:b].decode("utf-8") if isinstance(piece, bytes) else piece[a:b]
                             for a, b in zip(edges, edges[1:], strict=False))
                k += 1
            out.append(words)
        return out


def segment_record(number: int, line: str, words: Sequence[str]) -> dict[str, object]:
    """The JSON record of one segmented line (`termx segment --format json`, the Python API, HTTP /segment):
    its 1-based number, the text, the words and the boundary offsets (characters from the line's start,
    white space excluded)."""
    ends = np.cumsum([len(w) for w in words])[:-1].tolist() if words else []
    return {"line": number, "text": line, "words": list(words), "boundaries": ends}
