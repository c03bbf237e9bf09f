"""Suffix array and LCP of a token array, with LCP clipped at document ends (docs/design.md, "Document ends")."""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np
import pydivsufsort


def doc_of_position(doc_start: np.ndarray, doc_len: np.ndarray, n_total: int) -> np.ndarray:
    """Document number of every position of the token array (separators belong to the document they end)."""
    doc_of = np.empty(n_total, dtype=np.int32)
    _fill_doc_of(doc_start, doc_len, doc_of)
    return doc_of


@nb.njit(cache=True)
def _fill_doc_of(doc_start, doc_len, doc_of):  # type: ignore[no-untyped-def]
    for d in range(len(doc_start)):
        s = doc_start[d]
        doc_of[s: s + doc_len[d] + 1] = d


def suffix_array(tokens: np.ndarray, n_docs: int) -> np.ndarray:
    """Ranks 0..N-1 → positions of text suffixes; the D separator suffixes (token 0 sorts first) are dropped."""
    sa = pydivsufsort.divsufsort(tokens if tokens.flags.writeable else tokens.copy())
    return sa[n_docs:]


def clipped_lcp(tokens: np.ndarray, sa: np.ndarray) -> np.ndarray:
    """LCP[w] of suffixes sa[w], sa[w+1], never past either one's document end; LCP[N-1] = 0."""
    return _lcp_of_ranks(_plcp(tokens, sa), sa)


@dataclass
class RankScan:
    """What one pass over the ranks yields besides the LCP (termx.index.build uses all of it)."""

    lcp: np.ndarray       # int32, clipped as clipped_lcp
    doc: np.ndarray       # int32, the document of each rank's suffix
    trivial: int          # valid trivial classes <w,w>


def permuted_lcp(tokens: np.ndarray, sa: np.ndarray) -> np.ndarray:
    """PLCP[p] << 32 | document of p for every text position p, where PLCP[p] is the clipped LCP of the suffix at
    p and the one after it in rank order (0 for separators and the last rank): rank_scan's input, and the n-gram
    filter's (which reads it in text order)."""
    return _plcp(tokens, sa)


def rank_scan(plcp: np.ndarray, sa: np.ndarray, doc_start: np.ndarray, doc_len: np.ndarray) -> RankScan:
    """LCP, the document of each rank and the trivial-class count in one walk over the ranks, from permuted_lcp's
    words.

    Each rank reads one packed word (PLCP and document of its suffix) at its text position: one random load per
    rank where the LCP gather, the document gather and `trivial_class_count` took one pass each."""
    doc_end = (doc_start + doc_len).astype(np.int64)
    lcp, doc, trivial = _rank_scan(plcp, sa, doc_end)
    return RankScan(lcp, doc, int(trivial))


@nb.njit(cache=True)
def _plcp(tokens, sa):  # type: ignore[no-untyped-def]
    """packed[p] = PLCP[p] << 32 | document of position p, by Kärkkäinen's permuted-LCP (Φ) form of Kasai's
    algorithm; separator positions get PLCP 0 and the document they end.

    Tokens are compared only up to the separator 0, so the clip is part of the scan: PLCP[p+1] >= PLCP[p] - 1
    still holds for prefixes cut at document ends, and the text is walked in position order (cache-friendly).
    Φ (the next suffix's position) lives in the same array until PLCP overwrites it.
    """
    packed = np.full(len(tokens), -1, dtype=np.int64)
    for w in range(len(sa) - 1):
        packed[sa[w]] = sa[w + 1]
    h = 0
    d = 0
    for p in range(len(tokens)):
        q = packed[p]
        if q < 0:
            h = 0
        else:
            while tokens[p + h] != 0 and tokens[p + h] == tokens[q + h]:
                h += 1
        packed[p] = (np.int64(h) << 32) | d
        if tokens[p] == 0:
            d += 1
        if h > 0:
            h -= 1
    return packed


@nb.njit(cache=True)
def _lcp_of_ranks(packed, sa):  # type: ignore[no-untyped-def]
    n = len(sa)
    lcp = np.empty(n, dtype=np.int32)
    for w in range(n - 1):
        lcp[w] = np.int32(packed[sa[w]] >> 32)
    if n:
        lcp[n - 1] = 0
    return lcp


@nb.njit(cache=True)
def _rank_scan(packed, sa, doc_end):  # type: ignore[no-untyped-def]
    """One pass over ranks: lcp, document and the valid trivial classes <w,w> (the suffix, to its document end,
    is longer than both bounding LCPs)."""
    n = len(sa)
    lcp = np.empty(n, dtype=np.int32)
    doc = np.empty(n, dtype=np.int32)
    trivial = 0
    prev = 0
    for w in range(n):
        p = sa[w]
        v = packed[p]
        d = v & 0xFFFFFFFF
        h = np.int32(v >> 32)  # the last rank's PLCP is 0
        lcp[w] = h
        doc[w] = d
        trivial += max(prev, h) < doc_end[d] - p  # no branch: a mispredicted one would cancel the loads in flight
        prev = h
    return lcp, doc, trivial

