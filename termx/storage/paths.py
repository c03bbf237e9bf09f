"""Where termx keeps local state: $TERMX_HOME (default ~/.termx) holds the embedded database and caches."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path


def home() -> Path:
    """The termx data directory, created on first use (mode 0700: it holds the database password)."""
    path = Path(os.environ.get("TERMX_HOME") or Path.home() / ".termx").expanduser().absolute()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def resource(name: str) -> Path:
    """A directory shipped with termx (`migrations` or `sql`): inside the wheel, or at the source tree's top."""
    package = Path(__file__).resolve().parent.parent
    installed = package / f"_{name}"
    return installed if installed.is_dir() else package.parent / name


def cache_folder(url: str, corpus_id: int, created_at: str) -> Path:
    """The local cache of one corpus build: keyed by database, corpus id and build time, so a rebuilt corpus
    never meets a stale cache (and a purge knows exactly which folder to remove)."""
    tag = hashlib.sha256(f"{url}|{corpus_id}|{created_at}".encode()).hexdigest()[:16]
    return home() / "cache" / f"{corpus_id}-{tag}"


OWNER_FILE = "owner.json"  # in each cache folder: the database, corpus id and build time it was filled from


def write_owner(folder: Path, url: str, corpus_id: int, created_at: str) -> None:
    """Record whose cache `folder` is, so a later sweep can tell a stale one."""
    (folder / OWNER_FILE).write_text(json.dumps({"url": url, "id": corpus_id, "created_at": created_at}),
                                     encoding="utf-8")


def sweep_cache(url: str, live: set[tuple[int, str]]) -> list[Path]:
    """Remove the cache folders of database `url` whose (corpus id, build time) is not in `live` (a reader with
    an old snapshot may fill one after its corpus was replaced or dropped). Returns what it removed."""
    root = home() / "cache"
    removed = []
    for folder in root.iterdir() if root.is_dir() else ():
        try:
            owner = json.loads((folder / OWNER_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if owner.get("url") == url and (owner.get("id"), owner.get("created_at")) not in live:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
