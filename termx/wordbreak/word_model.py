"""The `words` scorer: a word bigram model counted from the corpus's own spacing, for new text that has lost it.

A corpus that has its spaces (English text, code, logs) already says where its words end. `count_words` reads its
documents and counts each word (a maximal run of word characters — letters and digits — lower-cased) and each
pair of words that follow each other with only white space between them; that is the whole training, and what
is stored with the corpus (`WordCounts`: no parameter enters the counts, so `--param` values apply at load).
`WordModel` turns the counts into the tables of the compiled bigram Viterbi search
(termx.wordbreak.word_viterbi):

- a known word w: log P(w) = log c(w)/N; after a known word v, P(w | v) by absolute discounting with discount
  `discount` over the pairs seen `min_pair` times or more (fewer: the pair counts as unseen);
- an unknown word u (any run of word characters up to `max_len`): log P(u) = `unknown` + `unknown_len`·|u| +
  Σ log P(c) over its characters (character frequencies of the corpus's words);
- words seen fewer than `min_count` times are left out (they become unknown words).

New text is lower-cased the same way (a character whose lower case is longer stays as it is); the words come
back as written. White space in the input stays a boundary; a character that is no word character is a word of
its own. Defaults: `bench/tune_word_model.py` (development documents only, docs/segment.md).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from termx.errors import InputError
from termx.index.units import Unit
from termx.wordbreak.hash_table import valued_table
from termx.wordbreak.line_batches import Batch
from termx.wordbreak.word_viterbi import _ASCII, fill_filter, pair_keys, reversed_keys, segment_spans

FORMAT = 1
"""Version of the stored counts; counts stored in another format are counted again."""
WORD_DEFAULTS: dict[str, float] = {"discount": 0.9, "min_count": 1, "min_pair": 1, "unknown": -8.0,
                                   "unknown_len": 0.5}
"""The `words` scorer's parameters: what `bench/tune_word_model.py --seed 0` printed (development stories only)."""
_DENSE = 0x10000
"""Code points below this get their class and log P from a table built once per model."""
_TOKEN = re.compile(r"[^\W_]+|\S")


def word_params(options: Mapping[str, float]) -> dict[str, float]:
    """WORD_DEFAULTS overridden by `options` (InputError names a bad key; termx.limits checks the values)."""
    from termx.limits import check_word_params

    for key in options:
        if key not in WORD_DEFAULTS:
            raise InputError(f"the words scorer has no parameter {key!r}", "it takes " + ", ".join(WORD_DEFAULTS))
    return {**WORD_DEFAULTS, **check_word_params(options)}


