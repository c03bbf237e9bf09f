"""A corpus's index in memory, loaded from PostgreSQL (the only copy) through a memory-mapped local cache.

`load_index` reads the stored arrays (tokens, suffix array, document starts), reruns the deterministic
stages after the suffix array (LCP, classes, df_k — several times faster than copying millions of class
rows out of the database), and keeps them as .npy files under $TERMX_HOME/cache keyed by database, corpus id
and build time, so a rebuilt corpus never meets a stale cache; the cache has a size cap (oldest builds
evicted first) and a dropped or replaced corpus's folder goes with it. Look-ups, term extraction and word
breaking all stand on this object.
"""

from __future__ import annotations

import bisect
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from termx.errors import MultiShardUnsupported, PatternError
from termx.faults import fault_point
from termx.home import process_alive
from termx.index.units import Unit, encode_pattern
from termx.storage.corpora import CorpusInfo, get_corpus, load_array
from termx.storage.paths import OWNER_FILE, cache_folder, home, write_owner

log = logging.getLogger("termx")

_ARRAYS = ("tokens", "sa", "doc_start", "doc_len", "lcp", "cls_i", "cls_j", "cls_lbl", "cls_sil", "cls_df",
           "cls_keys", "cls_order")


@dataclass
class LoadedIndex:
    """Arrays of one shard of a corpus; classes are in walk order (j ascending, then i descending)."""

    corpus: CorpusInfo
    shard_id: int
    unit: Unit
    tokens: np.ndarray     # token ids, documents separated by 0
    sa: np.ndarray         # ranks → positions in tokens
    doc_start: np.ndarray  # (D,) first token of each document
    doc_len: np.ndarray    # (D,) tokens per document
    lcp: np.ndarray        # clipped LCP of ranks w, w+1
    cls_i: np.ndarray
    cls_j: np.ndarray
    cls_lbl: np.ndarray
    cls_sil: np.ndarray
    cls_df: np.ndarray     # (classes, K) df_1..df_K
    cls_keys: np.ndarray   # sorted i*(N+1)+j of every class
    cls_order: np.ndarray  # class index of each sorted key
    doc_names: list[str]
    vocab: list[str] | None
    first_doc: int = 0                    # doc_no of this shard's first document in its corpus
    shard_no: int = 0
    token_ids: dict[str, int] | None = None  # token -> id when the vocabulary grew by --append (not in order)

    @property
    def n(self) -> int:
        """Text tokens N."""
        return len(self.sa)

    @property
    def n_docs(self) -> int:
        """Documents D."""
        return len(self.doc_start)

    @cached_property
    def tree(self) -> tuple[np.ndarray, np.ndarray]:
        """(parent of each class, deepest class of each rank): the class tree (termx/index/tree.py), built on first
        use and shared by the studies and word breaking."""
        from termx.index.tree import class_tree  # numba: loaded only when a pass climbs the tree
        return class_tree(self.cls_i, self.cls_j, self.n)

    def encode(self, pattern: str) -> np.ndarray | None:
        """Token ids of a pattern in this corpus's unit; None if it uses a token the corpus lacks."""
        return encode_pattern(pattern, self.unit, self.vocab, self.token_ids)

    def interval(self, ids: np.ndarray) -> tuple[int, int]:
        """<i, j>: the ranks of the suffixes that start with `ids` (j < i when there are none)."""
        if len(ids) == 0:
            raise PatternError("empty pattern")
        prefixes = _Prefixes(self.tokens, self.sa, len(ids))
        key = prefixes.key(np.asarray(ids))
        first = bisect.bisect_left(prefixes, key)
        return first, bisect.bisect_right(prefixes, key, lo=first) - 1

    def class_of(self, i: int, j: int) -> int:
        """Index of the non-trivial class with interval <i, j>, or -1 (a trivial or no class)."""
        if j <= i:
            return -1
        key = i * (self.n + 1) + j
        k = int(np.searchsorted(self.cls_keys, key))
        return int(self.cls_order[k]) if k < len(self.cls_keys) and self.cls_keys[k] == key else -1

    def suffix_length(self, w: int) -> int:
        """Tokens from rank w's suffix to its document end (the SIL of the trivial class <w, w>)."""
        d = self.doc_of_rank(w)
        return int(self.doc_start[d] + self.doc_len[d] - self.sa[w])

    def lbl(self, i: int, j: int) -> int:
        """Longest bounding LCP of <i, j>."""
        return int(max(self.lcp[i - 1] if i > 0 else 0, self.lcp[j]))

    def doc_of_rank(self, w: int) -> int:
        """Document number of the suffix at rank w."""
        return int(np.searchsorted(self.doc_start, self.sa[w], side="right") - 1)

    def decode(self, ids: np.ndarray) -> str:
        """Text of a token sequence (words joined by spaces; cut UTF-8 shown as U+FFFD)."""
        if self.unit is Unit.byte:
            return bytes(np.asarray(ids, dtype=np.uint8)).decode("utf-8", errors="replace")
        assert self.vocab is not None
        pieces = [self.vocab[int(t) - 1] for t in ids]
        return " ".join(pieces) if self.unit is Unit.word else "".join(pieces)


