"""Boundary evidence from branching entropy: how unpredictable the next (or previous) token is at a position.

Inside a word the next character is nearly determined ("compan" → "y"); after a word anything can follow. The
class tree gives, for the longest member s of a class, the distribution of the token that follows s (its
children's sizes, plus one for each rank no child covers), hence the right branching entropy h_R(s); a shorter
member is always followed by the same token (h_R = 0). The left branching entropy h_L comes the same way from
an index of the reversed documents, built in memory. At a position b of a text, for n = 1..NB:

    evidence(b) = Σ_n [h_R(t[b-n:b]) − μ_R(n)] + [h_L(t[b:b+n]) − μ_L(n)]          (entropy above its mean)
                + Σ_{n≥2} [h_R(t[b-n:b]) − h_R(t[b-n:b-1])] + [h_L(t[b:b+n]) − h_L(t[b+1:b+n])]   (its rise)
                + bonus(class of t[b-1], class of t[b])                                        (class_bonus)

where μ(n) is the mean entropy of n-grams over all corpus positions, and strings that occur once (no
entropy to measure) are left out. (Tanaka-Ishii 2005; Jin & Tanaka-Ishii 2006; Magistry & Sagot 2012.)
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import numba as nb
import numpy as np

from termx.index.classes import enumerate_classes
from termx.index.loaded_index import LoadedIndex
from termx.index.suffix import clipped_lcp, suffix_array
from termx.index.units import Unit
from termx.wordbreak.candidates import ClassTree, class_tree

OTHER, DIGIT, LETTER, HAN, HIRAGANA, KATAKANA, HANGUL, PUNCT, POINT = range(9)
CLASSES = 9
POINTS = ".\uff0e"
"""Full stops, which are part of a number between digits (`POINT`, else punctuation)."""
_SCRIPTS = (("CJK", HAN), ("HIRAGANA", HIRAGANA), ("KATAKANA", KATAKANA), ("HANGUL", HANGUL))


def char_class(ch: str) -> int:
    """A coarse character class: digit, letter (by script for CJK and Hangul), full stop, punctuation/symbol,
    other."""
    cat = unicodedata.category(ch)
    if ch in POINTS:
        return POINT
    if cat[0] == "N":
        return DIGIT
    if cat[0] in "LM":
        name = unicodedata.name(ch, "")
        return next((cls for prefix, cls in _SCRIPTS if name.startswith(prefix)), LETTER)
    return PUNCT if cat[0] in "PS" else OTHER


def _class_of_code_point(cp: int) -> int:
    """char_class of one code point, as the table and _class_of give it (beyond the BMP: Han in planes 2-3)."""
    if cp < 0x10000:
        return char_class(chr(cp))
    return HAN if 0x20000 <= cp < 0x40000 else PUNCT


@cache
def code_point_classes() -> np.ndarray:
    """char_class of every code point of the Basic Multilingual Plane (beyond it: Han in planes 2-3, else
    symbols), as a table numba kernels can read."""
    return np.array([char_class(chr(c)) for c in range(0x10000)], dtype=np.int8)


def text_classes(text: str, unit: Unit) -> np.ndarray:
    """The class of the character at each token of `text` (every byte of a character carries its class)."""
    cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    # only the distinct code points of the text (the full table takes a second to build in a new process)
    distinct, where = np.unique(cps, return_inverse=True)
    classes = np.array([_class_of_code_point(int(c)) for c in distinct], dtype=np.int8)[where.ravel()]
    if unit is not Unit.byte or text.isascii():
        return classes
    sizes = np.array([len(ch.encode("utf-8")) for ch in text], dtype=np.int64)
    return np.repeat(classes, sizes)


def corpus_classes(index: LoadedIndex, start: int, stop: int) -> np.ndarray:
    """The class of the character at each corpus token start..stop-1 (byte corpora: decoded from UTF-8)."""
    table = code_point_classes()
    tokens = np.asarray(index.tokens[start:stop]).astype(np.int64)
    if index.unit is Unit.byte:
        out = np.zeros(len(tokens), dtype=np.int8)
        _utf8_classes(tokens, table, out)
        return out
    assert index.vocab is not None
    cps = np.array([0] + [ord(v) for v in index.vocab], dtype=np.int64)
    return _lookup(cps[tokens], table)


UNSPACED = (HAN, HIRAGANA, KATAKANA, HANGUL)
"""Scripts written without spaces between words."""
SCRIPT_SAMPLE = 1 << 20
"""Tokens of a corpus read to decide its script."""


BRANCHING_STEPS = 3
"""The steps `branching` reports: the reverse index, its class tree, the mean entropies."""

KANA_SHARE = 0.1
"""Kana among a corpus's unspaced letters above which it is Japanese (Chinese text has next to none; Japanese
prose has far more than this)."""


def script_kind(index: LoadedIndex) -> str:
    """Which defaults of termx.wordbreak.model.DEFAULTS fit the corpus (its first SCRIPT_SAMPLE tokens): "spaced"
    unless most letters are Han, Kana or Hangul; then "kana" where Kana is over KANA_SHARE of them (Japanese),
    else "unspaced" (Chinese, Korean)."""
    classes = corpus_classes(index, 0, min(len(index.tokens), SCRIPT_SAMPLE))
    unspaced = int(np.isin(classes, UNSPACED).sum())
    if unspaced <= int((classes == LETTER).sum()):
        return "spaced"
    kana = int(np.isin(classes, (HIRAGANA, KATAKANA)).sum())
    return "kana" if kana > KANA_SHARE * unspaced else "unspaced"


@nb.njit(cache=True)
def _class_of(cp, table):  # type: ignore[no-untyped-def]
    if cp < 0x10000:
        return table[cp]
    return HAN if 0x20000 <= cp < 0x40000 else PUNCT


@nb.njit(cache=True)
def _lookup(cps, table):  # type: ignore[no-untyped-def]
    out = np.empty(len(cps), dtype=np.int8)
    for k in range(len(cps)):
        out[k] = _class_of(cps[k], table)
    return out


@nb.njit(cache=True)
def _utf8_classes(tokens, table, out):  # type: ignore[no-untyped-def]
    p = 0
    n = len(tokens)
    while p < n:
        b = tokens[p]
        size = 1 if b < 0x80 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
        if b < 0x80:
            cp = b
        elif b < 0xC0:  # a stray continuation byte
            cp = 0xFFFD
            size = 1
        else:
            cp = b & (0x1F if size == 2 else 0x0F if size == 3 else 0x07)
            for k in range(1, size):
                if p + k < n:
                    cp = (cp << 6) | (tokens[p + k] & 0x3F)
        cls = _class_of(cp, table)
        for k in range(size):
            if p + k < n:
                out[p + k] = cls
        p += size


@dataclass
class Branching:
    """Both directions' class trees and per-class branching entropies of one corpus."""

    reverse: LoadedIndex   # the same documents, each reversed (classes only, no df)
    reverse_tree: ClassTree
    mean: np.ndarray       # (2, NB) mean h_R, h_L of n-grams over corpus positions


