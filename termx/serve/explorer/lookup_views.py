"""Explorer views of patterns (docs/explorer.md): look-up (stats of several patterns, with a df_k plot beside the
Poisson, negative binomial and K-mixture expectations), Pr(k) fits, classes, concordance pages and the document
of a concordance line. Every statistic comes from the `termx.api.Corpus` face."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from termx.api import Corpus, record_fields
from termx.errors import InputError, TermxError, first_line
from termx.limits import HTTP
from termx.line_reader import split_lines
from termx.serve.explorer.pages import HEADERS, Page, Params, error, status_of, view
from termx.serve.explorer.svg import COLOURS, Series, plot

PER_PAGE = 50
"""Concordance lines per page by default."""
DOCUMENT_CONTEXT = 200_000
"""Tokens of a document shown either side of the highlighted occurrence."""
MODELS = (("poisson", "Poisson", COLOURS[1]), ("negative_binomial", "negative binomial", COLOURS[2]),
          ("katz", "K-mixture", COLOURS[3]))


def df_plot(fit: dict[str, Any]) -> Any:
    """df_k against k (log scale) for one record of Corpus.iter_fits, with each fitted model's expectation."""
    ks = list(range(1, len(fit["df"]) + 1))
    series = [Series("observed df_k", ks, fit["df"])]
    series += [Series(label, ks, fit["expected"][key], "dash", colour) for key, label, colour in MODELS
               if fit["expected"][key] is not None]
    return plot(series, "k (occurrences in a document, at least)", "df_k (documents)", log_y=True,
                title=f"df_k of {fit['pattern']}", whole_x=True)


def add_lookup_views(router: APIRouter, open_corpus: Callable[[str], Corpus]) -> None:
    """Register the pattern views on `router`."""

    @view(router, "/c/{corpus}/stats")
    def stats(request: Request, corpus: str) -> Page:
        c = open_corpus(corpus)
        p = Params(request)
        patterns = p.texts("q", HTTP.patterns) + [line for line in split_lines(p.text("lines", "", 100_000) or "")
                                                  if line.strip()]
        if len(patterns) > HTTP.patterns:
            raise InputError(f"at most {HTTP.patterns} patterns", params=("q",))
        return Page(f"{corpus}: look-up", "stats.html", c.stats(patterns) if patterns else [],
                    record_fields("stats"), {"corpus": corpus, "info": c.info, "patterns": patterns})

    @view(router, "/c/{corpus}/dist")
    def dist(request: Request, corpus: str) -> Page:
        c = open_corpus(corpus)
        patterns = Params(request).texts("q", HTTP.patterns)
        rows = list(c.iter_fits(patterns))
        return Page(f"{corpus}: Pr(k) fits", "dist.html", rows, (*record_fields("dist"), "df", "expected"),
                    {"corpus": corpus, "patterns": patterns, "plots": [df_plot(r) for r in rows if "error" not in r]})

    @router.get("/c/{corpus}/plot.svg", include_in_schema=False)
    def plot_svg(request: Request, corpus: str) -> Response:
        """The df_k plot of one pattern (the look-up page shows it as an image)."""
        try:
            pattern = Params(request).text("q", "", 1000) or ""
            fit = next(open_corpus(corpus).iter_fits([pattern]))
        except TermxError as exc:
            return error("json", status_of(exc), first_line(exc))
        if "error" in fit:
            return error("json", 400, fit["error"])
        return Response(str(df_plot(fit)), media_type="image/svg+xml", headers=HEADERS)

    @view(router, "/c/{corpus}/class")
    def classes(request: Request, corpus: str) -> Page:
        c = open_corpus(corpus)
        p = Params(request)
        pattern = p.text("q", "", 1000) or ""
        limit = p.number("limit", 1000, 1, HTTP.limit)
        rows = c.classes(pattern, members=True, limit=limit) if pattern else []
        return Page(f"{corpus}: class of {pattern}", "class.html", rows, (*record_fields("class"), "members"),
                    {"corpus": corpus, "pattern": pattern, "limit": limit})

    @view(router, "/c/{corpus}/concordance")
    def concordance(request: Request, corpus: str) -> Page:
        c = open_corpus(corpus)
        p = Params(request)
        pattern = p.text("q", "", 1000) or ""
        per = p.number("per", PER_PAGE, 1, 1000)
        page = p.number("page", 1, 1, HTTP.limit)
        width = p.number("width", 40, 0, HTTP.context)
        if page * per > HTTP.limit:
            raise InputError(f"page {page} of {per} lines is beyond the first {HTTP.limit} lines a request may "
                             "show", "narrow the pattern, or use termx concordance", ("page",))
        lines = c.concordance(pattern, width, width, page * per)[(page - 1) * per:] if pattern else []
        total = c.occurrences(pattern) if pattern else 0
        return Page(f"{corpus}: concordance of {pattern}", "concordance.html", lines, record_fields("concordance"),
                    {"corpus": corpus, "pattern": pattern, "page": page, "per": per, "width": width, "total": total,
                     "pages": min(-(-total // per), HTTP.limit // per)})

    @view(router, "/c/{corpus}/doc")
    def document(request: Request, corpus: str) -> Page:
        c = open_corpus(corpus)
        p = Params(request)
        doc_no = p.number("doc_no", 0, 0, 2**31 - 1)
        record = c.document(doc_no, p.number("offset", 0, 0, 2**40), p.text("q", None, 1000) or None,
                            DOCUMENT_CONTEXT)
        return Page(f"{corpus}: document {record['doc']}", "document.html", [record],
                    ("doc", "doc_no", "tokens", "offset", "before", "match", "after"),
                    {"corpus": corpus, "record": record, "pattern": p.text("q", "", 1000)})