class _Prefixes(Sequence[bytes]):
    """The first `m` tokens of each suffix in rank order, as big-endian bytes, so that bytes order is token order
    and `bisect` finds the interval in C (a look-up needs no compiled kernel, so `termx stats` loads no numba).
    A suffix that ends within `m` tokens compares as its shorter prefix, which is where the 0 that ends every
    document puts it anyway."""

    def __init__(self, tokens: np.ndarray, sa: np.ndarray, m: int) -> None:
        self.m = m
        # indexing a memoryview gives a Python int, fast; it takes native formats only (not an explicit '<i4')
        self.sa = np.ascontiguousarray(sa, dtype=sa.dtype.newbyteorder("=")).data
        self.dtype = np.dtype(f">u{tokens.dtype.itemsize}")
        self.bytewise = tokens.dtype.itemsize == 1  # byte tokens are their own key: slice the buffer
        self.tokens: Any = np.ascontiguousarray(tokens).data if self.bytewise else tokens

    def key(self, ids: np.ndarray) -> bytes:
        """The bytes of a pattern's token ids, ordered as the suffixes' (ids of the corpus fit its dtype)."""
        return ids.astype(self.dtype).tobytes()

    def __len__(self) -> int:
        return len(self.sa)

    def __getitem__(self, w: int) -> bytes:  # type: ignore[override]
        p = self.sa[w]
        chunk = self.tokens[p: p + self.m]
        return bytes(chunk) if self.bytewise else chunk.astype(self.dtype).tobytes()


_memo: dict[tuple[str, str], list[LoadedIndex]] = {}

CACHE_MAX_GB = 20.0  # default cap of $TERMX_HOME/cache (TERMX_CACHE_MAX_GB overrides); the oldest builds go first


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
        shards = [tuple(r) for r in conn.execute(sa.text(
            "SELECT id, shard_no, first_doc, documents FROM termx.shard WHERE corpus_id = :c ORDER BY shard_no"),
            {"c": info.id})]
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


_FILLING = ".fill-"  # prefix of a cache folder being written: .fill-<pid>-<random>


def _fill_cache(conn: sa.Connection, url: str, info: CorpusInfo, shards: list[tuple[Any, ...]],
                folder: Path) -> bool:
    """Write the cache of a corpus build atomically; False when the cache is off (it could not be written)."""
    if _cache_off:
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
            docs = conn.execute(sa.text("SELECT name, length FROM termx.document WHERE corpus_id = :c"
                                        " AND shard_id = :s ORDER BY doc_no"), {"c": info.id, "s": shard_id}).all()
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

    vocab = [r[0] for r in conn.execute(sa.text(
        "SELECT token FROM termx.vocab WHERE corpus_id = :c ORDER BY token_id"), {"c": info.id})]
    # names and layout are filled while the arrays are consumed, before the meta is written
    return arrays(), {"doc_names": names, "vocab": vocab if info.unit != "byte" else None, "shards": layout}