class EvidenceTables(NamedTuple):
    """What boundary evidence reads besides a span's candidates and classes, one value for the numba kernels: SIL
    and branching entropy of every class of both directions, the mean entropies, the class bonus (class_bonus) and
    whether a run of digits, letters or Katakana is a word (run_lengths)."""

    fsil: np.ndarray
    fbranch: np.ndarray
    rsil: np.ndarray
    rbranch: np.ndarray
    mean: np.ndarray
    bonus: np.ndarray
    runs: bool

    @classmethod
    def of(cls, index: LoadedIndex, tree: ClassTree, br: Branching, bonus: np.ndarray, runs: bool) -> EvidenceTables:
        """The tables of a corpus's index and its reverse index."""
        return cls(index.cls_sil, tree.branches, br.reverse.cls_sil, br.reverse_tree.branches, br.mean, bonus, runs)


def reversed_index(index: LoadedIndex) -> LoadedIndex:
    """An in-memory index of the corpus with every document reversed (h_L of s = h_R of reversed s)."""
    tokens = np.empty_like(np.asarray(index.tokens))
    _reverse_documents(np.asarray(index.tokens), index.doc_start.astype(np.int64), index.doc_len.astype(np.int64),
                       tokens)
    sa = suffix_array(tokens, index.n_docs)
    lcp = clipped_lcp(tokens, sa)
    c = enumerate_classes(lcp)
    keys = c.i.astype(np.int64) * (len(sa) + 1) + c.j
    order = np.argsort(keys, kind="stable").astype(np.int32)
    return LoadedIndex(index.corpus, index.shard_id, index.unit, tokens, sa, index.doc_start, index.doc_len, lcp,
                       c.i, c.j, c.lbl, c.sil, np.zeros((len(c.i), 0), np.int32), keys[order], order,
                       index.doc_names, index.vocab)


