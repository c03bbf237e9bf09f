"""The `branching` scorer: branching-entropy boundary evidence plus a unigram word model the corpus teaches itself.

Training needs no dictionary and no labels. (1) Every document of the corpus is segmented by boundary evidence
alone: a word may start at b > 0 at the cost θ₀ − evidence(b). (2) The words of that segmentation are counted
per candidate string (a (class, length) pair of the index), giving log P(w) = log((count(w) + ε) / words).
(3) The final score of a word w starting at p is

    S(w, p) = λ · [log P(w) + ν · a(w) · |w|] + [p > 0] · (evidence(p) − θ)

where a(w) is the autonomy of w from the normalized variation of branching entropy (termx.wordbreak.nvbe; 0 for
w longer than the window; ν = 0 leaves it out), and Viterbi maximises the sum. A word of the model has
count(w) > 0; besides them only single characters are allowed (at log P = log(ε / words) + ν · a(x), a(x) of a
character occurring once), so the model is a finite table that new text can be segmented from
(termx.wordbreak.ngram_tables: it stores the word values as they are, so ν needs nothing new there). Step (2)
fixes what raw substring counts get wrong ("ofthe" occurs 15,000 times as a substring but is rarely a word of
the evidence segmentation).

(4) Re-estimation (hard EM, `passes` times; 0 leaves it out): every document is segmented again with the word
values of the model so far, by the score of (3) with the passes' own λ_p = pass_weight and θ_p = pass_theta (ν as
in (3)); its words are counted (c', W' words in all) and interpolated with the self-training counts c, W by
α = pass_mix,

    count(w) = (1 − α) · c(w) · W' / W + α · c'(w),   words = W',

so P(w) = (1 − α) · c(w)/W + α · c'(w)/W' + ε/W'. The final segmentation (3) then reads these counts. The word
values stay a finite table of (class, length) values, so the stored model needs nothing new either. With
β = pass_pair ≠ 0 a word of exactly two characters, both of a script written without spaces (Han, Kana, Hangul),
scores β more in a pass's segmentation (a bias toward the commonest length of Chinese words: the passes otherwise
cut frequent two-character words into two frequent characters, and their counts then teach the final search to do
the same; digit pairs are left out, as they would cut numbers); only the counts change, so the final search and
the stored model are unchanged in form.

With σ = suffix > 0 a pass attaches bound suffixes before it counts (a Goldsmith-style signature learned from the
segmentation itself, no dictionary): in the pass's segmentation, a word x that follows at least
m = suffix_stems distinct words v, and for at least a share σ of them the string vx is itself a word of that
segmentation ("profit s" where "profits" is a word too; "of the" where "ofthe" rarely is), is a bound suffix
(`bound_suffixes`). Wherever that segmentation puts such a word right after a word of the same character class and
their concatenation is a candidate of at most max_len tokens, the two are counted as one word (`attach_suffixes`;
the pass segments the corpus twice: once to find the suffixes, once to count). Only the counts change, so the
stored model needs nothing new.

(5) With d = pass_bigram > 0 one more pass follows (4): it segments every document with the final λ and θ of (3)
and words in context, the word w after the word v scoring λ · log P(w | v) in place of λ · log P(w), where

    P(w | v) = (max(c(v, w) − d, 0) + d · t(v) · P(w)) / c(v)

(absolute discounting with Kneser–Ney's back-off weight), c(v, w) counted over the word pairs of the segmentation
the counts of (4) came from (the last pass's; self-training's when passes = 0; the characters that are no word
share one id), c(v) the pairs with v on the left, t(v) their distinct right words, P(w) the unigram value of (4);
P(w | v) = P(w) when v was never on the left, and the first word of a document has no context. Its words, counted
as in (4) with α = 1, are what the final segmentation (3) reads: still unigram counts, so the final search and the
stored model are unchanged in form. (As the context of every pass, or in the final search itself, the bigram model
lost to the unigram model on the PKU devtest: docs/segment.md.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace

import numba as nb
import numpy as np

from termx.index.loaded_index import LoadedIndex
from termx.progress import Progress, Silent
from termx.wordbreak.candidates import ClassTree, char_lengths, corpus_candidates
from termx.wordbreak.entropy import (
    BRANCHING_STEPS,
    UNSPACED,
    Branching,
    _evidence,
    branching,
    class_bonus,
    corpus_classes,
    effective_classes,
    run_lengths,
)
from termx.wordbreak.nvbe import autonomy_table
from termx.wordbreak.viterbi import WordScores, _cuts, _forward, _word_scores, evidence_offsets, forward_bigram

CHUNK_TOKENS = 1 << 20
PROGRESS_STEPS = 64  # training passes advance their bar about this often (chunks of at least MIN_CHUNK_TOKENS)
MIN_CHUNK_TOKENS = 1 << 14


@dataclass(frozen=True)
class BranchingParams:
    """Hyper-parameters of the branching scorer (defaults: the `spaced` ones, tuned on Reuters devtest)."""

    window: int = 8           # NB: n-grams of 1..NB tokens on each side of a boundary
    kappa: float = 10.0       # bonus for a change of character class, penalty inside a digit run
    kappa_digit: float = 10.0  # κ_d, bonus for a change to or from a digit (entropy.class_bonus)
    kappa_han_kana: float = 10.0  # κ_hk, bonus for a change from Han to Hiragana
    kappa_run: float = 0.0    # κ_r, penalty inside a run of Latin letters or of Katakana
    runs: int = 0             # 1: a maximal run of digits, Latin letters or Katakana is always a candidate word
    theta0: float = 32.0      # evidence threshold of the self-training segmentation
    weight: float = 2.0       # λ, weight of the word model (the `spaced` default: see DEFAULTS)
    theta: float = -4.0       # evidence threshold of the final segmentation
    smoothing: float = 0.1    # ε added to every word count
    autonomy: float = 0.0     # ν, weight of the nVBE autonomy · length in a word's value
    passes: int = 0           # re-estimation passes (hard EM) after self-training; 0: none
    pass_weight: float = 1.0  # λ_p, weight of the word model in a pass's segmentation
    pass_theta: float = -16.0  # θ_p, evidence threshold of a pass's segmentation
    pass_mix: float = 1.0     # α, weight of a pass's counts against the self-training counts
    pass_bigram: float = 0.0  # d, discount of the word-bigram model of one more pass (step 5); 0: no such pass
    pass_pair: float = 0.0    # β, bonus of a two-character Han/Kana/Hangul word in a re-estimation pass; 0: none
    suffix: float = 0.0       # σ, least stem share of a bound suffix attached in the passes' counts (step 4); 0: off
    suffix_stems: int = 100   # m, least distinct predecessors of a word for its stem share to count (step 4)

    def as_dict(self) -> dict[str, float]:
        """The parameters as stored with a run."""
        return asdict(self)


DEFAULTS: dict[str, BranchingParams] = {
    # Spaced-script text (Reuters `alnum`): what `bench/tune_segment.py --data reuters --seed 0 --theta0 32 --fix
    # pass_weight=2 --fix pass_theta=-8 --fix suffix_stems=100` printed (theta0 32 as chosen by the earlier
    # per-theta0 runs, devtest .8978, .9018, .9037, .9011 for 16, 24, 32, 48; λ_p, θ_p as the earlier full pass
    # search chose them; devtest boundary F1 on 300 context documents .9339 with bound suffixes, σ 0.15; .9080
    # with one re-estimation pass alone, .9037 without).
    "spaced": BranchingParams(weight=4.0, theta=0.0, passes=1, pass_weight=2.0, pass_theta=-8.0, pass_mix=1.0,
                              suffix=0.15, suffix_stems=100),
    # Unspaced scripts (mostly Han/Kana/Hangul): what `bench/tune_segment.py --data pku --seed 0 --theta0 0 --fix
    # kappa_digit=5 --fix runs=1 --fix kappa_run=0 --fix autonomy=0 --fix passes=1 --fix pass_weight=1 --fix
    # pass_theta=-16 --fix pass_bigram=0.8` printed (devtest word F1 .7830 on 49 PKU pseudo-documents with the
    # passes' two-character bonus β 8; .7495 without it; the other values fixed where earlier searches chose them;
    # κ_hk not searched: PKU has no Kana).
    "unspaced": BranchingParams(theta0=0.0, kappa=10.0, kappa_digit=5.0, kappa_han_kana=10.0, kappa_run=0.0,
                                runs=1, autonomy=0.0, weight=8.0, theta=-24.0, passes=1, pass_weight=1.0,
                                pass_theta=-16.0, pass_mix=1.0, pass_bigram=0.8, pass_pair=8.0),
    # Unspaced text with Kana (Japanese): what `bench/tune_segment.py --data ja --seed 0 --theta0 0` printed
    # (devtest word F1 .6061 on 13 UD GSD pseudo-documents with per-class evidence, runs and one pass; .5498 with
    # the class rule of before, two passes; ν searched, 0 won).
    "kana": BranchingParams(theta0=0.0, kappa=10.0, kappa_digit=10.0, kappa_han_kana=5.0, kappa_run=10.0, runs=1,
                            autonomy=0.0, weight=8.0, theta=-16.0, passes=1, pass_weight=4.0, pass_theta=-16.0,
                            pass_mix=1.0),
}
"""Default branching parameters per kind of script, the one place they are kept."""


class BranchingModel:
    """Branching entropies of a corpus and its self-trained unigram word model."""

    def __init__(self, index: LoadedIndex, tree: ClassTree, max_len: int, params: BranchingParams,
                 progress: Progress | None = None) -> None:
        progress = progress or Silent()
        self.index = index
        self.tree = tree
        self.params = params
        self.width = max(max_len, params.window)
        self.max_len = max_len
        progress.start("reverse index", BRANCHING_STEPS)
        self.branching: Branching = branching(index, tree, params.window, progress.advance)
        progress.finish()
        sil = np.minimum(index.cls_sil.astype(np.int64), max_len)
        self.type_count = np.maximum(sil - index.cls_lbl, 0)
        self.type_offset = np.concatenate([[0], np.cumsum(self.type_count)[:-1]]).astype(np.int64)
        self.trained = self._self_train(progress)
        self.autonomy, self.autonomy_single = np.zeros(len(self.trained[0])), 0.0
        self.has_autonomy = bool(params.autonomy)
        if self.has_autonomy:
            progress.start("autonomy", None)
            values, self.autonomy_single = autonomy_table(index, tree, self.branching, min(params.window, max_len),
                                                          list(document_chunks(index)), self.type_offset,
                                                          len(self.trained[0]))
            self.autonomy = np.nan_to_num(values, nan=0.0) * self._type_lengths()
            progress.finish()
        self.reestimated: tuple[np.ndarray, int] | None = None
        self.set_final(params.weight, params.theta, params.autonomy, progress=progress)

    def _type_lengths(self) -> np.ndarray:
        """|w| of every (class, length) pair, in the order of `counts`."""
        starts = np.repeat(self.type_offset[:len(self.type_count)], self.type_count)  # (one offset with no class)
        return (np.arange(len(starts)) - starts + np.repeat(self.index.cls_lbl + 1, self.type_count)).astype(float)

    def set_final(self, weight: float, theta: float, autonomy: float | None = None, passes: int | None = None,
                  pass_weight: float | None = None, pass_theta: float | None = None, pass_mix: float | None = None,
                  pass_bigram: float | None = None, pass_pair: float | None = None, suffix: float | None = None,
                  suffix_stems: int | None = None, progress: Progress | None = None) -> None:
        """Set λ, θ (ν, if the model was built with ν ≠ 0) and the re-estimation passes (and their suffixes) without
        repeating self-training (they play no part in it): the stored parameters and the word scores the search
        reads. The passes run again (from the self-training counts) only when their settings or ν change."""
        nu = self.params.autonomy if autonomy is None else autonomy
        if nu and not self.has_autonomy:
            raise ValueError("the autonomy table is built only when the model is built with autonomy != 0")
        before = self.params
        self.params = replace(before, weight=weight, theta=theta, autonomy=nu,
                              passes=before.passes if passes is None else passes,
                              pass_weight=before.pass_weight if pass_weight is None else pass_weight,
                              pass_theta=before.pass_theta if pass_theta is None else pass_theta,
                              pass_mix=before.pass_mix if pass_mix is None else pass_mix,
                              pass_bigram=before.pass_bigram if pass_bigram is None else pass_bigram,
                              pass_pair=before.pass_pair if pass_pair is None else pass_pair,
                              suffix=before.suffix if suffix is None else suffix,
                              suffix_stems=before.suffix_stems if suffix_stems is None else suffix_stems)
        if self.reestimated is None or _pass_settings(before) != _pass_settings(self.params):
            self.reestimated = self._reestimate(progress or Silent())
        self._set_values(*self.reestimated)

    def _reestimate(self, progress: Progress) -> tuple[np.ndarray, int]:
        """Word counts after the re-estimation passes and the bigram pass (module docstring, steps 4 and 5)."""
        p = self.params
        counts, words = self.trained
        sequence = self.trained_sequence
        size = int(self.index.doc_len.astype(np.int64).sum())
        for k in range(p.passes):
            progress.start(f"re-estimation pass {k + 1}", size * (2 if p.suffix > 0 else 1))  # suffixes: 2 runs
            log_p, unknown = self._word_values(counts, words)
            found, total, sequence = self._count_words(log_p, unknown, p.pass_weight, p.pass_theta, progress,
                                                       pair=p.pass_pair)
            if p.suffix > 0:
                found, total, sequence = self._count_words(log_p, unknown, p.pass_weight, p.pass_theta, progress,
                                                           pair=p.pass_pair, bound=self.bound_suffixes(sequence))
            counts = (1 - p.pass_mix) * self.trained[0] * (total / max(self.trained[1], 1)) + p.pass_mix * found
            words = total
            progress.finish()
        if p.pass_bigram > 0:
            progress.start("bigram pass", size)
            log_p, unknown = self._word_values(counts, words)
            counts, words, _ = self._count_words(log_p, unknown, p.weight, p.theta, progress, p.pass_bigram,
                                                 sequence)
            progress.finish()
        return counts, words

    def bound_suffixes(self, sequence: np.ndarray) -> np.ndarray:
        """Per word id (as `_count_words` numbers them), whether it is a bound suffix of the segmentation
        `sequence` (module docstring, step 4)."""
        size = int(self.type_count.sum()) + 1
        return bound_suffixes(sequence, self.type_strings, size, self.params.suffix, self.params.suffix_stems)

    def type_strings(self, ids: np.ndarray) -> list[bytes]:
        """The token string of each word id (offset[c] + L − lbl[c] − 1), as the bytes of its token ids."""
        index = self.index
        c = np.searchsorted(self.type_offset, ids, side="right") - 1  # classes with no types share an offset
        lengths = ids - self.type_offset[c] + index.cls_lbl[c] + 1
        starts = np.asarray(index.sa)[index.cls_i[c]]
        tokens = np.asarray(index.tokens)
        return [tokens[a:a + n].tobytes() for a, n in zip(starts.tolist(), lengths.tolist(), strict=True)]

    def _word_values(self, counts: np.ndarray, words: int) -> tuple[np.ndarray, float]:
        """Word values log P(w) + ν · a(w) · |w| from word counts (−inf for a string that is no word), and the
        value of a single character that is no word."""
        p = self.params
        with np.errstate(divide="ignore"):
            log_p = np.where(counts > 0, np.log(counts + p.smoothing) - np.log(max(words, 1)), -np.inf)
        unknown = float(np.log(p.smoothing) - np.log(max(words, 1)) + p.autonomy * self.autonomy_single)
        return log_p + p.autonomy * self.autonomy, unknown

    def _set_values(self, counts: np.ndarray, words: int) -> None:
        """The counts and word values the final segmentation reads."""
        p = self.params
        self.counts = counts
        self.log_p, self.log_p_unknown = self._word_values(counts, words)
        self.words = WordScores(self.log_p, self.log_p_unknown, p.weight, p.theta, self.index.cls_lbl,
                                self.type_offset, 1)

    @property
    def bonus(self) -> np.ndarray:
        """The evidence of each pair of character classes (entropy.class_bonus)."""
        p = self.params
        return class_bonus(p.kappa, p.kappa_digit, p.kappa_han_kana, p.kappa_run)

    def _self_train(self, progress: Progress) -> tuple[np.ndarray, int]:
        """Segment every document by evidence alone and count its words per (class, length): the whole score with
        λ = 0 and every candidate a word (value 0), θ = θ₀."""
        progress.start("self-training", int(self.index.doc_len.astype(np.int64).sum()))
        counts, words, self.trained_sequence = self._count_words(np.zeros(int(self.type_count.sum())), 0.0, 0.0,
                                                                 self.params.theta0, progress)
        progress.finish()
        return counts, words

    def _count_words(self, values: np.ndarray, unknown: float, weight: float, theta: float, progress: Progress,
                     discount: float = 0.0, previous: np.ndarray | None = None, pair: float = 0.0,
                     bound: np.ndarray | None = None) -> tuple[np.ndarray, int, np.ndarray]:
        """Segment every document with word values `values` (per (class, length)) — in the context of the word
        pairs of the `previous` segmentation's word ids when discount > 0 (step 5), with the bonus `pair` for a
        two-character word otherwise (step 4) — attach the words marked in `bound` (per word id) to the word before
        them (step 4), count the words of the segmentation per (class, length) and in all, and return its word ids
        in order (−1 before each document, as `_count_chunk` writes them)."""
        index, rev = self.index, self.branching.reverse
        size = int(self.type_count.sum())
        counts = np.zeros(size, dtype=np.float64)
        on = discount > 0 and previous is not None
        keys, pair_counts, context, types = bigram_counts(previous, size + 1) if on and previous is not None else (
            np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), np.zeros(0))
        attach = bound is not None
        bound = np.zeros(size + 1, dtype=np.bool_) if bound is None else bound
        sequences = []
        words = 0
        starts = index.doc_start.astype(np.int64)
        lengths = index.doc_len.astype(np.int64)
        for d, e, lo, hi in document_chunks(index, progress_chunk(int(lengths.sum()))):
            fcand = corpus_candidates(index, self.tree, lo, hi, self.width)
            rcand = corpus_candidates(rev, self.branching.reverse_tree, lo, hi, self.width)
            classes = corpus_classes(index, lo, hi)
            char_len = char_lengths(np.asarray(index.tokens[lo:hi], dtype=np.int64), index.unit)
            sequence = np.empty(int(lengths[d:e].sum()) + e - d, dtype=np.int64)
            found = _count_chunk(fcand, rcand, starts[d:e] - lo, lengths[d:e], classes, char_len, index.cls_sil,
                                 self.tree.branches, rev.cls_sil, self.branching.reverse_tree.branches,
                                 self.branching.mean, self.bonus, bool(self.params.runs), values, unknown,
                                 weight, theta, self.max_len, index.cls_lbl, self.type_offset, counts,
                                 discount if on else 0.0, keys, pair_counts, context, types, pair, attach,
                                 bound, sequence)
            words += found
            sequences.append(sequence[:found + e - d])
            progress.advance(int(lengths[d:e].sum()))
        return counts, words, np.concatenate(sequences) if sequences else np.zeros(0, dtype=np.int64)

    def evidence(self, fcand: np.ndarray, rcand: np.ndarray, classes: np.ndarray) -> np.ndarray:
        """Boundary evidence at every position of one text span."""
        out = np.zeros(fcand.shape[0] + 1)
        _evidence(fcand, rcand, self.index.cls_sil, self.tree.branches, self.branching.reverse.cls_sil,
                  self.branching.reverse_tree.branches, self.branching.mean, classes, self.bonus, out)
        return out

    def scores(self, fcand: np.ndarray, rcand: np.ndarray, classes: np.ndarray, char_len: np.ndarray) -> np.ndarray:
        """S(w, p) of every candidate word of one span; -inf where no word may go."""
        runs = np.zeros(len(classes), dtype=np.int64)
        run_lengths(classes, bool(self.params.runs), runs)
        return self.words.table(fcand, self.evidence(fcand, rcand, classes), char_len, self.max_len, runs)

    def segment_spans(self, fcand: np.ndarray, rcand: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                      rlo: np.ndarray, classes: np.ndarray, char_len: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Viterbi over many spans in one call: span k is rows lo[k]..hi[k]-1 of `fcand` (and of `classes`,
        `char_len`), its reversal rows rlo[k].. of `rcand`. Returns the flat cuts and the count per span."""
        ev_lo = evidence_offsets(lo, hi)
        ev = np.zeros(int(ev_lo[-1]))
        runs = np.zeros(int(ev_lo[-1]), dtype=np.int64)
        _span_evidence(fcand, rcand, lo, hi, rlo, classes, self.index.cls_sil, self.tree.branches,
                       self.branching.reverse.cls_sil, self.branching.reverse_tree.branches, self.branching.mean,
                       self.bonus, bool(self.params.runs), ev_lo, ev, runs)
        return self.words.segment_spans(fcand, lo, hi, char_len, self.max_len, ev, runs)


