"""How every explorer view answers (docs/explorer.md): one Page of records rendered as HTML (Jinja2, autoescaped,
terminal controls shown visibly), JSON (the exact records) or CSV (the same values: numbers as JSON writes them,
lists as JSON text, None empty); errors as a one-line page or `{"error": ...}`. Query strings are read here with
their ranges checked, so a bad value is a one-line InputError in the view's own format."""

from __future__ import annotations

import csv
import functools
import io
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from markupsafe import Markup

from termx.errors import CorpusNotFound, DatabaseUnavailable, InputError, ServerUnreachable, TermxError, first_line
from termx.safe_text import escape_controls

FORMATS = ("json", "csv")
"""The suffixes of a view's exports; without one a view answers HTML."""
HERE = Path(__file__).parent
HEADERS = {"Content-Security-Policy": "default-src 'self'; script-src 'none'; object-src 'none'; "
                                      "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
           "X-Content-Type-Options": "nosniff"}
"""Sent with every explorer answer: the pages hold no script, so none may run (a second wall behind the escaping),
and no answer is read as another type than it says."""
UNAVAILABLE = "database unavailable (the server's log says why)"
"""What a client is told when the database is down (where it is and why it failed stay in the log)."""


@dataclass
class Page:
    """What a view found: the records its .json carries as they are and its .csv in `fields` order (then any other
    key), and what its HTML shows."""

    title: str
    template: str
    rows: Sequence[Mapping[str, Any]]
    fields: Sequence[str] = ()
    context: dict[str, Any] = field(default_factory=dict)


class Params:
    """A request's query string, each value checked: InputError names a bad one."""

    def __init__(self, request: Request) -> None:
        self.query = request.query_params

    def text(self, name: str, default: str | None = None, most: int = 10_000) -> str | None:
        """One string (at most `most` characters)."""
        value = self.query.get(name, default)
        if value is not None and len(value) > most:
            raise InputError(f"`{name}` is longer than {most} characters", params=(name,))
        return value

    def texts(self, name: str, most: int) -> list[str]:
        """Every value of a repeated parameter (`?q=a&q=b`), empty ones dropped; at most `most` of them."""
        values = [v for v in self.query.getlist(name) if v != ""]
        if len(values) > most:
            raise InputError(f"at most {most} values of `{name}`", params=(name,))
        return values

    def number(self, name: str, default: int, low: int, high: int) -> int:
        """A whole number from `low` to `high`."""
        raw = self.query.get(name)
        if raw is None or raw == "":
            return default
        try:
            value = int(raw)
        except ValueError:
            raise InputError(f"`{name}` must be a whole number, not {raw[:40]!r}", params=(name,)) from None
        if not low <= value <= high:
            raise InputError(f"`{name}` must be from {low} to {high}, not {value}", params=(name,))
        return value

    def choice(self, name: str, default: str, choices: Sequence[str]) -> str:
        """One of `choices`."""
        value = self.query.get(name) or default
        if value not in choices:
            raise InputError(f"`{name}` must be one of {', '.join(choices)}, not {value[:40]!r}", params=(name,))
        return value

    def flag(self, name: str) -> bool:
        """Present and not 0/false/empty."""
        return self.query.get(name, "") not in ("", "0", "false", "no")


LAYOUT_RE = re.compile(r"([\n\t])")
"""The controls a page keeps as they are (line breaks and tabs lay text out; no other control does anything good)."""


