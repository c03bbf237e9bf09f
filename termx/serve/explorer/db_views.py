"""Explorer views of the database (docs/explorer.md): the corpora list (the landing page), the analyst queries of
sql/ as forms, the read-only SQL box (the role, rules and row cap of `termx sql`, plus a statement timeout), and
`/go`, which turns a form's choice of corpus and view into that view's URL."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from termx.database import Database
from termx.errors import InputError
from termx.limits import HTTP
from termx.serve.explorer.pages import Page, Params, error, view

CORPUS_FIELDS = ("name", "unit", "tokens", "documents", "classes", "shards", "created_at")
SQL_TIMEOUT_MS = 5000
"""The statement timeout of a query run from the explorer."""
SQL_ROWS = HTTP.limit
"""Most rows a query run from the explorer may return."""
VIEWS = ("stats", "dist", "class", "concordance", "terms", "related", "segment", "studies")
"""The corpus views /go may lead to."""


def add_db_views(router: APIRouter, db: str | None) -> None:
    """Register the database views on `router`."""

    def corpora_page(request: Request) -> Page:
        return Page("termx explorer", "corpora.html", Database(db).corpora(), CORPUS_FIELDS)

    view(router, "/", exports=False)(corpora_page)
    view(router, "/c")(corpora_page)

    @router.get("/go", include_in_schema=False, response_model=None)
    def go(request: Request) -> Response:
        """A form's corpus and view as the view's URL (its other fields as the query string)."""
        p = Params(request)
        try:
            corpus = p.text("corpus", "", 200) or ""
            target = p.choice("view", "stats", VIEWS)
            if not corpus:
                raise InputError("choose a corpus", params=("corpus",))
        except InputError as exc:
            return error(None, 400, str(exc))
        rest = [(k, v) for k, v in request.query_params.multi_items() if k not in ("corpus", "view")]
        query = f"?{urlencode(rest)}" if rest else ""
        return RedirectResponse(f"/c/{quote(corpus, safe='')}/{target}{query}", status_code=303)

    @view(router, "/sql")
    def sql_box(request: Request) -> Page:
        statement = Params(request).text("sql", "", 20_000) or ""
        rows = Database(db).query(statement, timeout_ms=SQL_TIMEOUT_MS, max_rows=SQL_ROWS) if statement else []
        return Page("SQL", "sql.html", rows, (), {"statement": statement, "queries": _queries(),
                                                  "timeout": SQL_TIMEOUT_MS, "max_rows": SQL_ROWS})

    @view(router, "/sql/{name}")
    def sql_query(request: Request, name: str) -> Page:
        queries = {q["name"]: q for q in _queries()}
        if name not in queries:
            raise InputError(f"no query named {name!r}", f"one of: {', '.join(queries)}")
        query = queries[name]
        given = {k: v for k, v in request.query_params.items() if k in query["fields"] and v != ""}
        run = Params(request).flag("run") or bool(given)
        rows = Database(db).sql(name, given, timeout_ms=SQL_TIMEOUT_MS, max_rows=SQL_ROWS) if run else []
        return Page(f"SQL: {name}", "sql_query.html", rows, (),
                    {"query": query, "given": given, "run": run, "timeout": SQL_TIMEOUT_MS})


def _queries() -> list[dict[str, Any]]:
    """The shipped queries with their parameters as form fields: name -> default ('' when it has none)."""
    out: list[dict[str, Any]] = []
    for q in Database.queries():
        fields: dict[str, str] = {}
        for param in str(q["params"]).split():
            name, _, default = param.partition("=")
            fields[name] = default
        out.append({**q, "fields": fields})
    return out
