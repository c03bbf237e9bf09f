"""Word breaking with no dictionary (the slides' procedure): candidates from the index, scores, Viterbi search."""

from __future__ import annotations

import re
from collections.abc import Mapping

import numba as nb
import numpy as np

from termx.errors import InputError
from termx.loaded import LoadedIndex
from termx.progress import Progress
from termx.units import Unit
from termx.wordbreak.candidates import (
    ABSENT,
    TRIVIAL,
    ClassTree,
    char_lengths,
    class_tree,
    corpus_candidates,
    text_candidates,
    text_ids,
)
from termx.wordbreak.entropy import corpus_classes, text_classes
from termx.wordbreak.model import BranchingModel, BranchingParams
from termx.wordbreak.scoring import DEFAULT_BETA, Scorer, ScoreTable, score_table
from termx.wordbreak.viterbi import viterbi

DEFAULT_MAX_LEN = 20
_SPACE = re.compile(r"\s+")


def scorer_params(scorer: Scorer, options: Mapping[str, float]) -> dict[str, float]:
    """A scorer's parameters: its defaults overridden by `options` (InputError names the valid keys)."""
    if scorer is Scorer.branching:
        params: dict[str, float] = BranchingParams().as_dict()
    else:
        params = {"beta": DEFAULT_BETA[scorer]}
    for key, value in options.items():
        if key not in params:
            raise InputError(f"the {scorer.value} scorer has no parameter {key!r}", "it takes " + ", ".join(params))
        params[key] = int(value) if key == "window" else float(value)
    if params.get("window", 1) < 1:
        raise InputError("window must be at least 1")
    return params


class Segmenter:
    """Breaks text into words using one corpus's statistics and one scorer."""

    def __init__(self, index: LoadedIndex, scorer: Scorer = Scorer.branching, max_len: int = DEFAULT_MAX_LEN,
                 options: Mapping[str, float] | None = None, progress: Progress | None = None) -> None:
        if index.unit is Unit.word:
            raise InputError(f"corpus {index.corpus.name!r} is indexed by words", "word breaking needs --unit "
                             "byte or char")
        if max_len < 1:
            raise InputError("--max-len must be at least 1")
        self.index = index
        self.scorer = scorer
        self.max_len = max(max_len, 4) if index.unit is Unit.byte else max_len  # a whole UTF-8 character fits
        self._tree: ClassTree | None = None
        self.model: BranchingModel | None = None
        self.table: ScoreTable | None = None
        self.params = scorer_params(scorer, options or {})
        if scorer is Scorer.branching:
            params = BranchingParams(**self.params)  # type: ignore[arg-type]  # window is an int (scorer_params)
            self.model = BranchingModel(index, self.tree, self.max_len, params, progress)
        else:
            self.table = score_table(index, scorer, self.params["beta"])

    @property
    def tree(self) -> ClassTree:
        """The class tree, built on first use (only text inside the corpus and the branching scorer need it)."""
        if self._tree is None:
            self._tree = class_tree(self.index)
        return self._tree

    @property
    def width(self) -> int:
        """Candidate lengths looked up per position (the branching scorer also reads short n-grams' entropy)."""
        return self.model.width if self.model is not None else self.max_len

    def corpus_cuts(self, start: int, stop: int) -> np.ndarray:
        """Word boundaries (offsets from `start`) of the corpus tokens start..stop-1, which lie inside one
        document, with candidates read off the class tree."""
        ids = np.asarray(self.index.tokens[start:stop], dtype=np.int64)
        fcand = corpus_candidates(self.index, self.tree, start, stop, self.width)
        if self.model is None:
            return viterbi(self._table_scores(fcand, ids))
        d = int(np.searchsorted(self.index.doc_start, start, side="right") - 1)
        begin = int(self.index.doc_start[d])
        end = begin + int(self.index.doc_len[d])
        rev = self.model.branching  # the reversed span of the reversed document
        rcand = corpus_candidates(rev.reverse, rev.reverse_tree, begin + end - stop, begin + end - start,
                                  self.width)
        classes = corpus_classes(self.index, start, stop)
        return viterbi(self.model.scores(fcand, rcand, classes, char_lengths(ids, self.index.unit)))

    def text_cuts(self, ids: np.ndarray, text: str) -> np.ndarray:
        """Word boundaries of any text (its token ids given) with candidates from suffix-array search."""
        fcand = text_candidates(self.index, ids, self.width)
        if self.model is None:
            return viterbi(self._table_scores(fcand, ids))
        rev = self.model.branching
        rcand = text_candidates(rev.reverse, ids[::-1].copy(), self.width)
        classes = text_classes(text, self.index.unit)
        return viterbi(self.model.scores(fcand, rcand, classes, char_lengths(ids, self.index.unit)))

    def _table_scores(self, cand: np.ndarray, ids: np.ndarray) -> np.ndarray:
        assert self.table is not None
        out = np.empty((cand.shape[0], self.max_len), dtype=np.float64)
        _gather(cand, self.table.cls, self.table.single, char_lengths(ids, self.index.unit), out)
        return out

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
        cuts = self.text_cuts(ids, chunk)
        if self.index.unit is Unit.byte:
            data = chunk.encode("utf-8")
            edges = [0, *cuts.tolist(), len(data)]
            return [data[a:b].decode("utf-8") for a, b in zip(edges, edges[1:], strict=False)]
        edges = [0, *cuts.tolist(), len(chunk)]
        return [chunk[a:b] for a, b in zip(edges, edges[1:], strict=False)]


@nb.njit(cache=True)
def _gather(cand, cls, single, char_len, out):  # type: ignore[no-untyped-def]
    """Class scores for candidates seen twice or more; one whole character is always a possible word."""
    n, max_len = out.shape
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
