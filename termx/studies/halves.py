"""Per-bucket counts of every class in one class-tree walk: the slides' `cdfk[half]` code.

A "bucket of each rank" splits the occurrences of every class (first/second half of the collection, history/
test half of a document); docfreq.pointer_counts counts freq and df_1 per bucket for all classes at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from termx.index import docfreq
from termx.index.loaded_index import LoadedIndex
from termx.index.suffix import doc_of_position


def doc_of_rank(index: LoadedIndex) -> np.ndarray:
    """Document number of the suffix at every rank (int32)."""
    return doc_of_position(index.doc_start, index.doc_len, len(index.tokens))[index.sa]


def collection_halves(doc_len: np.ndarray) -> np.ndarray:
    """Half (0 or 1) of each document: half 0 is the shortest prefix of the documents, in input order, holding
    at least half of the text tokens; a document is never split."""
    cum = np.cumsum(doc_len, dtype=np.int64)
    total = int(cum[-1]) if len(cum) else 0
    first = int(np.searchsorted(cum * 2, total, side="left"))  # first d with 2*cum[d] >= total
    half = np.ones(len(doc_len), dtype=np.int8)
    half[: first + 1] = 0
    return half


@dataclass
class BucketCounts:
    """freq and df_1 of every non-trivial class (walk order) in each bucket: arrays (classes, buckets)."""

    freq: np.ndarray
    df: np.ndarray


def bucket_counts(lcp: np.ndarray, n_classes: int, unit_of_rank: np.ndarray, n_units: int,
                  bucket_of_rank: np.ndarray, n_buckets: int) -> BucketCounts:
    """freq and df_1 per bucket of the classes of `lcp`; a unit (document, document half) never straddles buckets."""
    neighbor = docfreq.neighbors(unit_of_rank, n_units)
    counts = docfreq.pointer_counts(lcp, n_classes, neighbor[None, :],
                                    bucket_of_rank.astype(np.int8), n_buckets)
    freq = counts[:, 0, :]
    return BucketCounts(freq=freq, df=freq - counts[:, 1, :])