@nb.njit(cache=True)
def _reverse_documents(tokens, starts, lengths, out):  # type: ignore[no-untyped-def]
    for d in range(len(starts)):
        s = starts[d]
        n = lengths[d]
        for k in range(n):
            out[s + k] = tokens[s + n - 1 - k]
        out[s + n] = 0


def branching(index: LoadedIndex, tree: ClassTree, window: int,
              advance: Callable[[int], None] | None = None) -> Branching:
    """Reverse index, its tree, and the mean entropies μ(n), n = 1..window, over every corpus position;
    `advance(1)` after each of the three steps (a progress bar's total: BRANCHING_STEPS)."""
    step = advance or (lambda _: None)
    reverse = reversed_index(index)
    step(1)
    reverse_tree = class_tree(reverse)
    step(1)
    mean = np.stack([mean_entropy(index, tree, window), mean_entropy(reverse, reverse_tree, window)])
    step(1)
    return Branching(reverse, reverse_tree, mean)


def mean_entropy(index: LoadedIndex, tree: ClassTree, window: int) -> np.ndarray:
    """Mean h of the n-gram at a corpus position, over positions where it occurs twice or more, n = 1..window.

    Each class stands for freq positions for every length in (LBL, SIL]; only its longest member branches.
    """
    freq = (index.cls_j - index.cls_i + 1).astype(np.float64)
    lo = np.minimum(index.cls_lbl, window)
    hi = np.minimum(index.cls_sil, window)
    positions = np.bincount(hi, freq, window + 1) - np.bincount(lo, freq, window + 1)
    positions = np.cumsum(positions[::-1])[::-1][1:]  # classes with LBL < n <= SIL, for n = 1..window
    longest = index.cls_sil <= window
    entropy = np.bincount(index.cls_sil[longest], freq[longest] * tree.branches[longest], window + 1)[1:]
    return entropy / np.maximum(positions, 1)


@nb.njit(cache=True)
def _entropy(cand, sil, branch, q, length):  # type: ignore[no-untyped-def]
    """h of the candidate at row q, length `length`: -1 when it occurs once or not at all."""
    c = cand[q, length - 1]
    if c < 0:
        return -1.0
    return branch[c] if sil[c] == length else 0.0


def class_bonus(kappa: float, kappa_digit: float, kappa_han_kana: float, kappa_run: float) -> np.ndarray:
    """Evidence added at a boundary between two characters' classes (CLASSES × CLASSES, left class first): κ at a
    change of class, κ_d at a change to or from a digit, κ_hk from Han to Hiragana (okurigana), −κ inside a run of
    digits, −κ_r inside a run of Latin letters or of Katakana, 0 elsewhere inside a class."""
    bonus = np.full((CLASSES, CLASSES), kappa)
    bonus[DIGIT, :] = bonus[:, DIGIT] = kappa_digit
    bonus[HAN, HIRAGANA] = kappa_han_kana
    np.fill_diagonal(bonus, 0.0)
    bonus[DIGIT, DIGIT] = -kappa
    bonus[LETTER, LETTER] = bonus[KATAKANA, KATAKANA] = -kappa_run
    return bonus


