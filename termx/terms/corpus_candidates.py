"""A corpus's term candidates over all its shards: the union of the shards' candidate strings, each once, with freq
and df_1..df_K summed over every shard (two binary searches per string and shard, so a shard where the string is
not a candidate, or occurs once, still counts) and the length-aware null of the summed freq; in spaced text the
rule that counts occurrences (whole words at least half the time) is checked again over all shards (docs/terms.md
"Corpora of several shards").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba as nb
import numpy as np

from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.lookup import Shards, as_shards
from termx.poisson import length_aware_poisson_adaptation
from termx.terms.candidates import (
    NULL_BINS,
    P0_CEILING,
    _wordish,
    candidate_classes,
    is_spaced,
    space_count,
)
from termx.terms.token_kinds import token_kinds


@dataclass
class CorpusCandidates:
    """A corpus's candidates, one per distinct string: its representative (the first shard, in shard order, where
    it is a candidate, and that shard's class <i,j>), length, summed freq and df_k, null p0 and surface form."""

    shard: np.ndarray   # int64 position of the representative's shard in the corpus's shard list
    i: np.ndarray       # int64 the class <i,j> of the representative's shard
    j: np.ndarray
    length: np.ndarray  # int64 tokens
    freq: np.ndarray    # int64 occurrences in the whole corpus
    df: np.ndarray      # (candidates, K) int64 df_1..df_K of the whole corpus
    p0: np.ndarray      # float64 Pr(k >= 2 | k >= 1) under the length-aware null of the whole corpus
    terms: list[str]
    spaced: bool


def one_shard_candidates(index: LoadedIndex, texts: Sequence[str] | None) -> CorpusCandidates:
    """The candidates of a one-shard corpus (its class statistics are the corpus's)."""
    found = candidate_classes(index, texts)
    i = np.asarray(index.cls_i)[found.cls].astype(np.int64)
    j = np.asarray(index.cls_j)[found.cls].astype(np.int64)
    return CorpusCandidates(np.zeros(len(i), dtype=np.int64), i, j, found.length.astype(np.int64), j - i + 1,
                            np.asarray(index.cls_df)[found.cls].astype(np.int64), found.p0, found.terms, found.spaced)


