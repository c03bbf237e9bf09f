"""ESA (Evaluation, Selection, Adjustment; Wang, Zhu, Tang and Fan, Computational Linguistics 37(3), 2011): an
unsupervised word breaker from substring frequencies and branching entropies, for bench/explore_esa.py.

The published method, as its two public reimplementations (esa-wordseg in Clojure, ESA++ in C++) compute it:

- Evaluation. For every n-gram W of n <= N characters: its frequency f(W), its left and right branching entropies
  Hl(W), Hr(W) (additively smoothed over the alphabet plus one boundary symbol), each "balanced" by its mean over
  the distinct n-grams of the same length: IV(W) = (f(W) / mean_n f)^n, and for two adjacent parts L, R the gap
  value LRV(L, R) = (Hr(L) / mean_|L| Hr · Hl(R) / mean_|R| Hl)^e, e the method's one parameter.
- Selection ("local maximum", dynamic programming over every span of a sequence): the goodness of a span is the
  larger of IV(span) and, over its split points, goodness(left) · goodness(right) · LRV(left, right): the entropies
  are those of the two whole parts of the split, not of the adjacent words.
- Adjustment. Every occurrence of an n-gram inside (as a proper substring of) a selected word is taken off its
  frequency; the next iteration evaluates IV with the adjusted frequencies (the means stay those of the raw counts,
  as ESA++ keeps them) and selects again, until the segmentation no longer changes or `iterations` are done.

Deviations, all forced by what the reimplementations leave undefined: sequences are the maximal runs of letters
and digits (Unicode L*, N*) of a line; every other character is a word of its own (ESA++ does the same with CJK
runs). A part longer than N characters has the entropies of a substring occurring once (one neighbour each side),
balanced by the means of length N; it is never a word itself. An adjusted frequency is floored at 1e-3 (so that a
character whose every occurrence lies inside selected words keeps a finite value). N-grams are keyed by a 64-bit
polynomial hash of their character ids (collisions: about 1e-8 for this corpus size).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numba as nb
import numpy as np

HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
FLOOR = 1e-3


def is_sequence_char(ch: str) -> bool:
    """Letters and digits make up ESA's sequences; anything else is a word by itself."""
    return unicodedata.category(ch)[0] in "LN"


@dataclass
class EsaCorpus:
    """The lines' sequences as one array of character ids (1..V, 0 after each sequence) and the statistics of
    every n-gram of up to `max_n` characters within a sequence (gid: its id per (length - 1, position), -1 where
    the n-gram would cross a sequence end)."""

    lines: list[str]
    ids: np.ndarray          # int64 (L,)
    seq_start: np.ndarray    # int64, per sequence: where it starts in ids
    seq_len: np.ndarray      # int64
    seq_line: np.ndarray     # int64, its line
    seq_offset: np.ndarray   # int64, its first character's offset in the line
    gid: np.ndarray          # int64 (max_n, L)
    freq: np.ndarray         # float64 per n-gram id
    log_hl: np.ndarray       # float64 per id: log(Hl / mean Hl of its length)
    log_hr: np.ndarray
    log_mean_f: np.ndarray   # float64 (max_n,) log of the mean frequency per length
    long_hl: float           # balanced log entropies of a part longer than max_n
    long_hr: float
    length: np.ndarray       # int64 per n-gram id
    max_n: int

    @classmethod
    def of(cls, lines: Sequence[str], max_n: int = 10, smoothing: float = 1e-6) -> EsaCorpus:
        alphabet: dict[str, int] = {}
        ids: list[int] = []
        starts, lens, where, offsets = [], [], [], []
        for k, line in enumerate(lines):
            at = 0
            while at < len(line):
                if not is_sequence_char(line[at]):
                    at += 1
                    continue
                end = at
                while end < len(line) and is_sequence_char(line[end]):
                    end += 1
                starts.append(len(ids))
                lens.append(end - at)
                where.append(k)
                offsets.append(at)
                ids.extend(alphabet.setdefault(ch, len(alphabet) + 1) for ch in line[at:end])
                ids.append(0)
                at = end
        arr = np.asarray(ids, dtype=np.int64)
        size = len(arr)
        events = len(alphabet) + 1
        gid = np.full((max_n, size), -1, dtype=np.int64)
        key = np.zeros(size, dtype=np.uint64)
        valid = np.ones(size, dtype=bool)
        freq, log_hl, log_hr, length, log_mean_f = [], [], [], [], []
        left = np.concatenate([[0], arr[:-1]])
        total = 0
        mean_hl = mean_hr = 1.0
        for m in range(1, max_n + 1):
            shifted = np.zeros(size, dtype=np.int64)
            shifted[:size - m + 1] = arr[m - 1:]
            valid &= shifted != 0
            key = key * HASH_MULTIPLIER + shifted.astype(np.uint64)
            pos = np.flatnonzero(valid)
            if not len(pos):
                max_n = m - 1
                gid = gid[:max_n]
                break
            _, inv, cnt = np.unique(key[pos], return_inverse=True, return_counts=True)
            gid[m - 1, pos] = inv + total
            right = arr[np.minimum(pos + m, size - 1)]
            hl = entropies(inv, left[pos], len(cnt), events, smoothing)
            hr = entropies(inv, right, len(cnt), events, smoothing)
            mean_hl, mean_hr = hl.mean(), hr.mean()
            freq.append(cnt.astype(np.float64))
            log_hl.append(np.log(hl / mean_hl))
            log_hr.append(np.log(hr / mean_hr))
            length.append(np.full(len(cnt), m, dtype=np.int64))
            log_mean_f.append(np.log(cnt.mean()))
            total += len(cnt)
        hapax = float(entropies(np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64), 1, events, smoothing)[0])
        return cls(list(lines), arr, np.asarray(starts, dtype=np.int64), np.asarray(lens, dtype=np.int64),
                   np.asarray(where, dtype=np.int64), np.asarray(offsets, dtype=np.int64), gid,
                   np.concatenate(freq), np.concatenate(log_hl), np.concatenate(log_hr),
                   np.asarray(log_mean_f), float(np.log(hapax / mean_hl)), float(np.log(hapax / mean_hr)),
                   np.concatenate(length), max_n)

    def select(self, exponent: float, freq: np.ndarray) -> np.ndarray:
        """Selection with frequencies `freq`: per position of ids, whether a word starts there."""
        log_iv = self.length * (np.log(np.maximum(freq, FLOOR)) - self.log_mean_f[self.length - 1])
        starts = np.zeros(len(self.ids), dtype=np.bool_)
        _select_all(self.seq_start, self.seq_len, self.gid, log_iv, self.log_hl, self.log_hr, self.long_hl,
                    self.long_hr, exponent, starts)
        return starts

    def adjusted(self, starts: np.ndarray) -> np.ndarray:
        """The raw frequencies less every occurrence inside a selected word (Adjustment)."""
        freq = self.freq.copy()
        _adjust(self.seq_start, self.seq_len, self.gid, starts, freq)
        return freq

    def run(self, exponent: float, iterations: int) -> list[np.ndarray]:
        """The selection of every iteration (the first from the raw frequencies), stopping early at a fixed
        point."""
        out: list[np.ndarray] = []
        freq = self.freq
        for _ in range(iterations):
            starts = self.select(exponent, freq)
            if out and np.array_equal(out[-1], starts):
                break
            out.append(starts)
            freq = self.adjusted(starts)
        return out

    def words(self, starts: np.ndarray) -> list[list[str]]:
        """Each line's words under the word starts `starts` (a character outside every sequence: a word)."""
        cut: list[set[int]] = [set() for _ in self.lines]
        for s, n, k, o in zip(self.seq_start.tolist(), self.seq_len.tolist(), self.seq_line.tolist(),
                              self.seq_offset.tolist(), strict=True):
            cut[k].update(o + i for i in np.flatnonzero(starts[s:s + n]).tolist())
            cut[k].add(o + n)
        out = []
        for line, cuts in zip(self.lines, cut, strict=True):
            for i, ch in enumerate(line):
                if not is_sequence_char(ch):
                    cuts.update((i, i + 1))
            edges = sorted(c for c in cuts | {0, len(line)} if 0 <= c <= len(line))
            out.append([line[a:b] for a, b in zip(edges, edges[1:], strict=False)])
        return out