@nb.njit(cache=True)
def effective_classes(classes):  # type: ignore[no-untyped-def]
    """The classes of a span with each run of at most three full-stop tokens between two digits made a digit ("3.5",
    "３．５" — three tokens in a byte corpus — and "3..5" are one number) and every other full stop punctuation."""
    out = classes.copy()
    n = len(classes)
    p = 0
    while p < n:
        if classes[p] != POINT:
            p += 1
            continue
        q = p
        while q < n and classes[q] == POINT:
            q += 1
        inner = p > 0 and q < n and q - p <= 3 and classes[p - 1] == DIGIT and classes[q] == DIGIT
        for k in range(p, q):
            out[k] = DIGIT if inner else PUNCT
        p = q
    return out


@nb.njit(cache=True)
def run_lengths(classes, enabled, out):  # type: ignore[no-untyped-def]
    """out[p] = length of the maximal run of digits, Latin letters or Katakana (effective_classes: a number, a Latin
    word, a Katakana word) starting at p, 0 where none starts (or `enabled` is false): such a run is a candidate
    word even when the model does not know it."""
    out[:] = 0
    if not enabled:
        return
    eff = effective_classes(classes)
    n = len(eff)
    p = 0
    while p < n:
        c = eff[p]
        q = p + 1
        while q < n and eff[q] == c:
            q += 1
        if c == DIGIT or c == LETTER or c == KATAKANA:
            out[p] = q - p
        p = q


@nb.njit(cache=True)
def _evidence(fcand, rcand, fsil, fbranch, rsil, rbranch, mean, classes, bonus, out):  # type: ignore[no-untyped-def]
    n = fcand.shape[0]
    nb_max = mean.shape[1]
    eff = effective_classes(classes)
    for b in range(1, n):
        e = 0.0
        for length in range(1, nb_max + 1):
            if b - length >= 0:
                h = _entropy(fcand, fsil, fbranch, b - length, length)
                if h >= 0:
                    e += h - mean[0, length - 1]
                    if length >= 2:
                        shorter = _entropy(fcand, fsil, fbranch, b - length, length - 1)
                        if shorter >= 0:
                            e += h - shorter
            if b + length <= n:
                h = _entropy(rcand, rsil, rbranch, n - b - length, length)
                if h >= 0:
                    e += h - mean[1, length - 1]
                    if length >= 2:
                        shorter = _entropy(rcand, rsil, rbranch, n - b - length, length - 1)
                        if shorter >= 0:
                            e += h - shorter
        out[b] = e + bonus[eff[b - 1], eff[b]]


@nb.njit(cache=True)
def span_evidence(fcand, rcand, lo, hi, rlo, classes, tables, ev_lo, ev, runs):  # type: ignore[no-untyped-def]
    """Boundary evidence of each span k (rows lo[k]..hi[k]-1, reversal rows rlo[k]..) into ev[ev_lo[k]:], its
    run lengths (run_lengths) into runs[ev_lo[k]:]."""
    for k in range(len(lo)):
        n = hi[k] - lo[k]
        _evidence(fcand[lo[k]:hi[k]], rcand[rlo[k]:rlo[k] + n], tables.fsil, tables.fbranch, tables.rsil,
                  tables.rbranch, tables.mean, classes[lo[k]:hi[k]], tables.bonus, ev[ev_lo[k]:ev_lo[k] + n + 1])
        run_lengths(classes[lo[k]:hi[k]], tables.runs, runs[ev_lo[k]:ev_lo[k] + n])