def _finalize(value: Any) -> Any:
    """Every value a template prints: corpus text with its terminal controls but line breaks and tabs written visibly
    (then autoescaped)."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return "".join(part if LAYOUT_RE.fullmatch(part) else escape_controls(part) for part in LAYOUT_RE.split(value))
    return "" if value is None else value


def _shown(value: Any, digits: int = 4) -> str:
    """A number for the HTML tables only (exports keep every digit): floats to `digits` significant digits."""
    if isinstance(value, float):
        return f"{value:.{digits}g}" if math.isfinite(value) else str(value)
    if isinstance(value, list):
        return " ".join(_shown(v, digits) for v in value)
    return "" if value is None else str(value)


@functools.cache
def environment() -> Any:
    """The Jinja2 environment of templates/ (autoescape on for every template)."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                             finalize=_finalize, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["shown"] = _shown
    env.filters["oneline"] = lambda text: (text or "").replace("\n", "⏎").replace("\t", "→")  # KWIC cells
    env.globals["urlencode"] = lambda pairs: urlencode([(k, v) for k, v in pairs if v is not None], doseq=True)
    return env


def csv_cell(value: Any) -> str:
    """A CSV cell holding exactly the JSON value: strings as they are, None empty, anything else as JSON text."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def csv_text(rows: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> str:
    """The records as CSV with a header line: `fields` first, then any other key the records have (a sharded
    corpus's "shards", a bad pattern's "error"), in the order first seen."""
    names = list(dict.fromkeys([*fields, *(k for r in rows for k in r)]))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(names)
    for row in rows:
        writer.writerow([csv_cell(row.get(n)) for n in names])
    return out.getvalue()


def render(page: Page, fmt: str | None, request: Request) -> Response:
    """The page in format `fmt` (None: HTML)."""
    if fmt == "json":
        return Response(json.dumps(list(page.rows), ensure_ascii=False, allow_nan=False),
                        media_type="application/json", headers=HEADERS)
    if fmt == "csv":
        return Response(csv_text(page.rows, page.fields), media_type="text/csv; charset=utf-8", headers=HEADERS)
    path = request.url.path
    query = str(request.url.query)
    exports = {f: f"{'/c' if path == '/' else path}.{f}" + (f"?{query}" if query else "") for f in FORMATS}
    html = environment().get_template(page.template).render(title=page.title, rows=page.rows, fields=page.fields,
                                                             exports=exports, path=path, **page.context)
    return HTMLResponse(html, headers=HEADERS)


def error(fmt: str | None, status: int, message: str) -> Response:
    """An error in the view's format: `{"error": ...}`, or a page whose one line says it."""
    if fmt is not None:
        return JSONResponse({"error": message}, status_code=status, headers=HEADERS)
    html = environment().get_template("error.html").render(title=f"error {status}", message=message)
    return HTMLResponse(html, status_code=status, headers=HEADERS)


def status_of(exc: TermxError) -> int:
    """404 for an unknown corpus, 503 for a database that cannot be reached, 400 for other bad input."""
    return 404 if isinstance(exc, CorpusNotFound) else 503 if isinstance(exc, DatabaseUnavailable) else 400


def view(router: APIRouter, path: str, exports: bool = True) -> Callable[[Callable[..., Page]], Callable[..., Page]]:
    """Register `fn(request, **path params) -> Page` at `path` (HTML) and, with `exports`, at `path.json` and
    `path.csv`; a TermxError it raises becomes the error of that format."""

    def register(fn: Callable[..., Page]) -> Callable[..., Page]:
        @functools.wraps(fn)
        def endpoint(*args: Any, **kwargs: Any) -> Response:
            request: Request = kwargs["request"]
            suffix = request.url.path.rsplit(".", 1)[-1] if "." in request.url.path.rsplit("/", 1)[-1] else None
            fmt = suffix if suffix in FORMATS else None
            try:
                return render(fn(*args, **kwargs), fmt, request)
            except TermxError as exc:
                status = status_of(exc)
                line = first_line(exc) if status != 503 else \
                    f"{exc.what} (the server's log says why)" if isinstance(exc, ServerUnreachable) else UNAVAILABLE
                return error(fmt, status, line)

        for suffix in (*((f".{f}" for f in FORMATS) if exports else ()), ""):  # `{name}` would match "x.json"
            router.add_api_route(path + suffix, endpoint, methods=["GET"], response_model=None,
                                 include_in_schema=False)
        return fn

    return register
