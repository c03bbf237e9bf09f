"""Suffix array and LCP of a token array, with LCP clipped at document ends (docs/design.md, "Document ends")."""

from __future__ import annotations

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
    """LCP[w] of suffixes sa[w], sa[w+1], never past either one's document end; LCP[N-1] = 0.

    Kärkkäinen's permuted-LCP (Φ) form of Kasai's algorithm, comparing tokens only up to the separator 0, so the
    clip is part of the scan: PLCP[p+1] >= PLCP[p] - 1 still holds for prefixes cut at document ends, and the
    text is walked in position order (cache-friendly), about 1.5x faster than rank order.
    """
    return _lcp_phi(tokens, sa)


@nb.njit(cache=True)
def _lcp_phi(tokens, sa):  # type: ignore[no-untyped-def]
    n = len(sa)
    phi = np.full(len(tokens), -1, dtype=np.int32)  # phi[sa[w]] = sa[w+1], -1 for the last rank and separators
    for w in range(n - 1):
        phi[sa[w]] = sa[w + 1]
    plcp = np.zeros(len(tokens), dtype=np.int32)
    h = 0
    for p in range(len(tokens)):
        q = phi[p]
        if q < 0:
            h = 0
            continue
        while tokens[p + h] != 0 and tokens[p + h] == tokens[q + h]:
            h += 1
        plcp[p] = h
        if h > 0:
            h -= 1
    lcp = np.empty(n, dtype=np.int32)
    for w in range(n - 1):
        lcp[w] = plcp[sa[w]]
    if n:
        lcp[n - 1] = 0
    return lcp
