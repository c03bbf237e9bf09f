"""The local disk cache of $TERMX_HOME/cache: one folder per corpus build (its look-up arrays as .npy files, or a
model or sketches made from it), written atomically, keyed by database, corpus id and build time, capped in size
(the least recently used builds go first), listed and cleared by `termx cache`. The cache is never the only copy:
a write that fails (a full disk) turns it off for the process, which reads from the database instead.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from termx.home import process_alive
from termx.index.loaded_index import CorpusInfo
from termx.storage.paths import OWNER_FILE, home, write_owner

log = logging.getLogger("termx")

CACHE_MAX_GB = 20.0  # default cap of $TERMX_HOME/cache (TERMX_CACHE_MAX_GB overrides); the oldest builds go first
_FILLING = ".fill-"  # prefix of a cache folder being written: .fill-<pid>-<random>


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


def cache_on() -> bool:
    """Whether this process still writes the cache (False once a write failed)."""
    return not _cache_off


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
    for forget in _on_clear:
        forget()
    return removed


_on_clear: list[Callable[[], None]] = []  # process memos of what was read from the cache (index_loader, sketches)


def on_clear(forget: Callable[[], None]) -> None:
    """Have `clear_cache` call `forget` (a process memo's clear), so the next look-up refills the cache."""
    _on_clear.append(forget)
