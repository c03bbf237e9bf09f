"""The HTTP JSON API: POST /stats, /concordance, /terms, /segment (and GET /corpora, /health), each answering
with the records `termx ... --format json` prints. One `termx.api.Corpus` per name stays in memory with its
index and segmentation model. Bad input is 400 with a one-line reason, an unknown corpus 404, a body over
`max_body` bytes 413; the OpenAPI page is at /docs."""

from __future__ import annotations

import threading
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from termx.api import Corpus
from termx.choices import Ranking
from termx.errors import CorpusNotFound, DatabaseUnavailable, TermxError

DEFAULT_MAX_BODY = 1 << 20
"""Largest request body accepted, in bytes."""
MAX_LINES = 10_000
"""Most lines one /segment request may carry."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StatsRequest(_Strict):
    corpus: str
    patterns: list[str] = Field(min_length=1, max_length=1000)


class ConcordanceRequest(_Strict):
    corpus: str
    pattern: str
    left: int = Field(10, ge=0, le=1000)
    right: int = Field(40, ge=0, le=1000)
    limit: int = Field(100, ge=1, le=10_000)


class TermsRequest(_Strict):
    corpus: str
    rank: Ranking = Ranking.adaptation
    top: int = Field(100, ge=1, le=10_000)
    min_df: int = Field(3, ge=1)
    min_len: int = Field(2, ge=1)
    max_len: int = Field(40, ge=1)
    reference: str | None = None


class SegmentRequest(_Strict):
    corpus: str
    lines: list[str] = Field(max_length=MAX_LINES)
    max_len: int | None = Field(None, ge=1, le=256)
    params: dict[str, float] | None = None


class _BodyLimit:
    """413 for a body over `limit` bytes, by its Content-Length or, when streamed, as it arrives."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await _too_large(self.limit)(scope, receive, send)
            return
        seen = 0
        exceeded = False
        answered = False

        async def limited() -> Message:
            nonlocal seen, exceeded
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:  # stop reading; whatever the app answers becomes a 413
                exceeded = True
                return {"type": "http.request", "body": b"", "more_body": False}
            return message

        async def guarded(message: Message) -> None:
            nonlocal answered
            if not exceeded:
                await send(message)
            elif not answered:
                answered = True
                await _too_large(self.limit)(scope, receive, send)

        await self.app(scope, limited, guarded)


def _too_large(limit: int) -> JSONResponse:
    return JSONResponse({"error": f"request body over {limit} bytes"}, status_code=413)


def _one_line(exc: RequestValidationError) -> str:
    """The first validation error as one line: where and what."""
    errors = exc.errors()
    if not errors:
        return "invalid request"
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    return f"{where}: {first.get('msg', 'invalid')}"


def create_app(db: str | None = None, max_body: int = DEFAULT_MAX_BODY) -> FastAPI:
    """The application for database `db` (default: TERMX_DATABASE_URL, else the embedded server)."""
    app = FastAPI(title="termx", summary="Substring statistics, terms and word breaking of indexed corpora.",
                  version="0.1.0")
    corpora: dict[str, Corpus] = {}
    lock = threading.Lock()

    def corpus(name: str) -> Corpus:
        with lock:
            if name not in corpora:
                corpora[name] = Corpus(name, db)
            return corpora[name]

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _one_line(exc)}, status_code=400)

    @app.exception_handler(TermxError)
    async def termx_error(request: Request, exc: TermxError) -> JSONResponse:
        status = 404 if isinstance(exc, CorpusNotFound) else 503 if isinstance(exc, DatabaseUnavailable) else 400
        return JSONResponse({"error": str(exc).splitlines()[0]}, status_code=status)

    @app.get("/health")
    def health() -> dict[str, Any]:
        """Liveness, and the corpora held in memory."""
        return {"status": "ok", "loaded": sorted(corpora)}

    @app.get("/corpora")
    def list_corpora() -> list[dict[str, Any]]:
        """The indexed corpora (`termx corpora --format json`)."""
        from termx.storage.db import get_engine
        from termx.storage.store import corpus_rows

        return corpus_rows(get_engine(db))

    @app.post("/stats")
    def stats(body: StatsRequest) -> list[dict[str, Any]]:
        """Statistics of each pattern (`termx stats --format json`)."""
        return corpus(body.corpus).stats(body.patterns)  # type: ignore[return-value]

    @app.post("/concordance")
    def concordance(body: ConcordanceRequest) -> list[dict[str, Any]]:
        """KWIC lines of a pattern (`termx concordance --format json`)."""
        return corpus(body.corpus).concordance(body.pattern, body.left, body.right,  # type: ignore[return-value]
                                               body.limit)

    @app.post("/terms")
    def terms(body: TermsRequest) -> list[dict[str, Any]]:
        """Top terms of a corpus (`termx terms --format json`)."""
        return corpus(body.corpus).terms(body.rank.value, body.top, body.min_df, body.min_len, body.max_len,
                                         body.reference)

    @app.post("/segment")
    def segment(body: SegmentRequest) -> list[dict[str, Any]]:
        """Words of each line (`termx segment --format json`)."""
        c = corpus(body.corpus)
        return list(c.segment_records(body.lines, max_len=body.max_len, params=body.params))  # type: ignore[arg-type]

    app.add_middleware(_BodyLimit, limit=max_body)
    return app