def _pass_settings(p: BranchingParams) -> tuple[float, ...]:
    """What the re-estimated counts depend on besides self-training (with the bigram pass: the final λ, θ too; m only
    when suffixes are attached)."""
    suffixes = (p.suffix, p.suffix_stems) if p.suffix else (0,)
    passes = ((p.passes, p.pass_weight, p.pass_theta, p.pass_mix, p.autonomy, p.pass_pair, *suffixes) if p.passes
              else (0,))
    return (*passes, p.pass_bigram, p.weight, p.theta, p.autonomy) if p.pass_bigram else passes


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


@nb.njit(cache=True)
def _span_evidence(fcand, rcand, lo, hi, rlo, classes, fsil, fbranch, rsil, rbranch, mean, bonus, runs_on, ev_lo,  # type: ignore[no-untyped-def]
                   ev, runs):
    """Boundary evidence of each span k (rows lo[k]..hi[k]-1, reversal rows rlo[k]..) into ev[ev_lo[k]:], its
    run lengths (entropy.run_lengths) into runs[ev_lo[k]:]."""
    for k in range(len(lo)):
        n = hi[k] - lo[k]
        _evidence(fcand[lo[k]:hi[k]], rcand[rlo[k]:rlo[k] + n], fsil, fbranch, rsil, rbranch, mean,
                  classes[lo[k]:hi[k]], bonus, ev[ev_lo[k]:ev_lo[k] + n + 1])
        run_lengths(classes[lo[k]:hi[k]], runs_on, runs[ev_lo[k]:ev_lo[k] + n])


