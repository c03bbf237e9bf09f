"""Explorer views of a corpus as a whole (docs/explorer.md): the term ranking with its switch and filters and the
adaptation / log df scatter, related strings (jdf) and the exact 2x2 table of a pair, the segment box and the
studies stored for the corpus. Every statistic comes from the `termx.api.Corpus` / `termx.Database` face."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from termx.api import Corpus
from termx.database import Database
from termx.defaults import TERMS_MAX_LEN, TERMS_MIN_DF, TERMS_MIN_LEN, TERMS_RANK, Ranking
from termx.errors import InputError, TermxError, first_line
from termx.limits import HTTP
from termx.line_reader import split_lines
from termx.serve.explorer.pages import HEADERS, Page, Params, error, status_of, view
from termx.serve.explorer.svg import COLOURS, Series, plot

TERMS_SHOWN = 100
"""Terms a page shows by default."""
SCATTER_BACKGROUND = 300
"""Most frequent candidates (same filters) drawn behind the ranked terms in the scatter."""
TERMS_FIELDS = ("rank", "term", "score", "freq", "df", "len")
MEASURES = ("g2", "pmi", "dice", "lift")
"""The related-terms measures offered by the switch (Corpus.related checks the value)."""
SEGMENT_CHARS = 20_000
"""Longest text the segment box takes."""
SEGMENT_SCORERS = ("branching", "words")
"""The segment box's models: the corpus's self-trained one (with per-word scores), or its spacing's words."""
_TRAINING = threading.Lock()
"""One default segmentation model found or trained at a time (a corpus's first segmentation can take minutes)."""


def _terms_query(request: Request) -> dict[str, Any]:
    """The terms() arguments of a request's query string."""
    p = Params(request)
    return {"rank": p.choice("rank", TERMS_RANK, [r.value for r in Ranking]),
            "top": p.number("top", TERMS_SHOWN, 1, HTTP.top),
            "min_df": p.number("min_df", TERMS_MIN_DF, 1, HTTP.min_df),
            "min_len": p.number("min_len", TERMS_MIN_LEN, 1, HTTP.term_len),
            "max_len": p.number("max_len", TERMS_MAX_LEN, 1, HTTP.term_len),
            "reference": p.text("reference", None, 200) or None,
            "nested": p.flag("nested")}


def _sorted(rows: list[dict[str, Any]], request: Request) -> tuple[list[dict[str, Any]], str | None, bool]:
    """The rows ordered by the `sort` column (a sortable table without JavaScript); `desc` reverses."""
    p = Params(request)
    column = p.choice("sort", "rank", TERMS_FIELDS)
    desc = p.flag("desc")
    if column == "rank" and not desc:
        return rows, None, False

    def key(r: dict[str, Any]) -> Any:
        value = r.get(column)
        value = value[0] if isinstance(value, list) else value
        return (value is None, value if value is not None else 0)

    return sorted(rows, key=key, reverse=desc), column, desc


def scatter(ranked: list[dict[str, Any]], background: list[dict[str, Any]]) -> Any:
    """Adaptation against df_1 (log) of the background candidates, the ranked terms highlighted."""
    def series(rows: list[dict[str, Any]], name: str, colour: str) -> Series:
        shown = [r for r in rows if r.get("adaptation") is not None and r["df"] and r["df"][0] > 0]
        return Series(name, [r["df"][0] for r in shown], [r["adaptation"] for r in shown], "dots", colour)

    return plot([series(background, f"top {len(background)} by freq", "#9aa8bd"),
                 series(ranked, "ranked terms", COLOURS[1])], "df_1 (documents, log)", "adaptation df_2/df_1",
                log_x=True, title="adaptation against df")


