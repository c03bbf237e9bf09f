"""A corpus's index read from PostgreSQL (the only copy) into memory, through the memory-mapped disk cache.

`load_shards` reads the stored arrays (tokens, suffix array, document starts), reruns the deterministic stages
after the suffix array (LCP, classes, df_k — several times faster than copying millions of class rows out of the
database), and keeps them in the disk cache (termx.storage.disk_cache) keyed by database, corpus id and build time,
so a rebuilt corpus never meets a stale cache. What it returns is the engine's LoadedIndex
(termx.index.loaded_index), which look-ups, term extraction and word breaking stand on.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from termx.errors import MultiShardUnsupported
from termx.faults import fault_point
from termx.index.loaded_index import CorpusInfo, LoadedIndex
from termx.index.units import Unit
from termx.storage.corpora import get_corpus, load_array
from termx.storage.disk_cache import cache_on, evict, on_clear, read_cache, write_cache
from termx.storage.paths import cache_folder
from termx.storage.statements import run_internal

_ARRAYS = ("tokens", "sa", "doc_start", "doc_len", "lcp", "cls_i", "cls_j", "cls_lbl", "cls_sil", "cls_df",
           "cls_keys", "cls_order")

_memo: dict[tuple[str, str], list[LoadedIndex]] = {}
on_clear(lambda: _memo.clear())


def load_index(engine: Engine, name: str, purpose: str = "this command") -> LoadedIndex:
    """The index of single-shard corpus `name`; MultiShardUnsupported names `purpose` for a corpus of several."""
    shards = load_shards(engine, name)
    if len(shards) != 1:
        raise MultiShardUnsupported(f"corpus {name!r} has {len(shards)} shards; {purpose} needs a corpus of one "
                                    "shard", "rebuild it as one shard (no `shard_size` limit, no `append`), or use "
                                    "termx stats", params=("shard_size", "append"))
    return shards[0]


def load_shards(engine: Engine, name: str) -> list[LoadedIndex]:
    """The indexes of every shard of corpus `name`, in shard order, from the process memo, the local cache, or
    PostgreSQL (in that order).

    Everything is read in one REPEATABLE READ snapshot, so a concurrent replace, append or drop of the corpus
    shows this reader the old version whole (its purge waits for, or works around, this snapshot), never a mix.
    """
    url = engine.url.render_as_string(hide_password=True)
    with engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn:
        info = get_corpus(conn, name)
        key = (url, name)
        hit = _memo.get(key)
        if hit is not None and hit[0].corpus.id == info.id and hit[0].corpus.created_at == info.created_at:
            return hit
        shards = [tuple(r) for r in run_internal(conn, "corpora.shard_layout", c=info.id)]
        folder = cache_folder(url, info.id, info.created_at)
        in_memory: dict[str, np.ndarray] | None = None
        if not (folder / "meta.json").exists():
            if _fill_cache(conn, url, info, shards, folder):
                evict(keep=folder)
            else:  # the cache is off (a full disk): the arrays stay in this process's memory
                derived, meta = _derived(conn, info, shards)
                in_memory = dict(derived)
    if in_memory is None:
        meta, _ = read_cache(folder, [])
    vocab = meta["vocab"]
    token_ids = None
    if vocab is not None and any(vocab[k] >= vocab[k + 1] for k in range(len(vocab) - 1)):
        token_ids = {t: n for n, t in enumerate(vocab, 1)}
    layout = meta.get("shards") or [{"shard_id": shards[0][0], "shard_no": 0, "first_doc": 0,
                                     "documents": len(meta["doc_names"])}]
    loaded = []
    for k, part in enumerate(layout):
        files = {a: _array_file(a, k) for a in _ARRAYS}
        arrays = ({a: in_memory[f.removesuffix(".npy")] for a, f in files.items()} if in_memory is not None
                  else {a: np.load(folder / f, mmap_mode="r") for a, f in files.items()})
        first = part["first_doc"]
        names = meta["doc_names"][first - layout[0]["first_doc"]:][: part["documents"]]
        loaded.append(LoadedIndex(corpus=info, shard_id=part["shard_id"], unit=Unit(info.unit), doc_names=names,
                                  vocab=vocab, first_doc=first, shard_no=part["shard_no"], token_ids=token_ids,
                                  **arrays))
    _memo[key] = loaded
    return loaded


def _array_file(array: str, k: int) -> str:
    """Cache file of one array of the k-th shard (the first shard's names are those of a one-shard corpus)."""
    return f"{array}.npy" if k == 0 else f"{array}.{k}.npy"


def _fill_cache(conn: sa.Connection, url: str, info: CorpusInfo, shards: list[tuple[Any, ...]],
                folder: Path) -> bool:
    """Write the cache of a corpus build atomically; False when the cache is off (it could not be written)."""
    if not cache_on():
        return False
    arrays, meta = _derived(conn, info, shards)
    return write_cache(folder, arrays, meta, url, info)


def _derived(conn: sa.Connection, info: CorpusInfo,
             shards: list[tuple[Any, ...]]) -> tuple[Iterator[tuple[str, np.ndarray]], dict[str, Any]]:
    """Read every shard from PostgreSQL and derive LCP and the class key index: the arrays as a generator (one
    shard's arrays in memory at a time, named as their cache files) and the meta, whose document names and shard
    layout fill in as the generator runs."""
    from termx.index import build  # numba kernels: loaded only when a cache is filled

    layout: list[dict[str, Any]] = []
    names: list[str] = []

    def arrays() -> Iterator[tuple[str, np.ndarray]]:
        for k, (shard_id, shard_no, first_doc, _) in enumerate(shards):
            tokens = load_array(conn, shard_id, "tokens")
            suffixes = load_array(conn, shard_id, "sa")
            doc_start = load_array(conn, shard_id, "doc_start")
            fault_point("fill_cache")
            docs = run_internal(conn, "corpora.shard_documents", c=info.id, s=shard_id).all()
            doc_len = np.array([r[1] for r in docs], dtype=np.int64)
            stats = build.class_statistics(tokens, suffixes, doc_start, doc_len, info.max_k)
            c = stats.classes
            keys = c.i.astype(np.int64) * (len(suffixes) + 1) + c.j
            order = np.argsort(keys, kind="stable").astype(np.int32)
            shard = {"tokens": tokens, "sa": suffixes, "doc_start": doc_start, "doc_len": doc_len, "lcp": stats.lcp,
                     "cls_i": c.i, "cls_j": c.j, "cls_lbl": c.lbl, "cls_sil": c.sil, "cls_df": stats.df,
                     "cls_keys": keys[order], "cls_order": order}
            yield from ((_array_file(a, k).removesuffix(".npy"), arr) for a, arr in shard.items())
            names.extend(r[0] for r in docs)
            layout.append({"shard_id": shard_id, "shard_no": shard_no, "first_doc": first_doc,
                           "documents": len(docs)})

    vocab = [r[0] for r in run_internal(conn, "corpora.vocab", c=info.id)]
    # names and layout are filled while the arrays are consumed, before the meta is written
    return arrays(), {"doc_names": names, "vocab": vocab if info.unit != "byte" else None, "shards": layout}