def summed_candidates(shards: Sequence[LoadedIndex], texts: Sequence[Sequence[str] | None]) -> CorpusCandidates:
    """The union of the shards' candidate strings with statistics summed over all shards. Whether the text is
    spaced is decided once for the corpus (its white space over all its tokens), as a one-shard build would."""
    spaced = shards[0].unit is not Unit.word and is_spaced(sum(space_count(s) for s in shards),
                                                           sum(s.n for s in shards))
    first: dict[bytes, int] = {}
    rep_shard: list[int] = []
    rep_cls: list[int] = []
    lengths: list[int] = []
    terms: list[str] = []
    for k, (index, shard_texts) in enumerate(zip(shards, texts, strict=True)):
        found = candidate_classes(index, shard_texts, spaced=spaced)
        tokens = np.asarray(index.tokens).astype(np.int64)
        starts = np.asarray(index.sa)[np.asarray(index.cls_i)[found.cls]].astype(np.int64)
        for c, p, n, term in zip(found.cls.tolist(), starts.tolist(), found.length.tolist(), found.terms,
                                 strict=True):
            key = tokens[p: p + n].tobytes()
            if key not in first:
                first[key] = len(rep_shard)
                rep_shard.append(k)
                rep_cls.append(c)
                lengths.append(n)
                terms.append(term)
    flat = np.frombuffer(b"".join(first), dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
    freq, df = summed_counts(shards, flat, offsets)
    keep = np.flatnonzero(_whole_words(shards, flat, offsets, freq)) if spaced else np.arange(len(freq))
    freq, df, terms = freq[keep], df[keep], [terms[k] for k in keep.tolist()]
    shard = np.array(rep_shard, dtype=np.int64)[keep]
    cls = np.array(rep_cls, dtype=np.int64)[keep]
    i = np.zeros(len(cls), dtype=np.int64)
    j = np.zeros(len(cls), dtype=np.int64)
    for k, index in enumerate(shards):
        mine = shard == k
        i[mine] = np.asarray(index.cls_i)[cls[mine]]
        j[mine] = np.asarray(index.cls_j)[cls[mine]]
    doc_len = np.concatenate([np.asarray(s.doc_len) for s in shards])
    p0 = np.minimum(length_aware_poisson_adaptation(freq, doc_len, NULL_BINS), P0_CEILING)
    return CorpusCandidates(shard, i, j, np.array(lengths, dtype=np.int64)[keep], freq, df, p0, terms, spaced)


def _whole_words(shards: Sequence[LoadedIndex], flat: np.ndarray, offsets: np.ndarray, freq: np.ndarray) -> np.ndarray:
    """Which strings of spaced text occur as whole words at least half the time over all shards, the one rule
    that counts occurrences and so can fail in the whole corpus where it held in a shard ("one" can be mostly a
    word in one shard and mostly inside "money" overall). (Left-maximality in a shard implies it in the corpus.)"""
    whole = np.zeros(len(offsets) - 1, dtype=np.int64)
    for s in shards:
        kind, _ = token_kinds(s.unit, np.asarray(s.tokens), s.vocab)
        lo, hi = _shard_intervals(s, flat, offsets)
        _whole_counts(np.asarray(s.sa), kind, np.diff(offsets), lo, hi, whole)
    return 2 * whole >= freq


@nb.njit(cache=True)
def _whole_counts(sa, kind, lengths, lo, hi, whole):  # type: ignore[no-untyped-def]
    """Add the occurrences in one shard that neither follow nor precede a word character."""
    for u in range(len(lo)):
        for w in range(lo[u], hi[u] + 1):
            p = sa[w]
            if not _wordish(kind[p - 1]) and not _wordish(kind[p + lengths[u]]):
                whole[u] += 1


def _shard_intervals(s: LoadedIndex, flat: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """<lo, hi> in one shard of each token sequence flat[offsets[u]:offsets[u + 1]] (hi < lo when absent)."""
    count = len(offsets) - 1
    lo = np.zeros(count, dtype=np.int64)
    hi = np.full(count, -1, dtype=np.int64)
    _intervals(np.asarray(s.tokens), np.asarray(s.sa), np.asarray(flat, dtype=np.int64), offsets, lo, hi)
    return lo, hi


def summed_counts(index: Shards, flat: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """freq and df_1..df_K, summed over the shards, of each token sequence flat[offsets[u]:offsets[u + 1]]
    (token ids of the corpus; an empty sequence counts 0): a string occurring once in a shard is a trivial class
    there (df_1 = 1), one occurring twice or more is the class of its interval."""
    shards = as_shards(index)
    count = len(offsets) - 1
    freq = np.zeros(count, dtype=np.int64)
    df = np.zeros((count, shards[0].cls_df.shape[1]), dtype=np.int64)
    for s in shards:
        lo, hi = _shard_intervals(s, flat, offsets)
        f = np.maximum(hi - lo + 1, 0)
        keys = lo * (s.n + 1) + hi
        at = np.minimum(np.searchsorted(s.cls_keys, keys), max(len(s.cls_keys) - 1, 0))
        found = (f >= 2) & (np.asarray(s.cls_keys)[at] == keys) if len(s.cls_keys) else np.zeros(count, bool)
        freq += f
        df[found] += np.asarray(s.cls_df)[np.asarray(s.cls_order)[at[found]]]
        df[f == 1, 0] += 1
    return freq, df


@nb.njit(cache=True)
def _intervals(tokens, sa, flat, offsets, lo, hi):  # type: ignore[no-untyped-def]
    """<lo, hi> of every non-empty sequence by the look-ups' two binary searches (hi < lo when absent)."""
    for u in range(len(offsets) - 1):
        if offsets[u + 1] > offsets[u]:
            lo[u], hi[u] = _interval(tokens, sa, flat[offsets[u]:offsets[u + 1]])


@nb.njit(cache=True)
def _interval(tokens, sa, ids):  # type: ignore[no-untyped-def]
    """<first, last> ranks of the suffixes starting with `ids` (last < first when none): LoadedIndex.interval's
    two binary searches, compiled for the batches above (a single look-up uses bisect and loads no numba)."""
    lo, hi = 0, len(sa)
    while lo < hi:
        mid = (lo + hi) // 2
        if _compare(tokens, sa[mid], ids) < 0:
            lo = mid + 1
        else:
            hi = mid
    first = lo
    hi = len(sa)
    while lo < hi:
        mid = (lo + hi) // 2
        if _compare(tokens, sa[mid], ids) <= 0:
            lo = mid + 1
        else:
            hi = mid
    return first, lo - 1


@nb.njit(cache=True)
def _compare(tokens, p, ids):  # type: ignore[no-untyped-def]
    """-1/0/+1: the suffix at p against `ids`, looking at len(ids) tokens (0 ends every document)."""
    for t in range(len(ids)):
        a = tokens[p + t]
        if a != ids[t]:
            return -1 if a < ids[t] else 1
    return 0