@nb.njit(cache=True, nogil=True)  # arrays only: lets the progress bar redraw during a chunk
def _count_chunk(fcand, rcand, starts, lengths, classes, char_len, fsil, fbranch, rsil, rbranch, mean, bonus,  # type: ignore[no-untyped-def]
                 runs_on, values, unknown, weight, theta, max_len, lbl, offset, counts, discount, keys, pair_counts,
                 context, types, pair, attach, bound, sequence):
    """Viterbi over each document of a chunk with the word scores of `values` (termx.wordbreak.viterbi's
    `WordScores`, step 1; with the word pairs `keys`.. when discount > 0, step 5; else plus `pair` for a word of
    two characters, step 4), the words marked in `bound` attached to the word before them when `attach`
    (attach_suffixes, step 4); counts the chosen words per
    (class, length) into `counts`, returns how many. `sequence` gets the words' ids (offset[c] + L − lbl[c] − 1,
    len(counts) for a word that is no class), −1 before each document."""
    size = len(counts) + 1
    words = 0
    at = 0
    for d in range(len(starts)):
        s = starts[d]
        n = lengths[d]
        f = fcand[s:s + n]
        ev = np.zeros(n + 1)
        _evidence(f, rcand[s:s + n], fsil, fbranch, rsil, rbranch, mean, classes[s:s + n], bonus, ev)
        runs = np.zeros(n, dtype=np.int64)
        run_lengths(classes[s:s + n], runs_on, runs)
        scores = np.empty((n, max_len))
        if discount > 0:
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
            cuts = forward_bigram(scores, tid, start, weight, keys, pair_counts, context, types, discount, size)
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