def add_corpus_views(router: APIRouter, open_corpus: Callable[[str], Corpus], db: str | None) -> None:
    """Register the whole-corpus views on `router`."""

    @view(router, "/c/{corpus}/terms")
    def terms(request: Request, corpus: str) -> Page:
        c = open_corpus(corpus)
        args = _terms_query(request)
        rows, column, desc = _sorted(c.terms(**args), request)
        return Page(f"{corpus}: terms by {args['rank']}", "terms.html", rows, TERMS_FIELDS,
                    {"corpus": corpus, "args": args, "sort": column, "desc": desc, "ranks": [r.value for r in Ranking],
                     "corpora": Database(db).names()})

    @router.get("/c/{corpus}/terms.svg", include_in_schema=False)
    def terms_svg(request: Request, corpus: str) -> Response:
        """The scatter of the terms page (shown there as an image): the ranked terms and their background, with
        their adaptation from Corpus.stats."""
        try:
            c = open_corpus(corpus)
            args = _terms_query(request)
            ranked = c.terms(**args)
            background = c.terms(**{**args, "rank": "freq", "top": SCATTER_BACKGROUND, "reference": None,
                                        "nested": False})
            by_term = {r["pattern"]: r for r in c.stats(list({r["term"] for r in ranked + background}))}
        except TermxError as exc:
            return error("json", status_of(exc), first_line(exc))
        merged = [[{**r, "adaptation": by_term[r["term"]]["adaptation"]} for r in rows] for rows in (ranked,
                                                                                                      background)]
        return Response(str(scatter(merged[0], merged[1])), media_type="image/svg+xml", headers=HEADERS)

    @view(router, "/c/{corpus}/related")
    def related(request: Request, corpus: str) -> Page:
        c = open_corpus(corpus)
        p = Params(request)
        term = p.text("q", "", 1000) or ""
        measure = p.choice("measure", "g2", MEASURES)
        top = p.number("top", 20, 1, HTTP.top)
        min_df = p.number("min_df", 5, 1, HTTP.min_df)
        rows = c.related(term, top, measure, min_df) if term else []
        return Page(f"{corpus}: related to {term}", "related.html", rows, (),
                    {"corpus": corpus, "term": term, "measure": measure, "measures": MEASURES, "top": top,
                     "min_df": min_df})

    @view(router, "/c/{corpus}/jdf")
    def jdf(request: Request, corpus: str) -> Page:
        c = open_corpus(corpus)
        p = Params(request)
        x, y = p.text("x", "", 1000) or "", p.text("y", "", 1000) or ""
        if not x or not y:
            raise InputError("give both strings of the pair: ?x=...&y=...", params=("x",))
        rows = c.jdf(x, [y])
        return Page(f"{corpus}: jdf of {x} and {y}", "jdf.html", rows, (), {"corpus": corpus, "x": x, "y": y})

    @view(router, "/c/{corpus}/segment")
    def segment(request: Request, corpus: str) -> Page:
        c = open_corpus(corpus)
        p = Params(request)
        text = p.text("text", "", SEGMENT_CHARS) or ""
        scorer = p.choice("scorer", SEGMENT_SCORERS[0], SEGMENT_SCORERS)
        lines = [line for line in split_lines(text) if line.strip()]
        if len(lines) > HTTP.lines:
            raise InputError(f"at most {HTTP.lines} lines", params=("text",))
        rows: list[Any] = []
        if lines and scorer == "words":
            with _TRAINING:  # the words model, found stored or counted once (as POST /segment does)
                rows = list(c.segment_records(lines, scorer="words"))
        elif lines:
            if not c.has_model():
                with _TRAINING:  # the default model, found stored or trained once (as POST /segment does)
                    c.model()
            rows = list(c.segment_scores(lines))
        words = sorted({w for r in rows for w in r["words"]})
        stats = {r["pattern"]: r for r in c.stats(words)} if words else {}
        return Page(f"{corpus}: segment", "segment.html", rows,
                    ("line", "text", "words", "boundaries", "scores", "total"),
                    {"corpus": corpus, "text": text, "stats": stats, "scorer": scorer, "scorers": SEGMENT_SCORERS,
                     "corpora": Database(db).names()})

    @view(router, "/c/{corpus}/studies")
    def studies(request: Request, corpus: str) -> Page:
        c = open_corpus(corpus)
        freq = Params(request).number("freq", 10, 1, 2**31 - 1)
        rows = Database(db).sql("crossval_bins", {"corpus": corpus, "freq": freq})
        figure = plot([Series("freq*", [r["df"] for r in rows], [r["freq_star"] for r in rows], "line")],
                      f"df_1 in half 1 (strings with freq {freq} there)", "freq* (mean freq in half 2)",
                      title="freq* by df", whole_x=True) if rows else None
        return Page(f"{corpus}: studies", "studies.html", rows, ("freq", "df", "freq_star", "n", "classes"),
                    {"corpus": corpus, "freq": freq, "figure": figure, "info": c.info})
