"""The index word breaking reads: a corpus's one shard as loaded, or for a corpus of several shards one in-memory
index of all their documents (the suffix array, classes and df_k of the concatenated shards, as a one-shard
build would store them), so every candidate's statistics are the sums over the shards and the class tree,
branching entropies and word model are those of the whole corpus.

Word breaking already builds an in-memory suffix array of the whole corpus (the reversed documents, for the left
branching entropy), so this doubles that memory rather than changing its order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy.engine import Engine

from termx.index.build import class_statistics
from termx.index.loaded_index import LoadedIndex
from termx.index.suffix import suffix_array
from termx.storage.index_loader import load_shards


def corpus_index(engine: Engine, corpus: str) -> LoadedIndex:
    """The whole corpus as one index: its shard, or its shards merged in memory (`merged_index`)."""
    shards = load_shards(engine, corpus)
    return shards[0] if len(shards) == 1 else merged_index(shards)


def merged_index(shards: Sequence[LoadedIndex]) -> LoadedIndex:
    """One index of the documents of `shards` in shard order (they share the corpus's token ids)."""
    first = shards[0]
    tokens = np.concatenate([np.asarray(s.tokens) for s in shards])
    at = np.cumsum([0] + [len(s.tokens) for s in shards[:-1]])
    doc_start = np.concatenate([np.asarray(s.doc_start, dtype=np.int64) + a for s, a in zip(shards, at, strict=True)])
    doc_len = np.concatenate([np.asarray(s.doc_len) for s in shards])
    sa = suffix_array(tokens, len(doc_start))
    stats = class_statistics(tokens, sa, doc_start, doc_len, first.corpus.max_k)
    c = stats.classes
    keys = c.i.astype(np.int64) * (len(sa) + 1) + c.j
    order = np.argsort(keys, kind="stable").astype(np.int32)
    return LoadedIndex(first.corpus, first.shard_id, first.unit, tokens, sa, doc_start, doc_len, stats.lcp, c.i, c.j,
                       c.lbl, c.sil, stats.df, keys[order], order, [n for s in shards for n in s.doc_names],
                       first.vocab, first.first_doc, 0, first.token_ids)