def read_cache(folder: Path, names: Sequence[str]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """meta.json and the named arrays (memory-mapped) of a cache folder; touches it (recency for eviction)."""
    os.utime(folder / "meta.json")
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    return meta, {a: np.load(folder / f"{a}.npy", mmap_mode="r") for a in names}


def write_cache(folder: Path, arrays: Mapping[str, np.ndarray] | Iterable[tuple[str, np.ndarray]],
                meta: dict[str, Any], url: str, info: CorpusInfo) -> bool:
    """Write a cache folder of one corpus build atomically (a `.fill-` folder renamed into place; a concurrent
    writer's wins), with its owner recorded so a sweep can tell when the build is gone. `arrays` may be a
    generator: each array is saved as it comes, and `meta` is written last.

    The cache is never the only copy, so a write that fails (a full disk) leaves nothing behind, turns the cache
    off for this process (said once on stderr) and returns False: the caller reads from the database instead."""
    if _cache_off:
        return False
    tmp: Path | None = None
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f"{_FILLING}{os.getpid()}-", dir=folder.parent))
        for a, arr in arrays.items() if isinstance(arrays, Mapping) else arrays:
            np.save(tmp / f"{a}.npy", np.ascontiguousarray(arr))
        write_owner(tmp, url, info.id, info.created_at)
        (tmp / "meta.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    except OSError as exc:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        _turn_cache_off(folder.parent, exc)
        return False
    try:
        os.rename(tmp, folder)
    except OSError:  # another process filled it first
        shutil.rmtree(tmp, ignore_errors=True)
    return True


_cache_off = False  # set once writing the cache failed: this process then reads from the database


def _turn_cache_off(root: Path, exc: OSError) -> None:
    """Stop using the cache for this process and say so once (the look-ups go on from PostgreSQL)."""
    global _cache_off
    _cache_off = True
    log.warning(f"termx: cannot write the look-up cache in {root} ({exc.strerror or exc}); the cache is off for "
                "this command, which reads from the database instead (free some disk, or lower TERMX_CACHE_MAX_GB)")


def cache_limit() -> int:
    """The cache's size cap in bytes (TERMX_CACHE_MAX_GB, default CACHE_MAX_GB)."""
    return int(float(os.environ.get("TERMX_CACHE_MAX_GB") or CACHE_MAX_GB) * (1 << 30))


def evict(keep: Path | None = None) -> list[Path]:
    """Keep $TERMX_HOME/cache under its cap: remove the least recently used builds (never `keep`), and folders
    left half-written by processes that died. Open memory maps of a removed build stay valid. Returns removals."""
    root = home() / "cache"
    removed = []
    entries = []
    for folder in root.iterdir() if root.is_dir() else ():
        if folder.name.startswith(_FILLING):
            if not _alive(folder.name):
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder)
        elif (folder / "meta.json").exists():
            size = sum(f.stat().st_size for f in folder.iterdir())
            entries.append(((folder / "meta.json").stat().st_mtime, size, folder))
    total = sum(e[1] for e in entries)
    for _, size, folder in sorted(entries, key=lambda e: e[0]):
        if total <= cache_limit():
            break
        if folder != keep:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
            total -= size
    return removed


def _alive(filling: str) -> bool:
    """Whether the process that is writing a `.fill-<pid>-…` folder still runs."""
    return process_alive(int(filling.removeprefix(_FILLING).split("-", 1)[0]))


@dataclass(frozen=True)
class CacheEntry:
    """One folder of $TERMX_HOME/cache: a corpus build's look-up arrays, or a model trained on it."""

    folder: Path
    database: str          # the URL it was filled from (without a password)
    corpus_id: int
    built_at: str          # the corpus build it belongs to
    bytes: int
    last_used: datetime

    def as_row(self) -> dict[str, Any]:
        """The JSON/table row of `termx cache list`."""
        return {"folder": self.folder.name, "database": self.database, "corpus_id": self.corpus_id,
                "built_at": self.built_at, "cache_bytes": self.bytes,
                "last_used": self.last_used.isoformat(timespec="seconds")}


def _folder_bytes(folder: Path) -> int:
    """Bytes of the files in a cache folder (0 when it vanished meanwhile)."""
    total = 0
    for file in folder.iterdir() if folder.is_dir() else ():
        with suppress(OSError):
            total += file.stat().st_size
    return total


def cache_entries() -> list[CacheEntry]:
    """The complete cache folders (not those being written), least recently used first."""
    root = home() / "cache"
    entries = []
    for folder in root.iterdir() if root.is_dir() else ():
        try:
            owner = json.loads((folder / OWNER_FILE).read_text(encoding="utf-8"))
            used = (folder / "meta.json").stat().st_mtime
        except (OSError, ValueError):
            continue
        entries.append(CacheEntry(folder, str(owner.get("url")), int(owner.get("id")), str(owner.get("created_at")),
                                  _folder_bytes(folder), datetime.fromtimestamp(used, UTC)))
    return sorted(entries, key=lambda e: e.last_used)


def cache_bytes(url: str) -> dict[int, int]:
    """Bytes in the cache of each corpus (by id) of the database at `url` (rendered without its password)."""
    sizes: dict[int, int] = {}
    for entry in cache_entries():
        if entry.database == url:
            sizes[entry.corpus_id] = sizes.get(entry.corpus_id, 0) + entry.bytes
    return sizes


def cache_size() -> int:
    """Bytes in $TERMX_HOME/cache altogether (folders being written included)."""
    root = home() / "cache"
    return sum(_folder_bytes(folder) for folder in root.iterdir()) if root.is_dir() else 0


def clear_cache(url: str | None = None, corpus_id: int | None = None) -> list[CacheEntry]:
    """Remove the cache folders of corpus `corpus_id` of database `url` (of every corpus of `url`, or everything,
    when not given); the database keeps every corpus, so the next look-up fills the cache again. Returns what went.
    Processes that have a removed folder's arrays mapped keep reading them."""
    removed = []
    for entry in cache_entries():
        if (url is None or entry.database == url) and (corpus_id is None or entry.corpus_id == corpus_id):
            shutil.rmtree(entry.folder, ignore_errors=True)
            removed.append(entry)
    _memo.clear()
    return removed
