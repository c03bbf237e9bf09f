"""Term candidates of a loaded index: the longest member of each left-maximal class that begins and ends like a
term (numba kernels over the suffix array), with its surface form and its length-aware Poisson null.

docs/terms.md states the candidate rules exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba as nb
import numpy as np

from termx.errors import TermxError
from termx.index.loaded_index import LoadedIndex
from termx.index.units import WORD_RE, Unit
from termx.poisson import length_aware_poisson_adaptation
from termx.terms.token_kinds import BREAK, INNER, PREPOSITIONS, SPACE, STOP_WORDS, WORD, token_kinds

CANDIDATE_RULES = 2        # bump when the rules change: stored candidate sets of older rules are rebuilt
SPACED_FRACTION = 0.05     # byte/char text whose tokens are at least 5 % spaces is "spaced" (words between spaces)
NULL_BINS = 1000           # document-length groups of the length-aware Poisson null (exact below this many)
P0_CEILING = 1.0 - 1e-15  # p0 stays below 1, so that log(1 − p0) is finite


@dataclass
class Candidates:
    """One shard's term candidates: class indices (walk order), their null adaptation and surface forms."""

    cls: np.ndarray     # int64 indices into the loaded index's class arrays
    length: np.ndarray  # int32 tokens of each candidate (a member of its class: lbl < length <= sil)
    p0: np.ndarray      # float64 Pr(k >= 2 | k >= 1) under the length-aware Poisson null, per candidate
    terms: list[str]
    spaced: bool


_HASH_PRIME = np.uint64(1099511628211)
_HASH_SEED = np.uint64(14695981039346656037)


@nb.njit(cache=True, inline="always")
def _wordish(k):  # type: ignore[no-untyped-def]
    """A word character/token: a letter or another word character (digits, underscore; stop words)."""
    return k == WORD or k == INNER


@nb.njit(cache=True, nogil=True)  # nogil: jdf runs candidates beside its sketch walk
def _left_contexts(tokens, kind, spaced):  # type: ignore[no-untyped-def]
    """Left context of every position: 0 when what precedes cannot begin a term (document start, punctuation,
    a digit, a stop word), else the preceding token, or in spaced text after a space a 64-bit hash of the
    preceding word when it begins with a letter (bit 62 set, so it never equals a token id)."""
    ctx = np.zeros(len(tokens), dtype=np.int64)
    h = _HASH_SEED
    prev_word = np.uint64(0)
    in_word = False
    letter_first = False
    for p in range(1, len(tokens)):
        t = tokens[p - 1]
        k = kind[p - 1]
        if _wordish(k):
            if not in_word:
                h = _HASH_SEED
                in_word = True
                letter_first = k == WORD
            h = (h ^ np.uint64(t)) * _HASH_PRIME
            if k == WORD:
                ctx[p] = t
        elif k == SPACE and spaced:
            if in_word:
                prev_word = h if letter_first else np.uint64(0)
                in_word = False
            if prev_word != 0:
                ctx[p] = np.int64(prev_word & np.uint64((1 << 62) - 1)) | (1 << 62)
        else:
            in_word = False
            prev_word = np.uint64(0)
    return ctx


def left_maximal(ctx: np.ndarray, sa_: np.ndarray, cls_i: np.ndarray, cls_j: np.ndarray) -> np.ndarray:
    """True for classes whose occurrences are not all preceded by the same context (`_left_contexts`; a
    context 0 — nothing a term could be extended by — counts as different from every other)."""
    out = np.empty(len(cls_i), dtype=np.bool_)
    _left_maximal(ctx, np.asarray(sa_), np.asarray(cls_i), np.asarray(cls_j), out)
    return out


@nb.njit(cache=True, nogil=True)  # nogil: jdf runs candidates beside its sketch walk
def _left_maximal(ctx, sa_, cls_i, cls_j, out):  # type: ignore[no-untyped-def]
    """One pass over the ranks: prefix counts of context-0 suffixes and of context changes between neighbours,
    then per class <i,j> whether it holds either."""
    n = len(sa_)
    zeros = np.empty(n + 1, dtype=np.int64)
    changes = np.empty(max(n, 1), dtype=np.int64)
    z = 0
    c = 0
    zeros[0] = 0
    prev = zeros[0]  # an int64, as the contexts are
    for w in range(n):
        left = ctx[sa_[w]]
        if left == 0:
            z += 1
        zeros[w + 1] = z
        if w > 0 and left != prev:
            c += 1
        changes[w] = c
        prev = left
    for k in range(len(cls_i)):
        i = cls_i[k]
        j = cls_j[k]
        out[k] = zeros[j + 1] - zeros[i] > 0 or changes[j] - changes[i] > 0


