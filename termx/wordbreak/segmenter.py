"""Word breaking with no dictionary (the slides' procedure): candidates from the index, scores, Viterbi search."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from termx.defaults import DEFAULT_MAX_LEN
from termx.errors import InputError
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.limits import check_scorer_params
from termx.progress import Progress
from termx.wordbreak.candidates import (
    ClassTree,
    char_lengths,
    class_tree,
    corpus_candidates,
    text_candidates,
    text_ids,
)
from termx.wordbreak.corpus_passes import CHUNK_TOKENS
from termx.wordbreak.entropy import corpus_classes, script_kind, text_classes
from termx.wordbreak.line_batches import Batch
from termx.wordbreak.model import DEFAULTS, BranchingModel, BranchingParams
from termx.wordbreak.scoring import DEFAULT_BETA, Scorer, ScoreTable, score_table
from termx.wordbreak.viterbi import WordScores, viterbi


@dataclass(frozen=True)
class ChunkInputs:
    """Candidates (forward; reversed and character classes for the branching scorer) and character lengths of a
    chunk of corpus tokens."""

    fcand: np.ndarray
    rcand: np.ndarray | None
    classes: np.ndarray | None
    char_len: np.ndarray


def scorer_params(scorer: Scorer, options: Mapping[str, float], script: str = "spaced") -> dict[str, float]:
    """A scorer's parameters: its defaults (for the kind of `script`, a key of DEFAULTS, where they differ)
    overridden by `options` (InputError names the valid keys)."""
    if scorer is Scorer.words:
        from termx.wordbreak.word_model import word_params

        return word_params(options)
    if scorer is Scorer.branching:
        params: dict[str, float] = DEFAULTS[script].as_dict()
    else:
        params = {"beta": DEFAULT_BETA[scorer]}
    for key in options:
        if key not in params:
            raise InputError(f"the {scorer.value} scorer has no parameter {key!r}", "it takes " + ", ".join(params))
    params.update(check_scorer_params(options))  # finite, in range, whole numbers where counted (termx.limits)
    return params


class Segmenter:
    """Breaks text into words using one corpus's statistics and one scorer."""

    def __init__(self, index: LoadedIndex, scorer: Scorer = Scorer.branching, max_len: int = DEFAULT_MAX_LEN,
                 options: Mapping[str, float] | None = None, progress: Progress | None = None) -> None:
        if index.unit is Unit.word:
            raise InputError(f"corpus {index.corpus.name!r} is indexed by words", "word breaking needs `unit` "
                             "byte or char", ("unit",))
        if max_len < 1:
            raise InputError("`max_len` must be at least 1", params=("max_len",))
        if scorer is Scorer.words:
            raise InputError("the words scorer is a model of new text, not a scorer of corpus text",
                             "use termx.wordbreak.word_store.word_model", ("scorer",))
        self.index = index
        self.scorer = scorer
        self.max_len = max(max_len, 4) if index.unit is Unit.byte else max_len  # a whole UTF-8 character fits
        self._tree: ClassTree | None = None
        self.model: BranchingModel | None = None
        self.table: ScoreTable | None = None
        self.script = script_kind(index) if scorer is Scorer.branching else "spaced"
        self.params = scorer_params(scorer, options or {}, self.script)
        if scorer is Scorer.branching:
            params = BranchingParams(**self.params)  # type: ignore[arg-type]  # window, passes are ints (scorer_params)
            self.model = BranchingModel(index, self.tree, self.max_len, params, progress)
            self.words = self.model.words
        else:
            self.table = score_table(index, scorer, self.params["beta"])
            self.words = WordScores(self.table.cls, self.table.single, 1.0, 0.0, index.cls_lbl,
                                    np.arange(len(self.table.cls), dtype=np.int64), 0)

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

    def corpus_spans(self, spans: Sequence[tuple[int, int]], memo: dict[tuple[int, int], ChunkInputs] | None = None
                     ) -> list[np.ndarray]:
        """Word boundaries (offsets from each span's start) of corpus token spans (start, stop), each inside one
        document, with candidates read off the class tree; batched by runs of adjacent whole documents so that
        candidate look-up and search run in few calls and never cover documents without spans. `memo`, kept by
        the caller across calls on this segmenter (a parameter search), keeps each chunk's candidates: no
        parameter changes them."""
        index = self.index
        docs = np.searchsorted(index.doc_start, [s for s, _ in spans], side="right") - 1
        out: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * len(spans)
        order = np.argsort(docs, kind="stable")
        k = 0
        while k < len(order):
            first = int(docs[order[k]])
            lo = int(index.doc_start[first])
            e = k
            # a run of adjacent documents: candidates are looked up for every token of the chunk
            while e < len(order) and (e == k or (docs[order[e]] <= docs[order[e - 1]] + 1 and int(
                    index.doc_start[docs[order[e]]] + index.doc_len[docs[order[e]]]) - lo <= CHUNK_TOKENS)):
                e += 1
            group = order[k:e]
            last = int(docs[group[-1]])
            hi = int(index.doc_start[last] + index.doc_len[last])
            inputs = memo.get((lo, hi)) if memo is not None else None
            if inputs is None:
                inputs = self._chunk_inputs(lo, hi)
                if memo is not None:
                    memo[(lo, hi)] = inputs
            for j, cuts in zip(group, self._chunk_spans(lo, inputs, [spans[j] for j in group], docs[group]),
                               strict=True):
                out[j] = cuts
            k = e
        return out

    def _chunk_inputs(self, lo: int, hi: int) -> ChunkInputs:
        """What segmenting spans inside corpus tokens lo..hi-1 reads besides the parameters."""
        index = self.index
        char_len = char_lengths(np.asarray(index.tokens[lo:hi], dtype=np.int64), index.unit)
        fcand = corpus_candidates(index, self.tree, lo, hi, self.width)
        if self.model is None:
            return ChunkInputs(fcand, None, None, char_len)
        rev = self.model.branching
        return ChunkInputs(fcand, corpus_candidates(rev.reverse, rev.reverse_tree, lo, hi, self.width),
                           corpus_classes(index, lo, hi), char_len)

    def _chunk_spans(self, lo: int, inputs: ChunkInputs, spans: list[tuple[int, int]], docs: np.ndarray
                     ) -> list[np.ndarray]:
        """Segment spans lying in the whole documents of a chunk that starts at token lo."""
        index = self.index
        fcand, char_len = inputs.fcand, inputs.char_len
        starts = np.array([s - lo for s, _ in spans], dtype=np.int64)
        stops = np.array([e - lo for _, e in spans], dtype=np.int64)
        if self.model is None or inputs.rcand is None or inputs.classes is None:
            cuts, counts = self.words.segment_spans(fcand, starts, stops, char_len, self.max_len)
        else:
            # a span's reversal lies in the reversed document at the same place
            ends = (index.doc_start[docs] + index.doc_len[docs]).astype(np.int64)
            rstarts = index.doc_start[docs].astype(np.int64) + ends - (stops + lo) - lo
            cuts, counts = self.model.segment_spans(fcand, inputs.rcand, starts, stops, rstarts, inputs.classes,
                                                    char_len)
        return np.split(cuts[:int(counts.sum())], np.cumsum(counts)[:-1])

    def text_cuts(self, ids: np.ndarray, text: str) -> np.ndarray:
        """Word boundaries of any text (its token ids given) with candidates from suffix-array search."""
        fcand = text_candidates(self.index, ids, self.width)
        if self.model is None:
            return viterbi(self.words.table(fcand, np.zeros(len(ids) + 1), char_lengths(ids, self.index.unit),
                                            self.max_len))
        rev = self.model.branching
        rcand = text_candidates(rev.reverse, ids[::-1].copy(), self.width)
        classes = text_classes(text, self.index.unit)
        return viterbi(self.model.scores(fcand, rcand, classes, char_lengths(ids, self.index.unit)))

    def segment(self, text: str) -> list[str]:
        """The words of `text`; white space in it is kept as a boundary, so joining the words gives the text
        without its white space back."""
        return self.segment_lines([text])[0]

    def segment_lines(self, lines: Sequence[str]) -> list[list[str]]:
        """segment() of many lines in one batch (termx.wordbreak.line_batches)."""
        batch = Batch.of(lines, self.index.unit)
        ids = text_ids(self.index, batch.joined)
        starts, stops = batch.starts, batch.stops
        char_len = char_lengths(ids, self.index.unit)
        fcand = text_candidates(self.index, ids, self.width)
        if self.model is None:
            cuts, counts = self.words.segment_spans(fcand, starts, stops, char_len, self.max_len)
        else:
            rcand = text_candidates(self.model.branching.reverse, ids[::-1].copy(), self.width)
            cuts, counts = self.model.segment_spans(fcand, rcand, starts, stops, len(ids) - stops,
                                                    text_classes(batch.joined, self.index.unit), char_len)
        return batch.words(cuts, counts)
