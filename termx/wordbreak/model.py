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

from dataclasses import asdict, dataclass, replace

import numpy as np

from termx.index.loaded_index import LoadedIndex
from termx.progress import Progress, Silent
from termx.wordbreak.candidates import ClassTree
from termx.wordbreak.corpus_passes import Bigram, CorpusPasses, Counts, document_chunks, word_types
from termx.wordbreak.entropy import (
    BRANCHING_STEPS,
    EvidenceTables,
    _evidence,
    branching,
    class_bonus,
    run_lengths,
    span_evidence,
)
from termx.wordbreak.nvbe import autonomy_table
from termx.wordbreak.viterbi import WordScores, evidence_offsets


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
    # Unspaced scripts (mostly Han/Kana/Hangul): what one run of `bench/tune_segment.py --data pku --seed 0` printed
    # (a coordinate search from scratch over every value, no --fix; devtest word F1 0.7885 on 49 PKU
    # pseudo-documents, where the defaults of before gave .7830; κ_hk not searched: PKU has no Kana).
    "unspaced": BranchingParams(theta0=0.0, kappa=20.0, kappa_digit=0.0, kappa_han_kana=10.0, kappa_run=0.0, runs=1,
                                autonomy=0.0, weight=8.0, theta=-28.0, passes=1, pass_weight=2.0, pass_theta=-24.0,
                                pass_mix=1.0, pass_bigram=0.95, pass_pair=12.0, suffix=0.0, suffix_stems=100),
    # Unspaced text with Kana (Japanese): what one run of `bench/tune_segment.py --data ja --seed 0` printed (a
    # coordinate search from scratch over every value, no --fix; devtest word F1 .6448 on 13 UD GSD pseudo-documents,
    # where the defaults of before gave .6061).
    "kana": BranchingParams(theta0=8.0, kappa=20.0, kappa_digit=10.0, kappa_han_kana=0.0, kappa_run=10.0, runs=1,
                            autonomy=0.0, weight=12.0, theta=-20.0, passes=1, pass_weight=2.0, pass_theta=-24.0,
                            pass_mix=0.5, pass_bigram=0.95, pass_pair=12.0, suffix=0.0, suffix_stems=100),
}
"""Default branching parameters per kind of script, the one place they are kept."""


