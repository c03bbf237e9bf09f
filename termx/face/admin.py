"""Administration on the face: the embedded PostgreSQL as a local service, backups, the schema revision and the
look-up cache under $TERMX_HOME, as the records of `termx db ...` and `termx cache ...` (docs/design.md,
"Storage"). Most of these need no connection: they are static methods of `termx.Database`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine


class ServerAdmin:
    """The embedded server, backups and the schema: `Database.server_start()`, `Database.dump(...)`, ..."""

    engine: Engine

    @staticmethod
    def server_start(tcp: int | None = None) -> dict[str, Any]:
        """Start the embedded PostgreSQL under $TERMX_HOME and keep it running (`termx db start`), also on
        127.0.0.1:`tcp` when given: its status, with "started" False when it was already running."""
        from termx.storage import embedded

        started, status = embedded.start(tcp)
        return {"started": started, **status.as_row()}

    @staticmethod
    def server_stop() -> bool:
        """Stop the embedded PostgreSQL (a fast shutdown); False when it was not running."""
        from termx.storage import embedded

        return embedded.stop()

    @staticmethod
    def server_status() -> dict[str, Any]:
        """`termx db status`: whether the embedded server runs, its pid, since when, its directories, and the bytes
        of its data directory (db_bytes) and of the look-up cache (cache_bytes)."""
        from termx.storage import embedded
        from termx.storage.disk_cache import cache_size

        status = embedded.status()
        return {**status.as_row(), "db_bytes": status.size_bytes, "cache_bytes": cache_size()}

    @staticmethod
    def server_running() -> bool:
        """Whether the embedded server runs now."""
        from termx.storage import embedded

        return embedded.status().running

    @staticmethod
    def server_url(password: bool = False, tcp: bool = False) -> str:
        """A libpq URL of the embedded server (with the password in it, or its 127.0.0.1 address: `termx db url`)."""
        from termx.storage import embedded

        return embedded.url(with_password=password, tcp=tcp)

    @staticmethod
    def psql_command(url: str | None = None) -> tuple[list[str], dict[str, str]]:
        """The argv and environment of the psql shipped with the embedded server, connected to `url` (default: the
        embedded server), search_path=termx."""
        from termx.storage import embedded

        target = url.replace("postgresql+psycopg://", "postgresql://") if url else embedded.embedded_url()
        return embedded.psql_command(target)

    @staticmethod
    def dump(file: str | Path, url: str | None = None) -> int:
        """Back up the termx schema of database `url` to `file` (pg_dump's custom format): its bytes."""
        from termx.storage.backup import dump
        from termx.storage.db import resolve_url

        return dump(resolve_url(url), Path(file))

    @staticmethod
    def restore(file: str | Path, url: str | None = None) -> dict[str, Any]:
        """Restore a dump into database `url`, which holds no termx data yet, in one transaction: the corpora it
        brought and how many grants the server refused."""
        from termx.storage.backup import restore
        from termx.storage.db import resolve_url

        restored = restore(Path(file), resolve_url(url))
        return {"corpora": restored.corpora, "refused_grants": restored.refused_grants}

    @staticmethod
    def revision_of(url: str | None = None) -> list[str]:
        """The schema revision(s) database `url` is at, without migrating it (`termx db current`)."""
        from termx.storage.db import connect_or_explain, current, resolve_url

        return sorted(current(connect_or_explain(resolve_url(url))))

    def revision(self) -> list[str]:
        """The schema revision(s) of this database (migrated to the newest when it was opened: `termx db
        upgrade`)."""
        from termx.storage.db import current

        return sorted(current(self.engine))


class CacheAdmin:
    """The look-up cache under $TERMX_HOME/cache: memory-mapped copies of what look-ups read, never the only copy."""

    engine: Engine

    @staticmethod
    def cache_status() -> dict[str, Any]:
        """Where the cache is, its bytes, its cap (TERMX_CACHE_MAX_GB) and how many folders it holds."""
        from termx.storage.disk_cache import cache_entries, cache_limit, cache_size
        from termx.storage.paths import home

        return {"path": str(home() / "cache"), "cache_bytes": cache_size(), "cache_max_bytes": cache_limit(),
                "folders": len(cache_entries())}

    @staticmethod
    def cache_folders() -> list[dict[str, Any]]:
        """One record per cached corpus build or model, least recently used first (`termx cache list`)."""
        from termx.storage.disk_cache import cache_entries

        return [e.as_row() for e in cache_entries()]

    @staticmethod
    def clear_cache() -> dict[str, int]:
        """Empty the whole cache, of every database: the folders removed and the bytes freed."""
        from termx.storage.disk_cache import clear_cache

        return _freed(clear_cache())

    def clear_corpus_cache(self, name: str) -> dict[str, int]:
        """Empty corpus `name`'s part of the cache (CorpusNotFound if there is none): folders removed, bytes freed."""
        from termx.storage.corpora import get_corpus
        from termx.storage.disk_cache import clear_cache

        url = self.engine.url.render_as_string(hide_password=True)
        return _freed(clear_cache(url, get_corpus(self.engine, name).id))


def _freed(removed: list[Any]) -> dict[str, int]:
    """How many cache folders went, and their bytes."""
    return {"folders": len(removed), "bytes": sum(e.bytes for e in removed)}
