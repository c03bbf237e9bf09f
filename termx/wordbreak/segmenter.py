"""Word breaking with no dictionary (the slides' procedure): candidates from the index, scores, Viterbi search."""

from __future__ import annotations

import re

import numba as nb
import numpy as np

from termx.errors import InputError
from termx.loaded import LoadedIndex
from termx.units import Unit
from termx.wordbreak.candidates import (
    ABSENT,
    TRIVIAL,
    ClassTree,
    class_tree,
    corpus_candidates,
    text_candidates,
    text_ids,
)
from termx.wordbreak.scoring import DEFAULT_BETA, Scorer, ScoreTable, score_table
from termx.wordbreak.viterbi import viterbi

DEFAULT_MAX_LEN = 20
_SPACE = re.compile(r"\s+")


class Segmenter:
    """Breaks text into words using one corpus's statistics and one scorer."""

    def __init__(self, index: LoadedIndex, scorer: Scorer = Scorer.adaptation, max_len: int = DEFAULT_MAX_LEN,
                 beta: float | None = None) -> None:
        if index.unit is Unit.word:
            raise InputError(f"corpus {index.corpus.name!r} is indexed by words", "word breaking needs --unit "
                             "byte or char")
        if max_len < 1:
            raise InputError("--max-len must be at least 1")
        self.index = index
        self.scorer = scorer
        self.max_len = max(max_len, 4) if index.unit is Unit.byte else max_len  # a whole UTF-8 character fits
        self.beta = DEFAULT_BETA[scorer] if beta is None else beta
        self.table: ScoreTable = score_table(index, scorer, self.beta)
        self._tree: ClassTree | None = None

    @property
    def tree(self) -> ClassTree:
        """The class tree, built on first use (only text inside the corpus needs it)."""
        if self._tree is None:
            self._tree = class_tree(self.index)
        return self._tree

    def scores(self, cand: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """Word scores (n, max_len) of candidates `cand` of the tokens `ids`; -inf where no word may go."""
        out = np.empty(cand.shape, dtype=np.float64)
        _gather(cand, self.table.cls, self.table.single, _char_starts(ids, self.index.unit), out)
        return out

    def corpus_cuts(self, start: int, stop: int) -> np.ndarray:
        """Word boundaries (offsets from `start`) of the corpus tokens start..stop-1, which lie inside one
        document, with candidates read off the class tree."""
        cand = corpus_candidates(self.index, self.tree, start, stop, self.max_len)
        return viterbi(self.scores(cand, np.asarray(self.index.tokens[start:stop], dtype=np.int64)))

    def text_cuts(self, ids: np.ndarray) -> np.ndarray:
        """Token offsets of the word boundaries of any token sequence (suffix-array candidates)."""
        return viterbi(self.scores(text_candidates(self.index, ids, self.max_len), ids))

    def segment(self, text: str) -> list[str]:
        """The words of `text`; white space in it is kept as a boundary, so joining the words gives the text
        without its white space back."""
        words: list[str] = []
        for chunk in _SPACE.split(text):
            if chunk:
                words.extend(self._segment_chunk(chunk))
        return words

    def _segment_chunk(self, chunk: str) -> list[str]:
        ids = text_ids(self.index, chunk)
        cuts = self.text_cuts(ids)
        if self.index.unit is Unit.byte:
            data = chunk.encode("utf-8")
            edges = [0, *cuts.tolist(), len(data)]
            return [data[a:b].decode("utf-8") for a, b in zip(edges, edges[1:], strict=False)]
        edges = [0, *cuts.tolist(), len(chunk)]
        return [chunk[a:b] for a, b in zip(edges, edges[1:], strict=False)]


def _char_starts(ids: np.ndarray, unit: Unit) -> np.ndarray:
    """Length in tokens of the character starting at each token, 0 inside a character (UTF-8 continuation)."""
    if unit is not Unit.byte:
        return np.ones(len(ids), dtype=np.int64)
    out = np.zeros(len(ids), dtype=np.int64)
    _utf8_lengths(ids, out)
    return out


@nb.njit(cache=True)
def _utf8_lengths(ids, out):  # type: ignore[no-untyped-def]
    for p in range(len(ids)):
        b = ids[p]
        if b & 0xC0 == 0x80:
            continue
        n = 1 if b < 0x80 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
        out[p] = min(n, len(ids) - p)


@nb.njit(cache=True)
def _gather(cand, cls, single, char_len, out):  # type: ignore[no-untyped-def]
    """Class scores for candidates seen twice or more; one whole character is always a possible word."""
    n, max_len = cand.shape
    for p in range(n):
        for length in range(1, max_len + 1):
            out[p, length - 1] = -np.inf
            if char_len[p] == 0 or (p + length < n and char_len[p + length] == 0):
                continue
            c = cand[p, length - 1]
            if c >= 0:
                out[p, length - 1] = cls[c]
            elif length == char_len[p] and (c == TRIVIAL or c == ABSENT):
                out[p, length - 1] = single
