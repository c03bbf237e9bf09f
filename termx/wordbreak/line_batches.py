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
        """Each line's words, given the flat cuts of every chunk (offsets inside it) and the count per chunk: the
        joined text with a space at every cut and between chunks, a line feed between lines (chunks hold no white
        space), decoded once and split (no Python per word)."""
        if not len(self.starts):
            return [[] for _ in self.chunks]
        byte = self.unit is Unit.byte
        encoding = "utf-8" if byte else "utf-32-le"
        text = np.frombuffer(self.joined.encode(encoding), dtype=np.uint8 if byte else np.uint32).copy()
        per_line = np.array([len(line) for line in self.chunks], dtype=np.int64)
        opens_line = np.zeros(len(self.starts), dtype=bool)
        opens_line[(np.cumsum(per_line) - per_line)[per_line > 0]] = True
        text[self.stops[:-1]] = np.where(opens_line[1:], ord("\n"), ord(" "))
        inner = cuts[:int(counts.sum())] + np.repeat(self.starts, counts)
        lines = iter(np.insert(text, inner, ord(" ")).tobytes().decode(encoding).split("\n"))
        return [next(lines).split(" ") if n else [] for n in per_line.tolist()]


def segment_record(number: int, line: str, words: Sequence[str]) -> dict[str, object]:
    """The JSON record of one segmented line (`termx segment --format json`, the Python API, HTTP /segment):
    its 1-based number, the text, the words and the boundary offsets (characters from the line's start,
    white space excluded)."""
    ends = np.cumsum([len(w) for w in words])[:-1].tolist() if words else []
    return {"line": number, "text": line, "words": list(words), "boundaries": ends}