def entropies(group: np.ndarray, neighbour: np.ndarray, groups: int, events: int, smoothing: float) -> np.ndarray:
    """Per group, the additively smoothed entropy (nats) of its neighbours over `events` possible ones."""
    key = group * events + neighbour
    pairs, count = np.unique(key, return_counts=True)
    owner = pairs // events
    total = np.bincount(group, minlength=groups).astype(np.float64) + events * smoothing
    p = (count + smoothing) / total[owner]
    h: np.ndarray = np.bincount(owner, weights=-p * np.log(p), minlength=groups).astype(np.float64)
    if smoothing > 0:
        seen = np.bincount(owner, minlength=groups)
        q = smoothing / total
        h = h + (events - seen) * (-q * np.log(q))
    return h


@nb.njit(cache=True)
def _select_all(seq_start, seq_len, gid, log_iv, log_hl, log_hr, long_hl, long_hr, exponent, starts):  # type: ignore[no-untyped-def]
    """Selection over every sequence: best[i, m] = max(IV(span), max over k of best[i, k] + best[i + k, m - k] +
    e · (log Hr(left) + log Hl(right))), all in logs; the split chosen is kept for the backtrace."""
    max_n = gid.shape[0]
    for q in range(len(seq_start)):
        s = seq_start[q]
        n = seq_len[q]
        best = np.full((n, n + 1), -np.inf)
        split = np.zeros((n, n + 1), dtype=np.int64)
        for m in range(1, n + 1):
            for i in range(n - m + 1):
                v = log_iv[gid[m - 1, s + i]] if m <= max_n else -np.inf
                k_best = 0
                for k in range(1, m):
                    hr = log_hr[gid[k - 1, s + i]] if k <= max_n else long_hr
                    hl = log_hl[gid[m - k - 1, s + i + k]] if m - k <= max_n else long_hl
                    c = best[i, k] + best[i + k, m - k] + exponent * (hr + hl)
                    if c > v:
                        v = c
                        k_best = k
                best[i, m] = v
                split[i, m] = k_best
        stack = [(0, n)]
        while stack:
            i, m = stack.pop()
            starts[s + i] = True
            k = split[i, m]
            if k > 0:
                stack.append((i, k))
                stack.append((i + k, m - k))


@nb.njit(cache=True)
def _adjust(seq_start, seq_len, gid, starts, freq):  # type: ignore[no-untyped-def]
    """Take every proper substring occurrence (of up to max_n characters) inside a selected word off its count."""
    max_n = gid.shape[0]
    for q in range(len(seq_start)):
        s = seq_start[q]
        n = seq_len[q]
        a = 0
        while a < n:
            b = a + 1
            while b < n and not starts[s + b]:
                b += 1
            w = b - a
            for i in range(w):
                for m in range(1, min(w - i, max_n) + 1):
                    if m < w:
                        freq[gid[m - 1, s + a + i]] -= 1.0
            a = b