@dataclass
class WordCounts:
    """Words (sorted), their counts, and the counts of adjacent pairs (ids into `words`)."""

    words: list[str]
    counts: np.ndarray   # (V,) int64
    pair_a: np.ndarray   # (P,) int32
    pair_b: np.ndarray   # (P,) int32
    pair_n: np.ndarray   # (P,) int64
    chars: dict[str, int] = field(default_factory=dict)  # character counts over the words' occurrences

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays to store."""
        blob, offsets = _blob(self.words)
        cps = np.array([ord(c) for c in self.chars], dtype=np.int64)
        return {"blob": blob, "offsets": offsets, "counts": self.counts, "pair_a": self.pair_a,
                "pair_b": self.pair_b, "pair_n": self.pair_n, "char_cp": cps,
                "char_n": np.array(list(self.chars.values()), dtype=np.int64)}

    @staticmethod
    def meta() -> dict[str, Any]:
        return {"format": FORMAT}

    @classmethod
    def from_stored(cls, arrays: Mapping[str, np.ndarray]) -> WordCounts:
        blob, offsets = np.asarray(arrays["blob"], dtype=np.uint8), np.asarray(arrays["offsets"])
        text = blob.tobytes()
        words = [text[offsets[k]:offsets[k + 1]].decode("utf-8") for k in range(len(offsets) - 1)]
        chars = {chr(int(c)): int(n) for c, n in zip(arrays["char_cp"], arrays["char_n"], strict=True)}
        return cls(words, np.asarray(arrays["counts"]), np.asarray(arrays["pair_a"]), np.asarray(arrays["pair_b"]),
                   np.asarray(arrays["pair_n"]), chars)


def _blob(words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    encoded = [w.encode("utf-8") for w in words]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(b) for b in encoded])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), offsets


def count_words(texts: Iterable[str]) -> WordCounts:
    """The word and pair counts of spaced `texts` (documents: no pair crosses one's end)."""
    words: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    for text in texts:
        tokens = _TOKEN.findall(text.lower())
        runs: list[str] = []
        for t in tokens:
            if t[0].isalnum():
                runs.append(t)
                continue
            _add(runs, words, pairs)
            runs = []
        _add(runs, words, pairs)
    vocab = sorted(words)
    ids = {w: k for k, w in enumerate(vocab)}
    chars: Counter[str] = Counter()
    for w, n in words.items():
        for c in w:
            chars[c] += n
    keys = list(pairs)
    return WordCounts(vocab, np.array([words[w] for w in vocab], dtype=np.int64),
                      np.array([ids[a] for a, _ in keys], dtype=np.int32),
                      np.array([ids[b] for _, b in keys], dtype=np.int32),
                      np.array([pairs[k] for k in keys], dtype=np.int64), dict(chars))


def _add(runs: list[str], words: Counter[str], pairs: Counter[tuple[str, str]]) -> None:
    words.update(runs)
    pairs.update(zip(runs, runs[1:], strict=False))


class WordModel:
    """The search tables of a WordCounts under parameters `params` (word_params) and `max_len` characters."""

    def __init__(self, counts: WordCounts, max_len: int = 20, params: Mapping[str, float] | None = None) -> None:
        if max_len < 1:
            raise InputError("`max_len` must be at least 1", params=("max_len",))
        self.max_len = int(max_len)
        self.params = word_params(params or {})
        p = self.params
        keep = counts.counts >= p["min_count"]
        keep &= np.array([len(w) <= self.max_len for w in counts.words], dtype=bool) if len(keep) else keep
        new_id = np.cumsum(keep) - 1
        kept = [w for w, k in zip(counts.words, keep, strict=True) if k]
        c = counts.counts[keep].astype(np.float64)
        total = max(float(counts.counts.sum()), 1.0)
        self.logp = np.log(c / total)
        d = p["discount"]
        pairs = (counts.pair_n >= p["min_pair"]) & keep[counts.pair_a] & keep[counts.pair_b] \
            if len(counts.pair_n) else np.zeros(0, dtype=bool)
        a, b = new_id[counts.pair_a[pairs]], new_id[counts.pair_b[pairs]]
        n = counts.pair_n[pairs].astype(np.float64)
        successors = np.bincount(a, minlength=len(kept)).astype(np.float64)
        gamma = np.where(successors > 0, d * successors / np.maximum(c, 1.0), 1.0)
        self.loggamma = np.log(np.maximum(gamma, 1e-300))
        self.blogp = np.log(np.maximum(n - d, 0.0) / c[a] + gamma[a] * c[b] / total) if len(a) else np.zeros(0)
        pkeys = np.empty(len(a), dtype=np.uint64)
        pair_keys(a.astype(np.int64), b.astype(np.int64), pkeys)
        self._btable = valued_table(pkeys, self.blogp.view(np.uint64))
        self._bvalues = self._btable.view(np.float64)
        size = max(1 << max(int(16 * len(pkeys)).bit_length(), 6), 64)  # 16 bits per pair: ~6 % false positives
        self._bits = np.zeros(size // 64, dtype=np.uint64)
        self._shift = 64 - (size.bit_length() - 1)
        fill_filter(pkeys, self._bits, self._shift)
        self.best_next = np.full(len(kept), -np.inf)
        np.maximum.at(self.best_next, a, self.blogp)
        self.lift_in = np.full(len(kept), -np.inf)
        np.maximum.at(self.lift_in, b, self.blogp - self.logp[b])
        self._wtable = _word_table(kept)
        self._short = _short_table(kept)
        self.words = len(kept)
        self.pairs = int(len(a))
        char_total = max(sum(counts.chars.values()), 1)
        self._char_cp = np.array(sorted(ord(ch) for ch in counts.chars), dtype=np.int64)
        self._char_lp = np.log(np.array([counts.chars[chr(cp)] for cp in self._char_cp], dtype=np.float64)
                               / char_total)
        self._unseen_lp = float(np.log(0.5 / char_total))
        self._dense: tuple[np.ndarray, np.ndarray] | None = None

    def segment_lines(self, lines: Sequence[str]) -> list[list[str]]:
        """The words of each line (white space in it stays a boundary)."""
        batch = Batch.of(lines, Unit.char)
        cps, cum = self._code_points(batch.joined)
        cuts = np.empty(max(int((batch.stops - batch.starts).sum()), 0), dtype=np.int64)
        counts = np.zeros(len(batch.starts), dtype=np.int64)
        p = self.params
        segment_spans(cps, cum, batch.starts, batch.stops, self._wtable, self._short, self.logp, self.loggamma,
                      self.best_next, self.lift_in, self._bits, self._shift, self._btable, self._bvalues, p["unknown"],
                      p["unknown_len"], self.max_len, cuts, counts)
        return batch.words(cuts, counts)

    def _code_points(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Lower-cased code points of `text` (−1: no word character) and the cumulative log P of its characters."""
        lower = text.lower()
        if len(lower) != len(text):
            lower = "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in text)
        cps = np.frombuffer(lower.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
        if self._dense is None:  # the Basic Multilingual Plane's classes and log P, once
            self._dense = self._char_values(np.arange(_DENSE, dtype=np.int64))
        inside = cps < _DENSE
        word_char, lp = self._dense[0][np.where(inside, cps, 0)], self._dense[1][np.where(inside, cps, 0)]
        if not inside.all():
            uniq, inverse = np.unique(cps[~inside], return_inverse=True)
            w, v = self._char_values(uniq)
            word_char[~inside], lp[~inside] = w[inverse], v[inverse]
        cum = np.zeros(len(cps) + 1)
        np.cumsum(lp, out=cum[1:])
        return np.where(word_char, cps, -1), cum

    def _char_values(self, cps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Whether each code point is a word character, and its log P (unseen: half a count)."""
        word_char = np.array([chr(int(c)).isalnum() for c in cps], dtype=bool)
        at = np.minimum(np.searchsorted(self._char_cp, cps), max(len(self._char_cp) - 1, 0))
        found = self._char_cp[at] == cps if len(self._char_cp) else np.zeros(len(cps), dtype=bool)
        lp = np.where(found, self._char_lp[at] if len(self._char_lp) else 0.0, self._unseen_lp)
        return word_char, lp


def _short_table(words: Sequence[str]) -> np.ndarray:
    """word_viterbi's `short`: the suffixes of one or two ASCII characters read backwards (a 1-character key c at
    c, a 2-character suffix "bc" at c·128 + b): word id, −1 for a suffix of words only, −2 for none."""
    short = np.full(_ASCII * _ASCII, -2, dtype=np.int64)
    for k, w in enumerate(words):
        for n in (1, 2):
            tail = w[-n:]
            if len(w) < n or any(ord(ch) >= _ASCII for ch in tail):
                continue
            at = ord(tail[-1]) if n == 1 else ord(tail[-1]) * _ASCII + ord(tail[0])
            if len(w) == n:
                short[at] = k
            elif short[at] == -2:
                short[at] = -1
    return short


def _word_table(words: Sequence[str]) -> np.ndarray:
    """The hash table of every word's suffixes read backwards: slot → (fingerprint, word id + 1; 0 for a suffix
    of words only)."""
    cps = np.frombuffer("".join(words).encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    offsets = np.zeros(len(words) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(w) for w in words])
    keys = np.empty(len(cps), dtype=np.uint64)
    word_of = np.empty(len(cps), dtype=np.int64)
    reversed_keys(cps, offsets, word_of, keys)
    order = np.lexsort((-word_of, keys))  # per key, a word id (if any) first
    keys, word_of = keys[order], word_of[order]
    first = np.ones(len(keys), dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    return valued_table(keys[first], (word_of[first] + 1).astype(np.uint64))
