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


@nb.njit(cache=True)
def _fill(tokens, sa, lcp, n_max, words):  # type: ignore[no-untyped-def]
    # Each distinct run is inserted once: the runs starting at rank r that are longer than LCP[r-1] start no
    # earlier suffix (suffixes sorted), and their first LCP[r-1] prefix hashes are the previous rank's.
    n_words = len(words)
    h = np.zeros(n_max + 1, dtype=np.int64)
    for r in range(len(sa)):
        shared = lcp[r - 1] if r > 0 else 0
        if shared >= n_max:
            continue
        p = sa[r]
        for length in range(shared + 1, n_max + 1):
            t = np.int64(tokens[p + length - 1])
            if t == 0:
                break
            h[length] = (h[length - 1] * BASE + t + 1) % PRIME
            words[(_spread(h[length]) * n_words) >> 31] |= _mask(h[length])


@nb.njit(cache=True)
def _spread(h):  # type: ignore[no-untyped-def]
    x = h ^ (h >> 16)
    x = (x * SPREAD) & 0x7FFFFFFF
    x = x ^ (x >> 16)
    x = (x * SPREAD) & 0x7FFFFFFF
    return x ^ (x >> 16)


@nb.njit(cache=True)
def _mask(h):  # type: ignore[no-untyped-def]
    m = (h * MIX) & 0xFFFFFFFF
    first = m >> 26
    step = ((m >> 20) & 63) | 1
    bits = np.uint64(0)
    for i in range(K):
        bits |= np.uint64(1) << np.uint64((first + i * step) & 63)
    return bits


def distinct_runs(lcp: np.ndarray, doc_len: np.ndarray, n_max: int = NGRAM_MAX) -> int:
    """Distinct runs of 1..n_max tokens of the documents: every suffix's first min(n_max, its length) runs, less
    those it shares with the suffix before it in rank order."""
    lens = doc_len.astype(np.int64)
    full = np.where(lens >= n_max, n_max * (lens - n_max) + n_max * (n_max + 1) // 2, lens * (lens + 1) // 2)
    return int(full.sum() - np.minimum(lcp.astype(np.int64), n_max).sum())


def build_filter(tokens: np.ndarray, sa: np.ndarray, lcp: np.ndarray, doc_len: np.ndarray) -> np.ndarray:
    """The filter words of a shard (its token array, suffix array and clipped LCP), BITS_PER_NGRAM bits per run."""
    n_words = max(1, -(-distinct_runs(lcp, doc_len) * BITS_PER_NGRAM // 64))
    words = np.zeros(n_words, dtype=np.uint64)
    _fill(tokens, sa, lcp, NGRAM_MAX, words)
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