def _ascii_lower(unit: Unit, tokens: np.ndarray, vocab: list[str] | None) -> np.ndarray:
    """Per position: the lower-case ASCII code of a letter A-Z/a-z, else 0 (for matching stop words)."""
    if unit is Unit.byte:
        table = np.zeros(256, dtype=np.uint8)
    else:
        assert vocab is not None
        table = np.zeros(len(vocab) + 1, dtype=np.uint8)
    for t in range(1, len(table)):
        ch = chr(t) if unit is Unit.byte else vocab[t - 1]  # type: ignore[index]
        if len(ch) == 1 and ch.isascii() and ch.isalpha():
            table[t] = ord(ch.lower())
    return table[np.asarray(tokens)]


def _stop_hashes() -> np.ndarray:
    """The sorted 64-bit hashes `_stop_word` compares with."""
    out = []
    for w in STOP_WORDS:
        h = int(_HASH_SEED)
        for ch in w:
            h = ((h ^ ord(ch)) * int(_HASH_PRIME)) & 0xFFFFFFFFFFFFFFFF
        out.append(h)
    return np.array(sorted(out), dtype=np.uint64)


@nb.njit(cache=True)
def _stop_word(lower, start, end, stops):  # type: ignore[no-untyped-def]
    """Is tokens[start:end] (ASCII letters, lower-cased in `lower`) one of the stop words hashed in `stops`?"""
    h = _HASH_SEED
    for x in range(start, end):
        if lower[x] == 0:
            return False
        h = (h ^ np.uint64(lower[x])) * _HASH_PRIME
    k = np.searchsorted(stops, h)
    return k < len(stops) and stops[k] == h


