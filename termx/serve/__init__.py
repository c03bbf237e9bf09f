"""`termx serve`: the Python API over HTTP (FastAPI; optional extra `serve`). `create_app` is the factory."""

from __future__ import annotations

from termx.serve.app import DEFAULT_MAX_BODY, create_app

__all__ = ["DEFAULT_MAX_BODY", "create_app"]
