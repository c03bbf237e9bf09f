"""The index pipeline in memory: documents → tokens → SA, LCP → classes → df_k (docs/design.md, "The pipeline")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from termx.defaults import DEFAULT_MAX_K
from termx.faults import fault_point
from termx.index import docfreq
from termx.index.classes import Classes
from termx.index.ingest import Document
from termx.index.ngramfilter import build_filter
from termx.index.suffix import permuted_lcp, rank_scan, suffix_array
from termx.index.units import TokenArray, Unit, tokenize
from termx.progress import Progress, Silent, Timings


@dataclass
class Shard:
    """One independently built index: its documents' tokens, suffix array and class statistics."""

    documents: Sequence[Document]
    tokens: TokenArray
    sa: np.ndarray           # ranks → positions in tokens.tokens (int32)
    classes: Classes
    df: np.ndarray           # (classes, max_k) int32, df_1..df_K
    trivial_classes: int
    max_k: int
    timings: Timings = field(default_factory=Timings)
    ngram_filter: np.ndarray | None = None  # termx.index.ngramfilter: the runs of 1..8 tokens it holds

    @property
    def n(self) -> int:
        """Text tokens N (ranks of the suffix array)."""
        return len(self.sa)


def build_shard(documents: Sequence[Document], unit: Unit, max_k: int = DEFAULT_MAX_K,
                progress: Progress | None = None, timings: Timings | None = None,
                vocab: Sequence[str] | None = None, ngram_filter: bool = True) -> Shard:
    """Run every in-memory stage on `documents`; `timings` collects seconds per stage; `vocab` fixes the token
    ids (char/word) so that the shards of one corpus share them; `ngram_filter` False skips the shard filter,
    which only a corpus of several shards reads (a shard without one is searched, as before migration 0021)."""
    progress = progress or Silent()
    timings = timings if timings is not None else Timings()
    with timings.stage("tokenize", progress):
        fault_point("tokenize")
        ta = tokenize([d.text for d in documents], unit, vocab)
    with timings.stage("suffix array", progress):
        fault_point("suffix_array")
        sa = suffix_array(ta.tokens, len(documents))
    stats = class_statistics(ta.tokens, sa, ta.doc_start, ta.doc_len, max_k, progress, timings, ngram_filter)
    return Shard(documents, ta, sa, stats.classes, stats.df, stats.trivial_classes, max_k, timings,
                 stats.ngram_filter)


@dataclass
class ClassStatistics:
    """Everything derived from the token array and suffix array: LCP, classes and their df_k."""

    lcp: np.ndarray
    classes: Classes
    df: np.ndarray
    trivial_classes: int
    ngram_filter: np.ndarray | None = None  # termx.index.ngramfilter words, when asked for


def class_statistics(tokens: np.ndarray, sa: np.ndarray, doc_start: np.ndarray, doc_len: np.ndarray, max_k: int,
                     progress: Progress | None = None, timings: Timings | None = None,
                     ngram_filter: bool = False) -> ClassStatistics:
    """The stages after the suffix array; the loader reruns them on stored arrays instead of copying classes;
    `ngram_filter` also builds the shard's filter, from the permuted LCP while it is at hand."""
    progress = progress or Silent()
    timings = timings if timings is not None else Timings()
    with timings.stage("lcp", progress):
        plcp = permuted_lcp(tokens, sa)
        scan = rank_scan(plcp, sa, doc_start, doc_len)  # LCP, documents and trivial classes in one pass
    words = None
    if ngram_filter:
        with timings.stage("ngram filter", progress):
            words = build_filter(tokens, plcp, scan.lcp, doc_len)
    del plcp  # 8 bytes per token, freed before the class arrays are allocated
    with timings.stage("df_k", progress):
        classes, df = docfreq.fill_classes(scan.lcp, scan.doc, len(doc_start), max_k)  # classes, df_k: one walk
    return ClassStatistics(scan.lcp, classes, df, scan.trivial, words)
