"""The compiled search of the `words` scorer (termx.wordbreak.word_model): bigram Viterbi over new text.

A state is a word ending at a position: every known word (a key of the vocabulary table) and, per end position,
the best unknown word (any run of word characters up to `max_len`, scored by the unknown-word model). A path's
score is the sum of log P(w | previous word) with absolute discounting:

    P(w | v) = max(c(v, w) − d, 0) / c(v) + γ(v) · P(w),   γ(v) = d · T(v) / c(v)   (T(v): v's distinct successors)

P(w) = c(w) / N for a known word; an unknown word, or a known one after an unknown word or at the start of a chunk,
has no pair and gets γ = 1. Since the backed-off term γ(v) · P(w) depends on w only through P(w), the search keeps
per position the best `score + log γ` over its states (`top`) and looks up pairs only between known words; the
result is the exact best path under the model (tests compare with brute force). A character that is no word
character (punctuation, symbols) is a word of its own, scored 0, after which the context starts again.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from termx.wordbreak.hash_table import find_slot
from termx.wordbreak.ngram_tables import _SEED, _fingerprint

_ASCII = 128
"""Suffixes of one or two ASCII characters are looked up in a dense table (`short`) instead of the hash table."""


@nb.njit(cache=True)
def pair_key(v, w):  # type: ignore[no-untyped-def]
    """The fingerprint of the word pair (v, w) (ids from 0)."""
    return _fingerprint(_fingerprint(_SEED, v + 1), w + 1)


@nb.njit(cache=True)
def reversed_keys(chars, offsets, word_of_key, keys):  # type: ignore[no-untyped-def]
    """Fingerprints of every suffix of every word read backwards (word k is chars[offsets[k]:offsets[k+1]]), the
    walk of the search from an end position; word_of_key[i] is the word keys[i] completes, else -1. Duplicates
    are left for the caller to resolve."""
    at = 0
    for k in range(len(offsets) - 1):
        fp = _SEED
        for p in range(offsets[k + 1] - 1, offsets[k] - 1, -1):
            fp = _fingerprint(fp, chars[p])
            keys[at] = fp
            word_of_key[at] = k if p == offsets[k] else -1
            at += 1


@nb.njit(cache=True)
def pair_keys(a, b, keys):  # type: ignore[no-untyped-def]
    for k in range(len(a)):
        keys[k] = pair_key(a[k], b[k])


@nb.njit(cache=True)
def _bit(fp, shift):  # type: ignore[no-untyped-def]
    """A pair's bit in the filter (2^(64 − shift) bits), from other bits of its fingerprint than its slot's."""
    return np.int64((fp * np.uint64(0xFF51AFD7ED558CCD)) >> np.uint64(shift))


@nb.njit(cache=True)
def fill_filter(keys, bits, shift):  # type: ignore[no-untyped-def]
    """Set the bit of every key: a pair whose bit is clear is no pair (one look-up in a table that fits a cache)."""
    for k in range(len(keys)):
        b = _bit(keys[k], shift)
        bits[b >> 6] |= np.uint64(1) << np.uint64(b & 63)


@nb.njit(cache=True)
def _span(cps, cum, lo, n, wtable, short, logp, loggamma, best_next, lift_in, bits, shift, btable, bvalues, unk0,  # type: ignore[no-untyped-def]
          unk_len, max_len, top, top_state, first, start, word, score, back, queue, gain, cuts, at):
    """Viterbi over cps[lo:lo+n]; appends the cut offsets (inside the span) at cuts[at:], returns the new end.

    States are appended in the order of their end position: those ending at e are first[e]..first[e + 1] − 1, the
    first of them the best unknown word (or the lone non-word character) and then the known words; back[k] is
    the state before state k (−1: the span's start), top[e] the best score + log γ of e's states and top_state[e]
    the state that has it."""
    top[0] = 0.0
    top_state[0] = -1
    first[0] = first[1] = 0
    k = 0  # states so far
    head = tail = 0  # queue[head:tail]: unknown-word starts, their gains decreasing
    for e in range(1, n + 1):
        u = k  # the unknown word (or non-word character) ending at e
        k += 1
        start[u] = e - 1
        word[u] = -1
        back[u] = top_state[e - 1]
        if cps[lo + e - 1] < 0:  # no word character: a word of its own, the context starts again
            head = tail = 0
            score[u] = top[e - 1]  # the best path to e − 1, without the back-off weight of its last word
            for s in range(first[e - 1], first[e]):
                if s == first[e - 1] or score[s] > score[u]:
                    score[u] = score[s]
                    back[u] = s
            top[e] = score[u]
            top_state[e] = u
            first[e + 1] = k
            continue
        g = top[e - 1] - cum[lo + e - 1] - unk_len * (e - 1)  # the best unknown word: a sliding maximum
        while tail > head and gain[tail - 1] <= g:
            tail -= 1
        queue[tail], gain[tail] = e - 1, g
        tail += 1
        if queue[head] < e - max_len:
            head += 1
        j = queue[head]
        score[u] = gain[head] + cum[lo + e] + unk_len * e + unk0
        start[u], back[u] = j, top_state[j]
        fp = _SEED
        last = cps[lo + e - 1]
        for length in range(1, min(max_len, e) + 1):
            j = e - length
            t = cps[lo + j]
            if t < 0:
                break
            fp = _fingerprint(fp, t)
            if length <= 2 and last < _ASCII and t < _ASCII:  # one or two ASCII characters: a small table
                w = short[last * _ASCII + t if length == 2 else t]
                if w < -1:
                    break
            else:
                slot = find_slot(wtable, fp)
                if slot < 0:
                    break
                w = np.int64(wtable[slot, 1]) - 1
            if w < 0:
                continue
            best = top[j] + logp[w]
            before = top_state[j]
            bound = lift_in[w] + logp[w]
            for s in range(first[j] + 1, first[j + 1]):  # the known words ending at j
                v = word[s]
                if score[s] + min(best_next[v], bound) <= best:
                    continue  # no pair (v, w) can win
                fp_pair = pair_key(v, w)
                bit = _bit(fp_pair, shift)
                if not (bits[bit >> 6] >> np.uint64(bit & 63)) & np.uint64(1):
                    continue
                b = find_slot(btable, fp_pair)
                if b >= 0 and score[s] + bvalues[b, 1] > best:
                    best = score[s] + bvalues[b, 1]
                    before = s
            start[k], word[k], score[k], back[k] = j, w, best, before
            k += 1
        first[e + 1] = k
        top[e] = score[u]
        top_state[e] = u
        for s in range(u + 1, k):
            v = score[s] + loggamma[word[s]]
            if v > top[e]:
                top[e] = v
                top_state[e] = s
    if n == 0:
        return at
    state = first[n]
    for s in range(first[n] + 1, first[n + 1]):
        if score[s] > score[state]:
            state = s
    begin = at
    while state >= 0:
        if start[state] > 0:
            cuts[at] = start[state]
            at += 1
        state = back[state]
    cuts[begin:at] = cuts[begin:at][::-1].copy()
    return at


@nb.njit(cache=True)
def segment_spans(cps, cum, starts, stops, wtable, short, logp, loggamma, best_next, lift_in, bits, shift, btable,  # type: ignore[no-untyped-def]
                  bvalues, unk0, unk_len, max_len, cuts, counts):
    """The best segmentation of each span starts[k]..stops[k]-1 of `cps` (code points, lower-cased; −1 for a
    character that is no word character; `cum`: cumulative log P of the characters): its cuts, flat, and the
    count per span. `wtable`: slot → (fingerprint, word id + 1, 0 for a suffix only); `short`: for one ASCII
    character c at short[c], for two read backwards (c, then the one before it, b) at short[c·128 + b]: the word
    id, −1 for a suffix only, −2 for nothing; `btable` / `bvalues`: slot
    → (pair fingerprint, its log P(w | v) as float64 bits / the same memory as float64); best_next[v]: the
    largest log P(w | v) of v's pairs, lift_in[w] the largest log P(w | v) − log P(w) of w's: bounds that skip
    pair look-ups that cannot win."""
    longest = 0
    for k in range(len(starts)):
        longest = max(longest, stops[k] - starts[k])
    states = (longest + 1) * (max_len + 1)
    top = np.empty(longest + 1)
    top_state = np.empty(longest + 1, dtype=np.int64)
    first = np.empty(longest + 2, dtype=np.int64)
    start = np.empty(states, dtype=np.int64)
    word = np.empty(states, dtype=np.int64)
    score = np.empty(states)
    back = np.empty(states, dtype=np.int64)
    queue = np.empty(longest + 1, dtype=np.int64)
    gain = np.empty(longest + 1)
    at = 0
    for k in range(len(starts)):
        before = at
        at = _span(cps, cum, starts[k], stops[k] - starts[k], wtable, short, logp, loggamma, best_next, lift_in, bits,
                   shift, btable, bvalues, unk0, unk_len, max_len, top, top_state, first, start, word, score, back,
                   queue, gain, cuts, at)
        counts[k] = at - before
