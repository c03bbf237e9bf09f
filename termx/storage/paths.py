"""Where termx keeps local state: $TERMX_HOME (default ~/.termx) holds the embedded database and caches."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from termx.home import home_path


def home() -> Path:
    """The termx data directory, created on first use (mode 0700: it holds the database password), resolved and
    refused when another user owns or can write it or a directory above it (serveruser.check_home): they could
    plant caches or links there that this user's termx would read or write through, with an external database
    too."""
    from termx.storage.serveruser import check_home

    path = home_path()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = path.resolve()
    check_home(path)
    return path


def resource(name: str) -> Path:
    """A directory shipped with termx (`migrations` or `sql`): inside the wheel, or at the source tree's top."""
    package = Path(__file__).resolve().parent.parent
    installed = package / f"_{name}"
    return installed if installed.is_dir() else package.parent / name


def cache_folder(url: str, corpus_id: int, created_at: str, what: str = "") -> Path:
    """The local cache of one corpus build (and of `what` derived from it, e.g. a trained model): keyed by
    database, corpus id and build time, so a rebuilt corpus never meets a stale cache."""
    key = f"{url}|{corpus_id}|{created_at}" + (f"|{what}" if what else "")
    tag = hashlib.sha256(key.encode()).hexdigest()[:16]
    return home() / "cache" / f"{corpus_id}-{tag}"


OWNER_FILE = "owner.json"  # in each cache folder: the database, corpus id and build time it was filled from


def write_owner(folder: Path, url: str, corpus_id: int, created_at: str) -> None:
    """Record whose cache `folder` is, so a later sweep can tell a stale one."""
    (folder / OWNER_FILE).write_text(json.dumps({"url": url, "id": corpus_id, "created_at": created_at}),
                                     encoding="utf-8")


def sweep_cache(url: str, live: set[tuple[int, str]]) -> list[Path]:
    """Remove the cache folders of database `url` whose (corpus id, build time) is not in `live` (a reader with
    an old snapshot may fill one after its corpus was replaced or dropped). Returns what it removed.

    Every command calls this, so it reads the folders' owners only when something changed since its last sweep
    of `url`: the live builds, or the cache folder's modification time (a folder is added by a rename into it,
    removed by rmtree; both change it). Otherwise every folder there was judged before and is still live."""
    root = home() / "cache"
    if not root.is_dir():
        return []
    marker = home() / f".swept-{hashlib.sha256(url.encode()).hexdigest()[:16]}"
    state = json.dumps({"live": sorted(live), "mtime": root.stat().st_mtime_ns})
    try:
        if marker.read_text(encoding="utf-8") == state:
            return []
    except OSError:
        pass
    removed = []
    for folder in root.iterdir():
        try:
            owner = json.loads((folder / OWNER_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if owner.get("url") == url and (owner.get("id"), owner.get("created_at")) not in live:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    marker.write_text(json.dumps({"live": sorted(live), "mtime": root.stat().st_mtime_ns}), encoding="utf-8")
    return removed
