"""In-memory indexes for the jdf tests (no database) and brute-force document sets."""

from __future__ import annotations

import numpy as np

from termx.index.build import build_shard, class_statistics
from termx.index.ingest import Document
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.storage.corpora import CorpusInfo
from tests.oracle import token_lists


def loaded(texts: list[str], unit: Unit) -> LoadedIndex:
    """A LoadedIndex built in memory, with the same arrays storage.loaded derives."""
    shard = build_shard([Document(f"d{n}", t) for n, t in enumerate(texts)], unit)
    ta = shard.tokens
    stats = class_statistics(ta.tokens, shard.sa, ta.doc_start, ta.doc_len, shard.max_k)
    c = stats.classes
    keys = c.i.astype(np.int64) * (len(shard.sa) + 1) + c.j
    order = np.argsort(keys, kind="stable").astype(np.int32)
    info = CorpusInfo(1, "mem", unit.value, shard.max_k, ta.n_tokens, len(texts), len(c), 100, {}, {}, "now")
    return LoadedIndex(info, 1, unit, ta.tokens, shard.sa, ta.doc_start, ta.doc_len, stats.lcp, c.i, c.j, c.lbl,
                       c.sil, stats.df, keys[order], order, [f"d{n}" for n in range(len(texts))], ta.vocab)


def brute_documents(texts: list[str], unit: Unit, pattern: str) -> set[int]:
    """Documents whose token list contains the pattern's tokens."""
    pat = token_lists([pattern], unit)[0]
    out = set()
    for d, toks in enumerate(token_lists(texts, unit)):
        if pat and any(toks[s: s + len(pat)] == pat for s in range(len(toks) - len(pat) + 1)):
            out.add(d)
    return out
