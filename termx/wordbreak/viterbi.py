"""The Viterbi search of the slides' word-breaking procedure: the segmentation with the largest total score."""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from termx.errors import InputError
from termx.wordbreak.hash_table import find_slot, valued_table


@dataclass(frozen=True)
class WordScores:
    """How every scorer scores the candidate word of length L at position p whose class is c:

        S = weight · values[offset[c] + step · (L − lbl[c] − 1)] + [p > 0] · (evidence(p) − θ)

    and `weight · unknown + ...` for one whole character that is no class (it occurs once or not at all).
    The branching model reads a value per (class, length) (step 1); a per-class table uses step 0, offset = c,
    no evidence, θ = 0 and weight 1 (so S is the table's value exactly)."""

    values: np.ndarray   # float64
    unknown: float
    weight: float
    theta: float
    lbl: np.ndarray      # the classes' LBL
    offset: np.ndarray   # int64 per class
    step: int

    def table(self, fcand: np.ndarray, evidence: np.ndarray, char_len: np.ndarray, max_len: int,
              runs: np.ndarray | None = None) -> np.ndarray:
        """S of every candidate word of one span (rows of `fcand`); -inf where no word may go. runs[p] > 0: the
        run of that many tokens at p is a word at the unknown value too (entropy.run_lengths; none: no runs)."""
        out = np.empty((fcand.shape[0], max_len))
        runs = np.zeros(fcand.shape[0], dtype=np.int64) if runs is None else runs
        _word_scores(fcand, evidence, self.values, self.unknown, self.weight, self.theta, self.lbl, self.offset,
                     self.step, char_len, runs, out)
        return out

    def segment_spans(self, fcand: np.ndarray, lo: np.ndarray, hi: np.ndarray, char_len: np.ndarray, max_len: int,
                      evidence: np.ndarray | None = None, runs: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
        """Viterbi over many spans in one call: span k is rows lo[k]..hi[k]-1 of `fcand` and `char_len`, its
        evidence evidence[evidence_offsets(lo, hi)[k]:] and its run lengths (as in `table`) at the same offsets
        in `runs` (none: all zeros). Returns the flat cuts and the count per span."""
        ev_lo = evidence_offsets(lo, hi)
        evidence = np.zeros(int(ev_lo[-1])) if evidence is None else evidence
        runs = np.zeros(int(ev_lo[-1]), dtype=np.int64) if runs is None else runs
        cuts = np.empty(int((hi - lo).sum()), dtype=np.int64)
        counts = np.zeros(len(lo), dtype=np.int64)
        _segment_spans(fcand, evidence, runs, ev_lo, lo, hi, self.values, self.unknown, self.weight, self.theta,
                       self.lbl, self.offset, self.step, char_len, max_len, cuts, counts)
        return cuts, counts


def viterbi(scores: np.ndarray) -> np.ndarray:
    """Cut offsets (interior word boundaries, ascending) maximising the sum of word scores.

    `scores[p, L-1]` is the score of the word of length L starting at p; -inf forbids it. Ties go to the
    longest last word.
    """
    return best_path(scores)[0]


def best_path(scores: np.ndarray) -> tuple[np.ndarray, float]:
    """viterbi()'s cuts and the total score of that segmentation (the largest sum of word scores)."""
    n = scores.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0.0
    back = np.zeros(n + 1, dtype=np.int64)
    total = _forward(np.ascontiguousarray(scores, dtype=np.float64), back)
    if not np.isfinite(total):
        raise InputError("no segmentation is possible", "every character needs a finite single-character score")
    return _cuts(back, n), float(total)


@nb.njit(cache=True)
def _forward(scores, back):  # type: ignore[no-untyped-def]
    """best[q] = max over L of best[q-L] + scores[q-L, L-1]; back[q] = the maximising L."""
    n, max_len = scores.shape
    best = np.full(n + 1, -np.inf)
    best[0] = 0.0
    for q in range(1, n + 1):
        top = min(q, max_len)
        for length in range(top, 0, -1):
            v = best[q - length] + scores[q - length, length - 1]
            if v > best[q]:
                best[q] = v
                back[q] = length
    return best[n]


@nb.njit(cache=True)
def _cuts(back, n):  # type: ignore[no-untyped-def]
    m = 0
    q = n
    while q > 0:
        q -= back[q]
        if q > 0:
            m += 1
    out = np.empty(m, dtype=np.int64)
    q = n
    while q > 0:
        q -= back[q]
        if q > 0:
            m -= 1
            out[m] = q
    return out


@nb.njit(cache=True)
def append_best(scores, cuts, counts, k, at):  # type: ignore[no-untyped-def]
    """The best segmentation of span k (its word scores `scores`) appended to the flat `cuts` at `at`, its cut
    count in counts[k]; returns where the next span's cuts go. The one tail of every many-span Viterbi."""
    n = scores.shape[0]
    back = np.zeros(n + 1, dtype=np.int64)
    _forward(scores, back)
    found = _cuts(back, n)
    cuts[at:at + len(found)] = found
    counts[k] = len(found)
    return at + len(found)


@nb.njit(cache=True)
def append_best_within(values, depth, ev, unknown, weight, theta, char_len, runs, cuts, counts, k, at):  # type: ignore[no-untyped-def]
    """combine() of the word values `values` then append_best(), visiting at p only the lengths up to depth[p]
    (past it every value is -inf), the character's and the run's: each word's score is the same expression, and
    the words ending at q are compared in the same order (the longest first), so the cuts are the same. The stored
    model's search, where most of the max_len lengths at a position are no word."""
    n, max_len = values.shape
    best = np.full(n + 1, -np.inf)
    best[0] = 0.0
    back = np.zeros(n + 1, dtype=np.int64)
    for p in range(n):
        if char_len[p] == 0:
            continue
        start = ev[p] - theta if p > 0 else 0.0
        here = best[p]
        for length in range(1, min(max(depth[p], char_len[p], runs[p]), max_len, n - p) + 1):
            q = p + length
            if q < n and char_len[q] == 0:
                continue
            value = values[p, length - 1]
            if value > -np.inf:
                score = weight * value + start
            elif length == char_len[p] or length == runs[p]:
                score = weight * unknown + start
            else:
                continue
            v = here + score
            if v > best[q]:
                best[q] = v
                back[q] = length
    found = _cuts(back, n)
    cuts[at:at + len(found)] = found
    counts[k] = len(found)
    return at + len(found)


def evidence_offsets(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Where span k's evidence (hi[k] − lo[k] + 1 values, boundaries 0..n) starts in a flat array; the last
    entry is the array's length."""
    return np.concatenate([[0], np.cumsum(np.asarray(hi) - np.asarray(lo) + 1)]).astype(np.int64)


@nb.njit(cache=True)
def _word_scores(fcand, ev, values, unknown, weight, theta, lbl, offset, step, char_len, runs, out):  # type: ignore[no-untyped-def]
    """`WordScores` of one span into out[p, L-1]; a word may not start or end inside a UTF-8 character."""
    n, max_len = out.shape
    for p in range(n):
        for length in range(1, max_len + 1):
            c = fcand[p, length - 1]
            out[p, length - 1] = values[offset[c] + step * (length - lbl[c] - 1)] if c >= 0 else -np.inf
    combine(out, ev, unknown, weight, theta, char_len, runs)


@nb.njit(cache=True)
def combine(out, ev, unknown, weight, theta, char_len, runs):  # type: ignore[no-untyped-def]
    """In place: the value of the word at (p, L) (-inf: not a word) becomes weight · value + [p > 0] ·
    (evidence(p) − θ); a single character without a value, and the run of runs[p] tokens at p, get `unknown`;
    -inf where no word may go (past the end, inside a UTF-8 character). Shared by the class-tree path and the
    stored model (termx.wordbreak.ngram_tables)."""
    n, max_len = out.shape
    for p in range(n):
        start = ev[p] - theta if p > 0 else 0.0
        for length in range(1, max_len + 1):
            value = out[p, length - 1]
            out[p, length - 1] = -np.inf
            if p + length > n or char_len[p] == 0 or (p + length < n and char_len[p + length] == 0):
                continue
            if value > -np.inf:
                out[p, length - 1] = weight * value + start
            elif length == char_len[p] or length == runs[p]:
                out[p, length - 1] = weight * unknown + start


@nb.njit(cache=True)
def _segment_spans(fcand, ev, runs, ev_lo, lo, hi, values, unknown, weight, theta, lbl, offset, step, char_len,  # type: ignore[no-untyped-def]
                   max_len, cuts, counts):
    at = 0
    for k in range(len(lo)):
        n = hi[k] - lo[k]
        scores = np.empty((n, max_len))
        _word_scores(fcand[lo[k]:hi[k]], ev[ev_lo[k]:ev_lo[k] + n + 1], values, unknown, weight, theta, lbl, offset,
                     step, char_len[lo[k]:hi[k]], runs[ev_lo[k]:ev_lo[k] + n], scores)
        at = append_best(scores, cuts, counts, k, at)


def forward_bigram(uni: np.ndarray, tid: np.ndarray, start: np.ndarray, weight: float, keys: np.ndarray,
                   pair_counts: np.ndarray, context: np.ndarray, types: np.ndarray, discount: float, size: int
                   ) -> np.ndarray:
    """Viterbi over words in context: the word (p, L) after the word (p − L', L') scores weight · log P(w | v)
    + start[p], w = tid[p, L-1], v = tid[p-L', L'-1], where (absolute discounting with back-off to the unigram
    value, read as log P(w) from uni[p, L-1])

        P(w | v) = (max(c(v, w) − d, 0) + d · types(v) · P(w)) / c(v),

    c(v) counting v as a left context and types(v) its distinct successors; P(w) itself when v was never a left
    context; the first word scores weight · uni[0, L-1]. uni[p, L-1] = -inf forbids a word. `keys` are the sorted
    pair ids v · size + w, `pair_counts` their counts. Returns the cut offsets of the best segmentation."""
    return forward_pairs(uni, tid, start, weight, *pair_table(keys, pair_counts), context, types, discount, size)


def pair_table(keys: np.ndarray, pair_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pair ids `keys` (all >= 0) and their counts in ngram_tables' hash table (key: pair id + 1): the table,
    and the same table viewed as float64 (column 1: the count)."""
    table = valued_table(np.asarray(keys, dtype=np.uint64) + np.uint64(1),
                         np.ascontiguousarray(pair_counts, dtype=np.float64).view(np.uint64))
    return table, table.view(np.float64)


@nb.njit(cache=True, inline="always")
def _pair_count(table, counts, key):  # type: ignore[no-untyped-def]
    """c(v, w) of the pair id `key` from pair_table (0 when the pair never occurred)."""
    s = find_slot(table, np.uint64(key + 1))
    return 0.0 if s < 0 else counts[s, 1]


@nb.njit(cache=True)
def forward_pairs(uni, tid, start, weight, pair_keys, pair_values, context, types, discount, size):  # type: ignore[no-untyped-def]
    """forward_bigram with the pair counts in pair_table's hash table (built once per pass, not per document). The words
    are visited by start position, so that the finished states ending at p (v, c(v), d · types(v)) are gathered
    once for every word starting there, and exp(P(w)) is taken once per word; each state's score is the same
    expression, maximised in the same order (ascending L', the first best kept) as a search by end position."""
    n, max_len = uni.shape
    best = np.full((n + 1, max_len), -np.inf)
    back = np.zeros((n + 1, max_len), dtype=np.int64)
    left_best = np.empty(max_len)
    left_id = np.empty(max_len, dtype=np.int64)
    left_context = np.empty(max_len)
    left_weight = np.empty(max_len)
    left_len = np.empty(max_len, dtype=np.int64)
    for p in range(n):
        m = 0
        for before in range(1, min(p, max_len) + 1):
            b = best[p, before - 1]
            if b == -np.inf:
                continue
            v = tid[p - before, before - 1]
            left_best[m] = b
            left_id[m] = v * size
            left_context[m] = context[v]
            left_weight[m] = discount * types[v]
            left_len[m] = before
            m += 1
        here = start[p]
        for length in range(1, min(n - p, max_len) + 1):
            u = uni[p, length - 1]
            if u == -np.inf:
                continue
            q = p + length
            if p == 0:
                best[q, length - 1] = weight * u
                continue
            w = tid[p, length - 1]
            e = np.exp(u)
            top = -np.inf
            for k in range(m):
                cv = left_context[k]
                if cv == 0:
                    log_p = u
                else:
                    c = _pair_count(pair_keys, pair_values, left_id[k] + w)
                    log_p = np.log((max(c - discount, 0.0) + left_weight[k] * e) / cv)
                score = left_best[k] + weight * log_p + here
                if score > top:
                    top = score
                    back[q, length - 1] = left_len[k]
            best[q, length - 1] = top
    return _state_cuts(best, back, n, max_len)


@nb.njit(cache=True)
def _state_cuts(best, back, n, max_len):  # type: ignore[no-untyped-def]
    """The cut offsets of the best path of a search over (end, word length) states: the best last word (the
    longest among equals), then back[q, L-1] = the length of the word before."""
    last = 0
    for length in range(1, min(n, max_len) + 1):
        if best[n, length - 1] > -np.inf and (last == 0 or best[n, length - 1] >= best[n, last - 1]):
            last = length
    m = 0
    q, length = n, last
    while q - length > 0:
        q, length = q - length, back[q, length - 1]
        m += 1
    out = np.empty(m, dtype=np.int64)
    q, length = n, last
    while q - length > 0:
        q, length = q - length, back[q, length - 1]
        m -= 1
        out[m] = q
    return out
