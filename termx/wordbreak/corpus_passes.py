"""The passes of training that segment the whole corpus and count its words (termx.wordbreak.model, steps 1, 4, 5).

Self-training, each re-estimation pass and the bigram pass differ only in the word values they score with, the
bigram context, the two-character bonus and the bound suffixes attached before counting: one `CorpusPasses`
holds what they all read (the index, both class trees, the evidence tables, the (class, length) numbering of
words), and `count_words` runs one of them over every chunk of whole documents (docs/segment.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

import numba as nb
import numpy as np

from termx.index.loaded_index import LoadedIndex
from termx.progress import Progress
from termx.wordbreak.candidates import ClassTree, char_lengths, corpus_candidates
from termx.wordbreak.entropy import (
    UNSPACED,
    Branching,
    EvidenceTables,
    corpus_classes,
    effective_classes,
    span_evidence,
)
from termx.wordbreak.viterbi import _cuts, _forward, _word_scores, evidence_offsets, forward_pairs, pair_table

CHUNK_TOKENS = 1 << 20
PROGRESS_STEPS = 64  # training passes advance their bar about this often (chunks of at least MIN_CHUNK_TOKENS)
MIN_CHUNK_TOKENS = 1 << 14
KEEP_TOKENS = CHUNK_TOKENS
"""A corpus of at most this many tokens keeps every chunk's pass inputs (ChunkInputs) from one pass to the next:
about as much memory as one chunk of a larger corpus takes while it is counted."""


class Counts(NamedTuple):
    """The words of one segmentation of the corpus: their count per word id (offset[c] + L − lbl[c] − 1 for a word
    of L tokens whose class is c), their number, and their ids in order (−1 before each document, the last id
    for a word that is no class)."""

    counts: np.ndarray
    words: int
    sequence: np.ndarray


class Bigram(NamedTuple):
    """The word pairs of an earlier segmentation, as the bigram pass scores with them (bigram_counts; the pair
    counts also in a hash table, viterbi.pair_table), and the discount d; d = 0: no context (every pass but the
    bigram one)."""

    discount: float
    keys: np.ndarray
    pair_counts: np.ndarray
    context: np.ndarray
    types: np.ndarray
    table: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, sequence: np.ndarray | None, size: int, discount: float) -> Bigram:
        """The context of the segmentation `sequence` (word ids below `size`), or none (d = 0)."""
        if discount > 0 and sequence is not None:
            keys, pair_counts, context, types = bigram_counts(sequence, size)
            return cls(discount, keys, pair_counts, context, types, *pair_table(keys, pair_counts))
        empty = np.zeros(0, dtype=np.int64)
        return cls(0.0, empty, np.zeros(0), np.zeros(0), np.zeros(0), *pair_table(empty, np.zeros(0)))


class ChunkInputs(NamedTuple):
    """What a pass reads of a chunk of whole documents besides the word values, the same in every pass: forward
    candidates, character classes and lengths, and each document's boundary evidence and run lengths (k-th
    document at ev_lo[k]: viterbi.evidence_offsets)."""

    fcand: np.ndarray
    classes: np.ndarray
    char_len: np.ndarray
    ev_lo: np.ndarray
    ev: np.ndarray
    runs: np.ndarray


@dataclass(frozen=True)
class CorpusPasses:
    """What every counting pass over the corpus reads: the index and its tree, the reverse index and its tree
    (`branching`), the evidence tables, the word length limit and candidate width, and the numbering of words."""

    index: LoadedIndex
    tree: ClassTree
    branching: Branching
    tables: EvidenceTables
    max_len: int
    width: int
    type_offset: np.ndarray  # int64 per class: the id of its shortest word (its types follow)
    size: int                # how many word ids there are (words that are no class: id `size`)
    kept: dict[tuple[int, int], ChunkInputs] = field(default_factory=dict, compare=False, repr=False)

    def count_words(self, values: np.ndarray, unknown: float, weight: float, theta: float, progress: Progress,
                    bigram: Bigram | None = None, pair: float = 0.0, bound: np.ndarray | None = None) -> Counts:
        """Segment every document with word values `values` (per word id) — in the context of `bigram` when its
        discount is > 0 (step 5), with the bonus `pair` for a two-character word otherwise (step 4) — attach the
        words marked in `bound` (per word id) to the word before them (step 4), and count the words."""
        index = self.index
        counts = np.zeros(self.size, dtype=np.float64)
        bigram = bigram or Bigram.of(None, self.size + 1, 0.0)
        attach = bound is not None
        bound = np.zeros(self.size + 1, dtype=np.bool_) if bound is None else bound
        sequences = []
        words = 0
        starts = index.doc_start.astype(np.int64)
        lengths = index.doc_len.astype(np.int64)
        keep = int(lengths.sum()) <= KEEP_TOKENS
        for d, e, lo, hi in document_chunks(index, progress_chunk(int(lengths.sum()))):
            inputs = self.kept.get((lo, hi)) or self.chunk_inputs(starts[d:e] - lo, lengths[d:e], lo, hi)
            if keep:
                self.kept[(lo, hi)] = inputs
            sequence = np.empty(int(lengths[d:e].sum()) + e - d, dtype=np.int64)
            found = _count_chunk(inputs.fcand, starts[d:e] - lo, lengths[d:e], inputs.classes, inputs.char_len,
                                 inputs.ev_lo, inputs.ev, inputs.runs, values, unknown, weight, theta, self.max_len,
                                 index.cls_lbl, self.type_offset, counts, bigram, pair, attach, bound, sequence)
            words += found
            sequences.append(sequence[:found + e - d])
            progress.advance(int(lengths[d:e].sum()))
        return Counts(counts, words, np.concatenate(sequences) if sequences else np.zeros(0, dtype=np.int64))

    def chunk_inputs(self, starts: np.ndarray, lengths: np.ndarray, lo: int, hi: int) -> ChunkInputs:
        """The inputs of the chunk of tokens lo..hi-1 whose documents start at `starts` (from lo) with `lengths`."""
        index, rev = self.index, self.branching.reverse
        fcand = corpus_candidates(index, self.tree, lo, hi, self.width)
        rcand = corpus_candidates(rev, self.branching.reverse_tree, lo, hi, self.width)
        classes = corpus_classes(index, lo, hi)
        char_len = char_lengths(np.asarray(index.tokens[lo:hi], dtype=np.int64), index.unit)
        ev_lo = evidence_offsets(starts, starts + lengths)
        ev = np.zeros(int(ev_lo[-1]))
        runs = np.zeros(int(ev_lo[-1]), dtype=np.int64)
        # a document's reversal lies in the reversed corpus at the same place
        span_evidence(fcand, rcand, starts, starts + lengths, starts, classes, self.tables, ev_lo, ev, runs)
        return ChunkInputs(fcand, classes, char_len, ev_lo, ev, runs)

    def bound_suffixes(self, sequence: np.ndarray, share: float, stems: int) -> np.ndarray:
        """Per word id, whether it is a bound suffix of the segmentation `sequence` (step 4)."""
        return bound_suffixes(sequence, self.type_strings, self.size + 1, share, stems)

    def type_strings(self, ids: np.ndarray) -> list[bytes]:
        """The token string of each word id, as the bytes of its token ids."""
        index = self.index
        c = np.searchsorted(self.type_offset, ids, side="right") - 1  # classes with no types share an offset
        lengths = ids - self.type_offset[c] + index.cls_lbl[c] + 1
        starts = np.asarray(index.sa)[index.cls_i[c]]
        tokens = np.asarray(index.tokens)
        return [tokens[a:a + n].tobytes() for a, n in zip(starts.tolist(), lengths.tolist(), strict=True)]


def word_types(index: LoadedIndex, max_len: int) -> tuple[np.ndarray, np.ndarray]:
    """How many words (lengths LBL < L <= min(SIL, max_len)) each class holds, and the id of its first."""
    sil = np.minimum(index.cls_sil.astype(np.int64), max_len)
    count = np.maximum(sil - index.cls_lbl, 0)
    return count, np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)


def bigram_counts(sequence: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The word pairs of a segmentation's word ids (ids below `size`, −1 where a document starts): the sorted pair ids
    v · size + w, their counts, and per id v how often it is on the left and before how many distinct words."""
    left, right = sequence[:-1], sequence[1:]
    both = (left >= 0) & (right >= 0)
    keys, pair_counts = np.unique(left[both] * size + right[both], return_counts=True)
    context = np.bincount(left[both], minlength=size).astype(np.float64)
    types = np.bincount(keys // size, minlength=size).astype(np.float64)
    return keys, pair_counts.astype(np.float64), context, types


def bound_suffixes(sequence: np.ndarray, strings: Callable[[np.ndarray], list[bytes]], size: int, share: float,
                   stems: int) -> np.ndarray:
    """Which word ids of a segmentation (word ids in order, −1 where a document starts, size − 1 for a word that is
    no class) are bound suffixes: x follows at least `stems` distinct words v, and for at least a share `share` of
    them the concatenation vx is a word of the segmentation too. `strings` gives each id's token string."""
    left, right = sequence[:-1], sequence[1:]
    both = (left >= 0) & (right >= 0) & (left < size - 1) & (right < size - 1)
    pairs = np.unique(left[both] * size + right[both])
    v, x = pairs // size, pairs % size
    preds = np.bincount(x, minlength=size)
    out = np.zeros(size, dtype=np.bool_)
    wanted = np.flatnonzero(preds >= max(stems, 1))
    if len(wanted) == 0:
        return out
    ids = np.unique(sequence[(sequence >= 0) & (sequence < size - 1)])
    names = dict(zip(ids.tolist(), strings(ids), strict=True))
    words = set(names.values())
    keep = np.isin(x, wanted)
    hits = np.zeros(size, dtype=np.int64)
    for a, b in zip(v[keep].tolist(), x[keep].tolist(), strict=True):
        hits[b] += names[a] + names[b] in words
    out[wanted] = hits[wanted] >= share * preds[wanted]
    return out


def progress_chunk(tokens: int) -> int:
    """Tokens per chunk of a training pass over `tokens`: about PROGRESS_STEPS chunks, so that a small corpus's bar
    moves too, but no fewer than MIN_CHUNK_TOKENS (per-chunk overhead) nor more than CHUNK_TOKENS (memory)."""
    return min(CHUNK_TOKENS, max(MIN_CHUNK_TOKENS, tokens // PROGRESS_STEPS))


def document_chunks(index: LoadedIndex, limit: int = CHUNK_TOKENS) -> Iterator[tuple[int, int, int, int]]:
    """Whole documents d..e-1 covering tokens lo..hi-1, at most `limit` per chunk (or one document)."""
    starts, lengths = index.doc_start.astype(np.int64), index.doc_len.astype(np.int64)
    d = 0
    while d < len(starts):
        e = d + 1
        while e < len(starts) and starts[e] + lengths[e] - starts[d] <= limit:
            e += 1
        yield d, e, int(starts[d]), int(starts[e - 1] + lengths[e - 1])
        d = e


@nb.njit(cache=True, nogil=True)  # arrays only: lets the progress bar redraw during a chunk
def _count_chunk(fcand, starts, lengths, classes, char_len, ev_lo, ev_all, runs_all, values, unknown, weight,  # type: ignore[no-untyped-def]
                 theta, max_len, lbl, offset, counts, bigram, pair, attach, bound, sequence):
    """Viterbi over each document of a chunk with the word scores of `values` (termx.wordbreak.viterbi's
    `WordScores`, step 1; in the context of `bigram` when its discount is > 0, step 5; else plus `pair` for a word
    of two characters, step 4), the words marked in `bound` attached to the word before them when `attach`
    (attach_suffixes, step 4); counts the chosen words per (class, length) into `counts`, returns how many.
    `sequence` gets the words' ids (offset[c] + L − lbl[c] − 1, len(counts) for a word that is no class), −1
    before each document. Document d's evidence and run lengths are ev_all and runs_all from ev_lo[d]
    (CorpusPasses.chunk_inputs)."""
    size = len(counts) + 1
    words = 0
    at = 0
    for d in range(len(starts)):
        s = starts[d]
        n = lengths[d]
        f = fcand[s:s + n]
        ev = ev_all[ev_lo[d]:ev_lo[d] + n + 1]
        runs = runs_all[ev_lo[d]:ev_lo[d] + n]
        scores = np.empty((n, max_len))
        if bigram.discount > 0:
            _word_scores(f, np.zeros(n + 1), values, unknown, 1.0, 0.0, lbl, offset, 1, char_len[s:s + n], runs,
                         scores)
            tid = np.full((n, max_len), size - 1, dtype=np.int64)
            start = np.zeros(n)
            for p in range(n):
                start[p] = ev[p] - theta if p > 0 else 0.0
                for length in range(1, max_len + 1):
                    c = f[p, length - 1]
                    if c >= 0:
                        tid[p, length - 1] = offset[c] + length - lbl[c] - 1
            cuts = forward_pairs(scores, tid, start, weight, bigram.table, bigram.counts, bigram.context,
                                 bigram.types, bigram.discount, size)
        else:
            _word_scores(f, ev, values, unknown, weight, theta, lbl, offset, 1, char_len[s:s + n], runs, scores)
            if pair != 0:
                add_pair_bonus(scores, char_len[s:s + n], classes[s:s + n], pair)
            back = np.zeros(n + 1, dtype=np.int64)
            _forward(scores, back)
            cuts = _cuts(back, n)
        if attach:
            cuts = attach_suffixes(cuts, n, f, effective_classes(classes[s:s + n]), bound, lbl, offset, max_len)
        sequence[at] = -1
        at += 1
        prev = 0
        for k in range(len(cuts) + 1):
            end = cuts[k] if k < len(cuts) else n
            c = f[prev, end - prev - 1]
            sequence[at] = size - 1
            if c >= 0:
                counts[offset[c] + end - prev - lbl[c] - 1] += 1
                sequence[at] = offset[c] + end - prev - lbl[c] - 1
            at += 1
            words += 1
            prev = end
    return words


@nb.njit(cache=True)
def add_pair_bonus(scores, char_len, classes, pair):  # type: ignore[no-untyped-def]
    """In place: `pair` more for every admissible word (finite score) of exactly two characters, both of a script
    written without spaces (entropy.UNSPACED: Han, Kana, Hangul; a pair of digits is no such word); char_len[p]
    is the token length of the character starting at p, 0 inside one (candidates.char_lengths), classes[p] its
    class (entropy.corpus_classes)."""
    n, max_len = scores.shape
    for p in range(n):
        if char_len[p] == 0 or not _unspaced(classes[p]):
            continue
        first = char_len[p]
        if p + first >= n or char_len[p + first] == 0 or not _unspaced(classes[p + first]):
            continue
        length = first + char_len[p + first]
        if length <= max_len and scores[p, length - 1] > -np.inf:
            scores[p, length - 1] += pair


@nb.njit(cache=True)
def _unspaced(c):  # type: ignore[no-untyped-def]
    """Whether character class c is a script written without spaces (entropy.UNSPACED)."""
    for u in UNSPACED:
        if c == u:
            return True
    return False


@nb.njit(cache=True)
def attach_suffixes(cuts, n, f, classes, bound, lbl, offset, max_len):  # type: ignore[no-untyped-def]
    """The cuts of a segmentation of n tokens (candidates `f`, effective character classes `classes`) without each
    cut before a word whose id is marked in `bound` where the word before it (itself possibly grown so) ends in the
    class the word starts with and their concatenation is a candidate of at most max_len tokens: the suffix joins
    its stem (step 4)."""
    keep = np.ones(len(cuts), dtype=np.bool_)
    first = 0  # where the word before the cut starts
    for k in range(len(cuts)):
        cut = cuts[k]
        end = cuts[k + 1] if k + 1 < len(cuts) else n
        c = f[cut, end - cut - 1]
        if c >= 0 and bound[offset[c] + end - cut - lbl[c] - 1] and end - first <= max_len \
                and classes[cut - 1] == classes[cut] and f[first, end - first - 1] >= 0:
            keep[k] = False
        else:
            first = cut
    return cuts[keep]
