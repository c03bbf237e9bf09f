"""The suffix array of the corpus with every document cut into history (first ⌊n/2⌋ tokens) and test (the rest),
derived from the stored suffix array in O(N log depth) instead of a second suffix sort.

A history suffix whose distance r to the cut is below its bounding LCP ("cut" rank) now ends after r tokens, so
it sorts first among the suffixes that start with its first r tokens: it moves to the start of that string's
interval (its "anchor"); every other rank keeps its relative order (with r equal to the bounding LCP the suffix
already sits at an end of every longer shared prefix's interval). The LCP of neighbours in the new order is
min(t_x, t_y, min LCP[anchor_x .. anchor_y - 1]) with t = r for history suffixes (no clip for test suffixes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from termx.index.loaded_index import LoadedIndex

NO_CLIP = np.iinfo(np.int32).max


@dataclass
class SplitIndex:
    """The history/test suffix array: original ranks in the new order, clipped LCP, and per new rank its
    document, half (0 = history, 1 = test) and length to the end of its half."""

    order: np.ndarray  # new rank → original rank
    lcp: np.ndarray
    doc: np.ndarray
    half: np.ndarray   # int8
    room: np.ndarray   # tokens to the end of the suffix's half (history) or document (test)


def split_index(index: LoadedIndex, doc_of_rank: np.ndarray) -> SplitIndex:
    """Re-sort the suffixes for the history/test cut of every document and clip their LCP there."""
    room, clip = _rooms(index.sa, doc_of_rank, index.doc_start, index.doc_len)
    anchor = _anchors(index.lcp, clip)
    cut = np.flatnonzero(anchor >= 0)
    cut = cut[np.lexsort((cut, clip[cut], anchor[cut]))]
    order = _merge(len(index.lcp), cut, anchor)
    anchor_of, clip_of, doc, half, room_of = _permute(order, anchor, clip, room, doc_of_rank, index.doc_start,
                                                      index.doc_len, index.sa)
    return SplitIndex(order, _split_lcp(index.lcp, anchor_of, clip_of), doc, half, room_of)


@nb.njit(cache=True)
def _rooms(sa, dor, doc_start, doc_len):  # type: ignore[no-untyped-def]
    """Per rank: tokens from the suffix to its document's history/test cut (> 0 in the history), and the clip
    that imposes (NO_CLIP for test suffixes)."""
    n = len(sa)
    room = np.empty(n, dtype=np.int64)
    clip = np.empty(n, dtype=np.int64)
    for w in range(n):
        d = dor[w]
        r = doc_start[d] + doc_len[d] // 2 - sa[w]
        room[w] = r
        clip[w] = r if r > 0 else NO_CLIP
    return room, clip


@nb.njit(cache=True)
def _permute(order, anchor, clip, room, dor, doc_start, doc_len, sa):  # type: ignore[no-untyped-def]
    """Per new rank: anchor, clip, document, half and tokens to the end of its half."""
    n = len(order)
    anchor_of = np.empty(n, dtype=np.int32)
    clip_of = np.empty(n, dtype=np.int64)
    doc = np.empty(n, dtype=np.int32)
    half = np.empty(n, dtype=np.int8)
    room_of = np.empty(n, dtype=np.int64)
    for k in range(n):
        e = order[k]
        anchor_of[k] = anchor[e] if anchor[e] >= 0 else e
        clip_of[k] = clip[e]
        d = dor[e]
        doc[k] = d
        if room[e] > 0:
            half[k] = 0
            room_of[k] = room[e]
        else:
            half[k] = 1
            room_of[k] = doc_start[d] + doc_len[d] - sa[e]
    return anchor_of, clip_of, doc, half, room_of


@nb.njit(cache=True)
def _anchors(lcp, clip):  # type: ignore[no-untyped-def]
    """For a cut rank w (clip r < its bounding LCP): the first rank of the interval of its first r tokens;
    -1 for ranks that keep their place. A stack of previous-smaller LCPs answers each query by binary search."""
    n = len(lcp)
    anchor = np.full(n, -1, dtype=np.int32)
    stack = np.empty(n + 1, dtype=np.int32)
    top = 0
    for w in range(n):
        r = clip[w]
        bound = max(lcp[w - 1] if w > 0 else 0, lcp[w])
        if r < bound:
            lo, hi = 0, top  # last stack entry q with lcp[q] < r
            while lo < hi:
                mid = (lo + hi) // 2
                if lcp[stack[mid]] < r:
                    lo = mid + 1
                else:
                    hi = mid
            anchor[w] = stack[lo - 1] + 1 if lo > 0 else 0
        while top > 0 and lcp[stack[top - 1]] >= lcp[w]:
            top -= 1
        stack[top] = w
        top += 1
    return anchor


@nb.njit(cache=True)
def _merge(n, cut, anchor):  # type: ignore[no-untyped-def]
    """New order: before each original rank q, the cut ranks anchored at q (sorted by clip), then q if uncut."""
    order = np.empty(n, dtype=np.int32)
    k = 0
    c = 0
    for q in range(n):
        while c < len(cut) and anchor[cut[c]] == q:
            order[k] = cut[c]
            k += 1
            c += 1
        if anchor[q] < 0:
            order[k] = q
            k += 1
    return order


@nb.njit(cache=True)
def _split_lcp(lcp, anchor_of, clip_of):  # type: ignore[no-untyped-def]
    """LCP of neighbours in the new order; anchors never decrease, so the range minima cost O(N) in all."""
    n = len(anchor_of)
    out = np.zeros(n, dtype=np.int32)
    for k in range(n - 1):
        a, b = anchor_of[k], anchor_of[k + 1]
        m = min(clip_of[k], clip_of[k + 1])
        for q in range(a, b):
            if lcp[q] < m:
                m = lcp[q]
        out[k] = m
    return out
