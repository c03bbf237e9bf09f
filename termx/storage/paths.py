"""Where termx keeps local state: $TERMX_HOME (default ~/.termx) holds the embedded database and caches."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def home() -> Path:
    """The termx data directory, created on first use."""
    path = Path(os.environ.get("TERMX_HOME") or Path.home() / ".termx").expanduser()
    path.mkdir(parents=True, exist_ok=True)
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
