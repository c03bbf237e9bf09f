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

from termx.wordbreak.ngram_tables import _SEED, _fingerprint, _slot


@nb.njit(cache=True)
def find_slot(table, fp):  # type: ignore[no-untyped-def]
    """The slot of key `fp` in an open-addressing table (termx.wordbreak.ngram_tables._hash_table), else −1."""
    mask = np.uint64(len(table) - 1)
    s = _slot(fp, mask)
    while table[s, 0] != 0:
        if table[s, 0] == fp:
            return s
        s = (s + 1) & (len(table) - 1)
    return -1


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
def _span(cps, cum, lo, n, wtable, logp, loggamma, best_next, lift_in, btable, bvalues, unk0, unk_len, max_len,
          top, top_slot, count, start, word, score, back_e, back_s, queue, gain, cuts, at):  # type: ignore[no-untyped-def]
    """Viterbi over cps[lo:lo+n]; appends the cut offsets (inside the span) at cuts[at:], returns the new end."""
    top[0] = 0.0
    top_slot[0] = -1
    count[0] = 0
    head = tail = 0  # queue[head:tail]: unknown-word starts, their gains decreasing
    for e in range(1, n + 1):
        count[e] = 1
        start[e, 0] = e - 1
        back_e[e, 0] = e - 1
        back_s[e, 0] = top_slot[e - 1]
        if cps[lo + e - 1] < 0:  # no word character: a word of its own, the context starts again
            head = tail = 0
            score[e, 0] = top[e - 1]  # the best path to e − 1, without the back-off weight of its last word
            if e > 1:
                score[e, 0], back_s[e, 0] = score[e - 1, 0], 0
            for s in range(1, count[e - 1]):
                if score[e - 1, s] > score[e, 0]:
                    score[e, 0] = score[e - 1, s]
                    back_s[e, 0] = s
            top[e] = score[e, 0]
            top_slot[e] = 0
            continue
        g = top[e - 1] - cum[lo + e - 1] - unk_len * (e - 1)  # the best unknown word: a sliding maximum
        while tail > head and gain[tail - 1] <= g:
            tail -= 1
        queue[tail], gain[tail] = e - 1, g
        tail += 1
        if queue[head] < e - max_len:
            head += 1
        j = queue[head]
        best = gain[head] + cum[lo + e] + unk_len * e + unk0
        start[e, 0], back_e[e, 0], back_s[e, 0] = j, j, top_slot[j]
        score[e, 0] = best
        fp = _SEED
        for length in range(1, min(max_len, e) + 1):
            j = e - length
            t = cps[lo + j]
            if t < 0:
                break
            fp = _fingerprint(fp, t)
            slot = find_slot(wtable, fp)
            if slot < 0:
                break
            w = np.int64(wtable[slot, 1]) - 1
            if w < 0:
                continue
            best = top[j] + logp[w]
            be, bs = j, top_slot[j]
            for s in range(1, count[j]):
                v = word[j, s]
                if score[j, s] + min(best_next[v], lift_in[w] + logp[w]) <= best:
                    continue  # no pair (v, w) can win
                b = find_slot(btable, pair_key(word[j, s], w))
                if b >= 0 and score[j, s] + bvalues[b, 1] > best:
                    best = score[j, s] + bvalues[b, 1]
                    be, bs = j, s
            c = count[e]
            count[e] = c + 1
            start[e, c], word[e, c], score[e, c], back_e[e, c], back_s[e, c] = j, w, best, be, bs
        top[e] = score[e, 0]
        top_slot[e] = 0
        for s in range(1, count[e]):
            v = score[e, s] + loggamma[word[e, s]]
            if v > top[e]:
                top[e] = v
                top_slot[e] = s
    if n == 0:
        return at
    e, slot = n, 0
    for s in range(1, count[n]):
        if score[n, s] > score[n, slot]:
            slot = s
    first = at
    while e > 0:
        j = start[e, slot]
        if j > 0:
            cuts[at] = j
            at += 1
        e, slot = back_e[e, slot], back_s[e, slot]
        if slot < 0:
            break
    cuts[first:at] = cuts[first:at][::-1].copy()
    return at


@nb.njit(cache=True)
def segment_spans(cps, cum, starts, stops, wtable, logp, loggamma, best_next, lift_in, btable, bvalues, unk0, unk_len,  # type: ignore[no-untyped-def]
                  max_len, cuts, counts):
    """The best segmentation of each span starts[k]..stops[k]-1 of `cps` (code points, lower-cased; −1 for a
    character that is no word character; `cum`: cumulative log P of the characters): its cuts, flat, and the
    count per span. `wtable`: slot → (fingerprint, word id + 1, 0 for a suffix only); `btable` / `bvalues`: slot
    → (pair fingerprint, its log P(w | v) as float64 bits / the same memory as float64); best_next[v]: the
    largest log P(w | v) of v's pairs, lift_in[w] the largest log P(w | v) − log P(w) of w's: bounds that skip
    pair look-ups that cannot win."""
    longest = 0
    for k in range(len(starts)):
        longest = max(longest, stops[k] - starts[k])
    width = max_len + 1
    top = np.empty(longest + 1)
    top_slot = np.empty(longest + 1, dtype=np.int64)
    count = np.empty(longest + 1, dtype=np.int64)
    start = np.empty((longest + 1, width), dtype=np.int64)
    word = np.empty((longest + 1, width), dtype=np.int64)
    score = np.empty((longest + 1, width))
    back_e = np.empty((longest + 1, width), dtype=np.int64)
    back_s = np.empty((longest + 1, width), dtype=np.int64)
    queue = np.empty(longest + 1, dtype=np.int64)
    gain = np.empty(longest + 1)
    at = 0
    for k in range(len(starts)):
        before = at
        at = _span(cps, cum, starts[k], stops[k] - starts[k], wtable, logp, loggamma, best_next, lift_in, btable,
                   bvalues, unk0, unk_len, max_len, top, top_slot, count, start, word, score, back_e, back_s, queue,
                   gain, cuts, at)
        counts[k] = at - before