class BranchingModel:
    """Branching entropies of a corpus and its self-trained unigram word model.

    Training is a pipeline of stages, each run once, in order (module docstring): the reverse index and mean
    entropies (`branching`), the counting passes' inputs (`CorpusPasses`), self-training (step 1-2), the autonomy
    table (ν ≠ 0), the re-estimation and bigram passes (steps 4-5, `_reestimate`) and the final word values (3).
    `set_final` repeats only the last two."""

    def __init__(self, index: LoadedIndex, tree: ClassTree, max_len: int, params: BranchingParams,
                 progress: Progress | None = None) -> None:
        progress = progress or Silent()
        self.index, self.tree, self.params, self.max_len = index, tree, params, max_len
        self.width = max(max_len, params.window)
        progress.start("reverse index", BRANCHING_STEPS)
        self.branching = branching(index, tree, params.window, progress.advance)
        progress.finish()
        self.type_count, self.type_offset = word_types(index, max_len)
        tables = EvidenceTables.of(index, tree, self.branching, self.bonus, bool(params.runs))
        self.passes = CorpusPasses(index, tree, self.branching, tables, max_len, self.width, self.type_offset,
                                   int(self.type_count.sum()))
        progress.start("self-training", int(index.doc_len.astype(np.int64).sum()))
        # the whole score with λ = 0 and every candidate a word (value 0), θ = θ₀
        self.trained: Counts = self.passes.count_words(np.zeros(self.passes.size), 0.0, 0.0, params.theta0,
                                                       progress)
        progress.finish()
        self.has_autonomy = bool(params.autonomy)
        none: tuple[np.ndarray, float] = (np.zeros(self.passes.size), 0.0)
        self.autonomy, self.autonomy_single = self._autonomy(progress) if self.has_autonomy else none
        self.reestimated: Counts | None = None
        self.set_final(params.weight, params.theta, params.autonomy, progress=progress)

    def _autonomy(self, progress: Progress) -> tuple[np.ndarray, float]:
        """a(w) · |w| of every word id and a(x) of a character occurring once (termx.wordbreak.nvbe)."""
        progress.start("autonomy", None)
        values, single = autonomy_table(self.index, self.tree, self.branching, min(self.params.window, self.max_len),
                                        list(document_chunks(self.index)), self.type_offset, self.passes.size)
        progress.finish()
        return np.nan_to_num(values, nan=0.0) * self._type_lengths(), single

    def _type_lengths(self) -> np.ndarray:
        """|w| of every word id."""
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
        p = self.params
        self.counts = self.reestimated.counts
        self.log_p, self.log_p_unknown = self._word_values(self.counts, self.reestimated.words)
        self.words = WordScores(self.log_p, self.log_p_unknown, p.weight, p.theta, self.index.cls_lbl,
                                self.type_offset, 1)

    def _reestimate(self, progress: Progress) -> Counts:
        """Word counts after the re-estimation passes and the bigram pass (module docstring, steps 4 and 5)."""
        p, trained = self.params, self.trained
        counts, words, sequence = trained
        size = int(self.index.doc_len.astype(np.int64).sum())
        for k in range(p.passes):
            progress.start(f"re-estimation pass {k + 1}", size * (2 if p.suffix > 0 else 1))  # suffixes: 2 runs
            log_p, unknown = self._word_values(counts, words)
            found = self.passes.count_words(log_p, unknown, p.pass_weight, p.pass_theta, progress, pair=p.pass_pair)
            if p.suffix > 0:
                bound = self.passes.bound_suffixes(found.sequence, p.suffix, p.suffix_stems)
                found = self.passes.count_words(log_p, unknown, p.pass_weight, p.pass_theta, progress,
                                                pair=p.pass_pair, bound=bound)
            counts = ((1 - p.pass_mix) * trained.counts * (found.words / max(trained.words, 1))
                      + p.pass_mix * found.counts)
            words, sequence = found.words, found.sequence
            progress.finish()
        if p.pass_bigram > 0:
            progress.start("bigram pass", size)
            log_p, unknown = self._word_values(counts, words)
            counts, words, sequence = self.passes.count_words(
                log_p, unknown, p.weight, p.theta, progress, Bigram.of(sequence, self.passes.size + 1, p.pass_bigram))
            progress.finish()
        return Counts(counts, words, sequence)

    def _word_values(self, counts: np.ndarray, words: int) -> tuple[np.ndarray, float]:
        """Word values log P(w) + ν · a(w) · |w| from word counts (−inf for a string that is no word), and the
        value of a single character that is no word."""
        p = self.params
        with np.errstate(divide="ignore"):
            log_p = np.where(counts > 0, np.log(counts + p.smoothing) - np.log(max(words, 1)), -np.inf)
        unknown = float(np.log(p.smoothing) - np.log(max(words, 1)) + p.autonomy * self.autonomy_single)
        return log_p + p.autonomy * self.autonomy, unknown

    @property
    def bonus(self) -> np.ndarray:
        """The evidence of each pair of character classes (entropy.class_bonus)."""
        p = self.params
        return class_bonus(p.kappa, p.kappa_digit, p.kappa_han_kana, p.kappa_run)

    def evidence(self, fcand: np.ndarray, rcand: np.ndarray, classes: np.ndarray) -> np.ndarray:
        """Boundary evidence at every position of one text span."""
        t = self.passes.tables
        out = np.zeros(fcand.shape[0] + 1)
        _evidence(fcand, rcand, t.fsil, t.fbranch, t.rsil, t.rbranch, t.mean, classes, t.bonus, out)
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
        span_evidence(fcand, rcand, lo, hi, rlo, classes, self.passes.tables, ev_lo, ev, runs)
        return self.words.segment_spans(fcand, lo, hi, char_len, self.max_len, ev, runs)


def _pass_settings(p: BranchingParams) -> tuple[float, ...]:
    """What the re-estimated counts depend on besides self-training (with the bigram pass: the final λ, θ too; m only
    when suffixes are attached)."""
    suffixes = (p.suffix, p.suffix_stems) if p.suffix else (0,)
    passes = ((p.passes, p.pass_weight, p.pass_theta, p.pass_mix, p.autonomy, p.pass_pair, *suffixes) if p.passes
              else (0,))
    return (*passes, p.pass_bigram, p.weight, p.theta, p.autonomy) if p.pass_bigram else passes
