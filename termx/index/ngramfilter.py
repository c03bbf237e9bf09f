"""A shard's "does not occur" filter: a blocked Bloom filter over every run of 1..NGRAM_MAX tokens of its documents.

A look-up on a corpus of many shards must tell, per shard, whether a pattern occurs 0 or 1 times, and only a binary
search over the suffix array can (a class row exists for strings that occur twice). The filter answers "cannot
occur" for most shards first, so the search runs only where the pattern may be: a run of at most NGRAM_MAX tokens
is tested by its own key, a longer one by up to MAX_WINDOWS of its NGRAM_MAX-token runs (every run of a pattern
that occurs is in the filter). False positives cost a search; a false negative is impossible, since every run of
every document is inserted (runs never cross a document's end: token 0 separates documents).

Layout (the stored format: sql/functions/ngram_filter.sql reads it, so the constants here never change; a
different filter needs a new ARRAY name): a run's key is one polynomial hash h < 2^31 of its token ids; it sets K
bits (chosen by a multiplicative hash of h) in one 64-bit word (word spread(h) * words >> 31: Lemire's
multiply-shift range reduction). The words are a little-endian uint64 array, stored as the shard's index
array ARRAY. The token ids are the corpus's (bytes: 1..255; char/word: the shared vocabulary's ids), the same
in every shard.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba as nb
import numpy as np

NGRAM_MAX = 8          # runs of 1..NGRAM_MAX tokens are inserted
K = 4                  # bits per key, in one 64-bit word
BITS_PER_NGRAM = 12    # filter bits per distinct run: about 1.6 % false positives (Putze et al.'s blocked filter)
MAX_WINDOWS = 4        # runs of NGRAM_MAX tokens tested for a longer pattern (first, last, evenly between)
PRIME, BASE = 2147483647, 1000003   # h = (h * BASE + t + 1) mod PRIME over the run's token ids t
SPREAD = 0x45D9F3B     # spread(h), an xor-shift-multiply finalizer, picks the word (runs that differ in one
MIX = 2654435761       # token only have close h); Knuth's multiplicative hash of h picks the K bits
ARRAY = "ngram_filter"


REGION_WORDS = 4096    # filter words per write bucket (32 kB, in L1): the build's writes go bucket by bucket


@nb.njit(cache=True)
def _mod(x):  # type: ignore[no-untyped-def]
    """x mod PRIME for 0 <= x < 2^62: PRIME = 2^31 - 1, so two folds of the high bits onto the low ones."""
    x = (x & PRIME) + (x >> 31)
    x = (x & PRIME) + (x >> 31)
    return x - PRIME if x >= PRIME else x


@nb.njit(cache=True)
def _fill(tokens, plcp, n_max, words, shift, cap):  # type: ignore[no-untyped-def]
    """Insert every distinct run once, in text order, where it occurs last in rank order: the runs starting at
    position p longer than PLCP[p] (its common prefix with the next suffix) start no later suffix.

    A run's hash is a difference of two prefix hashes, H(p, L) = P(p + L) - P(p) * BASE^L (the polynomial hash of
    the docstring above, computed without a chain per run), with P kept for the next NGRAM_MAX positions in a
    ring. Keys are first dealt into buckets of 2^shift filter words (cap keys each; a full bucket's keys are set
    at once), then set bucket by bucket, so each bucket's writes stay in a region that fits the L1 cache; a held
    key is its word within the bucket and the 12 bits of its Knuth hash that choose its bits (_mask_bits)."""
    n_words = len(words)
    n_buckets = ((n_words - 1) >> shift) + 1
    low = (1 << shift) - 1  # shift <= 19: a held key fits 31 bits
    held = np.empty(n_buckets * cap, dtype=np.int32)
    fill = np.zeros(n_buckets, dtype=np.int64)
    power = np.ones(n_max + 1, dtype=np.int64)
    for length in range(1, n_max + 1):
        power[length] = power[length - 1] * BASE % PRIME
    ring = np.zeros(16, dtype=np.int64)  # ring[x & 15] = P(x), the hash of tokens[:x]
    n = len(tokens)
    ahead = 0
    for p in range(n):
        while ahead < min(p + n_max, n):
            ring[(ahead + 1) & 15] = _mod(ring[ahead & 15] * BASE + np.int64(tokens[ahead]) + 1)
            ahead += 1
        shared = plcp[p] >> 32
        if shared >= n_max:
            continue
        start = ring[p & 15]
        for length in range(shared + 1, n_max + 1):
            if tokens[p + length - 1] == 0:
                break
            h = ring[(p + length) & 15] - _mod(start * power[length])
            if h < 0:
                h += PRIME
            w = (_spread(h) * n_words) >> 31
            b = w >> shift
            if fill[b] < cap:
                held[b * cap + fill[b]] = ((w & low) << 12) | (((h * MIX) & 0xFFFFFFFF) >> 20)
                fill[b] += 1
            else:
                words[w] |= _mask(h)
    for b in range(n_buckets):
        for e in range(b * cap, b * cap + fill[b]):
            key = held[e]
            words[(b << shift) | (key >> 12)] |= _mask_bits(key & 0xFFF)


@nb.njit(cache=True)
def _spread(h):  # type: ignore[no-untyped-def]
    x = h ^ (h >> 16)
    x = (x * SPREAD) & 0x7FFFFFFF
    x = x ^ (x >> 16)
    x = (x * SPREAD) & 0x7FFFFFFF
    return x ^ (x >> 16)


@nb.njit(cache=True)
def _mask(h):  # type: ignore[no-untyped-def]
    return _mask_bits(((h * MIX) & 0xFFFFFFFF) >> 20)


@nb.njit(cache=True)
def _mask_bits(sel):  # type: ignore[no-untyped-def]
    """The K bits of a key from bits 20..31 of its Knuth hash: the first bit, then a step (odd) modulo 64."""
    first = sel >> 6
    step = (sel & 63) | 1
    bits = np.uint64(0)
    for i in range(K):
        bits |= np.uint64(1) << np.uint64((first + i * step) & 63)
    return bits


def distinct_runs(lcp: np.ndarray, doc_len: np.ndarray, n_max: int = NGRAM_MAX) -> int:
    """Distinct runs of 1..n_max tokens of the documents: every suffix's first min(n_max, its length) runs, less
    those it shares with the suffix before it in rank order."""
    lens = doc_len.astype(np.int64)
    full = np.where(lens >= n_max, n_max * (lens - n_max) + n_max * (n_max + 1) // 2, lens * (lens + 1) // 2)
    return int(full.sum()) - int(_shared_runs(lcp, n_max))


@nb.njit(cache=True)
def _shared_runs(lcp, n_max):  # type: ignore[no-untyped-def]
    """Sum of min(LCP, n_max): one pass, no N-sized temporaries."""
    total = 0
    for v in lcp:
        total += min(v, n_max)
    return total


def build_filter(tokens: np.ndarray, plcp: np.ndarray, lcp: np.ndarray, doc_len: np.ndarray,
                 cap: int | None = None) -> np.ndarray:
    """The filter words of a shard (its token array, suffix.permuted_lcp and clipped LCP), BITS_PER_NGRAM bits per
    run; `cap` (keys held per write bucket before they are set directly) is a test's knob, by default ample."""
    runs = distinct_runs(lcp, doc_len)
    n_words = max(1, -(-runs * BITS_PER_NGRAM // 64))
    words = np.zeros(n_words, dtype=np.uint64)
    shift = REGION_WORDS.bit_length() - 1
    if cap is None:
        per = runs / (((n_words - 1) >> shift) + 1)
        cap = int(per + 6 * per ** 0.5) + 16  # keys are spread evenly over the buckets: rarely one overflows
    _fill(tokens, plcp, NGRAM_MAX, words, shift, cap)
    return words


def pattern_keys(ids: Sequence[int]) -> list[tuple[int, int]]:
    """(spread hash, bit mask) of each tested run of a pattern's token ids, as termx._ngram_keys computes them."""
    n = len(ids)
    width = min(n, NGRAM_MAX)
    keys = []
    for s in sorted({w * (n - width) // (MAX_WINDOWS - 1) for w in range(MAX_WINDOWS)}):
        h = 0
        for t in ids[s: s + width]:
            h = (h * BASE + int(t) + 1) % PRIME
        keys.append((int(_spread(h)), int(_mask(np.int64(h)))))
    return keys


def may_occur(words: np.ndarray, ids: Sequence[int]) -> bool:
    """False only when the pattern (token ids) occurs nowhere in the shard whose filter is `words`."""
    return all(int(words[(h * len(words)) >> 31]) & m == m for h, m in pattern_keys(ids))


def sql_markers() -> dict[str, str]:
    """The constants sql/functions/ngram_filter.sql is applied with (its markers), so SQL hashes as Python does."""
    return {"NMAX": str(NGRAM_MAX), "K": str(K), "WINDOWS": str(MAX_WINDOWS), "PRIME": str(PRIME),
            "BASE": str(BASE), "SPREAD": str(SPREAD), "MIX": str(MIX), "ARRAY": ARRAY}