def _stop_counts(unit: Unit, tokens: np.ndarray, vocab: list[str] | None,
                 glue: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Word units: prefix counts over positions of the loose prepositions and of the other loose stop words
    (position k holds the count before k), so that a member's inner stop words are two subtractions; empty
    otherwise. Loose: white space on both sides — "s" in "Bernoulli's", "out" in "cut-out" are parts of words."""
    if unit is not Unit.word:
        return np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    assert vocab is not None and glue is not None
    lower = [v.lower() for v in vocab]
    loose = ~glue & ~np.concatenate((glue[1:], [False]))
    prep = np.array([False] + [w in PREPOSITIONS for w in lower])[np.asarray(tokens)] & loose
    other = np.array([False] + [w in STOP_WORDS and w not in PREPOSITIONS for w in lower])[np.asarray(tokens)] & loose
    return (np.concatenate(([0], np.cumsum(prep, dtype=np.int64))),
            np.concatenate(([0], np.cumsum(other, dtype=np.int64))))


@nb.njit(cache=True, nogil=True)  # nogil: jdf runs candidates beside its sketch walk
def _select(sa_, cls_i, cls_j, cls_lbl, cls_sil, max_len, left_max, kind, cont, start_ok, spaced,  # type: ignore[no-untyped-def]
            lower, stops, words, n_prep, n_other, out):
    """out[c] = length of class c's candidate, 0 for none: its longest member of at most max_len tokens that
    holds no breaking token, begins and ends with a whole word character/token, in a word corpus holds no loose
    stop word inside but one preposition (at its first occurrence in suffix order, as its surface form), and in
    spaced text occurs as whole words at least half the time and neither begins nor ends with a stop word
    (docs/terms.md)."""
    for c in range(len(cls_i)):
        if not left_max[c]:
            continue
        i = cls_i[c]
        j = cls_j[c]
        lbl = cls_lbl[c]
        sil = cls_sil[c]
        p = sa_[i]
        if kind[p] != WORD or cont[p]:
            continue
        freq = j - i + 1
        if spaced and 2 * (start_ok[j + 1] - start_ok[i]) < freq:
            continue   # mostly starts inside a word
        limit = min(sil, max_len)
        for t in range(limit):
            if kind[p + t] == BREAK:
                limit = t
                break
        for m in range(limit, lbl, -1):
            if cont[p + m]:
                continue   # cuts a UTF-8 character
            q = p + m - 1
            while cont[q]:
                q -= 1
            if kind[q] != WORD:
                continue
            if words and (n_other[p + m] - n_other[p] > 0 or n_prep[p + m] - n_prep[p] > 1):
                continue   # a stop word inside other than one preposition
            if spaced:
                if m < sil:
                    if _wordish(kind[p + m]):
                        continue   # every occurrence goes on inside the same word
                else:
                    whole = 0
                    for w in range(i, j + 1):
                        s = sa_[w]
                        if not _wordish(kind[s - 1]) and not _wordish(kind[s + m]):
                            whole += 1
                    if 2 * whole < freq:
                        continue
                first = p
                while first < p + m and _wordish(kind[first]):
                    first += 1
                last = p + m
                while _wordish(kind[last - 1]):
                    last -= 1
                if _stop_word(lower, p, first, stops) or _stop_word(lower, last, p + m, stops):
                    continue
            out[c] = m
            break


def _glue(texts: Sequence[str], doc_len: np.ndarray, n_total: int) -> np.ndarray:
    """Word units: glue[p] = token p directly follows the previous token with no white space in the text."""
    glue = np.zeros(n_total, dtype=bool)
    at = 0
    for d, text in enumerate(texts):
        spans = np.array([m.span() for m in WORD_RE.finditer(text)], dtype=np.int64).reshape(-1, 2)
        if len(spans) != doc_len[d]:
            raise TermxError(f"document {d} no longer tokenizes as it was indexed",
                             "rebuild the corpus (index it again with `replace=True`)", ("replace",))
        glue[at + 1: at + len(spans)] = spans[1:, 0] == spans[:-1, 1]
        at += len(spans) + 1
    return glue


def _surface(index: LoadedIndex, starts: np.ndarray, lengths: np.ndarray, glue: np.ndarray | None) -> list[str]:
    """Each candidate's text at its first occurrence in suffix order (word units keep that occurrence's
    spacing: "anti-corruption", not "anti - corruption")."""
    tokens = np.asarray(index.tokens)
    spans = list(zip(starts.tolist(), lengths.tolist(), strict=True))
    if index.unit is Unit.byte:
        blob = tokens.tobytes()
        return [blob[p: p + n].decode("utf-8") for p, n in spans]
    vocab = index.vocab
    assert vocab is not None
    if index.unit is Unit.char:
        return ["".join([vocab[t - 1] for t in tokens[p: p + n].tolist()]) for p, n in spans]
    assert glue is not None
    out = []
    for p, n in spans:
        words = [vocab[t - 1] for t in tokens[p: p + n].tolist()]
        out.append("".join(w if k == 0 or glue[p + k] else " " + w for k, w in enumerate(words)))
    return out


def space_count(index: LoadedIndex) -> int:
    """Tokens of a shard that are white space (byte/char units; 0 for words): text is "spaced" when they are at
    least SPACED_FRACTION of all its tokens, counted over every shard of a corpus."""
    if index.unit is Unit.word:
        return 0
    kind, _ = token_kinds(index.unit, np.asarray(index.tokens), index.vocab)
    return int(np.count_nonzero(kind == SPACE))


def is_spaced(spaces: int, tokens: int) -> bool:
    """Whether text with `spaces` white-space tokens out of `tokens` is spaced (words between spaces)."""
    return spaces >= SPACED_FRACTION * max(tokens, 1)


def candidate_classes(index: LoadedIndex, texts: Sequence[str] | None = None, max_len: int | None = None,
                      spaced: bool | None = None) -> Candidates:
    """The term candidates of one loaded shard (word units need its document texts for spacing).

    Per left-maximal class, the longest member (at most `max_len` tokens, default the corpus's rep_cap) that
    holds no breaking token, begins and ends like a term and (word units) holds no stop word inside but one
    preposition (`_select`); docs/terms.md has the rules. `spaced`:
    whether the corpus is spaced text (default: decided from this shard, right for a one-shard corpus).
    """
    tokens = np.asarray(index.tokens)
    sa_ = np.asarray(index.sa)
    cls_i, cls_j = np.asarray(index.cls_i), np.asarray(index.cls_j)
    cls_sil = np.asarray(index.cls_sil)
    kind, cont = token_kinds(index.unit, tokens, index.vocab)
    if spaced is None:
        spaced = index.unit is not Unit.word and is_spaced(int(np.count_nonzero(kind == SPACE)), index.n)
    ctx = _left_contexts(tokens, kind, spaced)
    before = kind[sa_.astype(np.int64) - 1]
    start_ok = np.concatenate(([0], np.cumsum((before != WORD) & (before != INNER))))
    lengths = np.zeros(len(cls_i), dtype=np.int32)
    lower = _ascii_lower(index.unit, tokens, index.vocab) if spaced else np.zeros(1, dtype=np.uint8)
    glue = None
    if index.unit is Unit.word:
        if texts is None:
            raise TermxError("word-unit candidates need the document texts")
        glue = _glue(texts, np.asarray(index.doc_len), len(tokens))
    n_prep, n_other = _stop_counts(index.unit, tokens, index.vocab, glue)
    _select(sa_, cls_i, cls_j, np.asarray(index.cls_lbl), cls_sil,
            max_len if max_len is not None else index.corpus.rep_cap, left_maximal(ctx, sa_, cls_i, cls_j),
            kind, cont, start_ok, spaced, lower, _stop_hashes(), index.unit is Unit.word, n_prep, n_other, lengths)
    cls = np.flatnonzero(lengths)
    starts = sa_[cls_i[cls]].astype(np.int64)
    freq = cls_j[cls].astype(np.int64) - cls_i[cls] + 1
    p0 = np.minimum(length_aware_poisson_adaptation(freq, index.doc_len, NULL_BINS), P0_CEILING)
    return Candidates(cls, lengths[cls], p0, _surface(index, starts, lengths[cls], glue), spaced)
