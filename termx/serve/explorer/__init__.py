"""The analysts' explorer of `termx serve` (docs/explorer.md): HTML pages over the library face, each a GET URL whose
query string reproduces it, with `.json` / `.csv` exports of its exact records; server-side SVG plots, one small
stylesheet, no JavaScript. Needs Jinja2 (the `serve` extra)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter
from fastapi.responses import Response

from termx.api import Corpus
from termx.serve.explorer.corpus_views import add_corpus_views
from termx.serve.explorer.db_views import add_db_views
from termx.serve.explorer.lookup_views import add_lookup_views
from termx.serve.explorer.pages import HERE


def explorer_router(open_corpus: Callable[[str], Corpus], db: str | None) -> APIRouter:
    """The explorer's routes, opening corpora with `open_corpus` (the server's in-memory ones) in database `db`."""
    router = APIRouter()
    add_db_views(router, db)
    add_lookup_views(router, open_corpus)
    add_corpus_views(router, open_corpus, db)
    css = (HERE / "static" / "explorer.css").read_text(encoding="utf-8")

    @router.get("/static/explorer.css", include_in_schema=False)
    def stylesheet() -> Response:
        return Response(css, media_type="text/css", headers={"Cache-Control": "max-age=3600"})

    return router
