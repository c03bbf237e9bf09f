"""The HTTP JSON API: /stats, /concordance, /terms, /segment by POST (a JSON body) or GET (a query string), and
GET /corpora, /health, each answering with the records `termx ... --format json` prints. One `termx.api.Corpus`
per name stays in memory with its index and segmentation models. Every error is `{"error": "<one line>"}`: 400
for bad input (termx.limits gives the ranges), 404 for an unknown corpus or path, 405, 413 for a body over
`max_body` bytes, 421 for a Host header the server does not answer to, 503 when the database is down or a model
is being trained for another request; the OpenAPI page is at /docs."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Annotated, Any, Literal

import psycopg
import sqlalchemy as sa
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from termx.api import Corpus
from termx.defaults import (
    LEFT,
    LIMIT,
    RIGHT,
    TERMS_MAX_LEN,
    TERMS_MIN_DF,
    TERMS_MIN_LEN,
    TERMS_RANK,
    TERMS_TOP,
    Ranking,
)
from termx.errors import (
    CorpusNotFound,
    DatabaseUnavailable,
    ServerUnreachable,
    TermxError,
    database_error_line,
    first_line,
    lost_storage_server,
    unreachable_server,
)
from termx.limits import HTTP, MAX_LEN

DEFAULT_MAX_BODY = 1 << 20
"""Largest request body accepted, in bytes."""
MAX_LINES = HTTP.lines
"""Most lines one /segment request may carry."""
DEFAULT_MAX_TRAIN_TOKENS = HTTP.train_tokens
"""Largest corpus (tokens) a request may have a model trained on for its own params."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")
"""The names a server on the loopback interface answers to by default."""
UNSEEN = "(the server's log says why)"
"""What an answer says instead of a database's own reason (it may name hosts and ports)."""
UNAVAILABLE = f"database unavailable {UNSEEN}"
"""What a client is told when the database is down: where the database is and why it failed stay in the log."""

log = logging.getLogger("termx.serve")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StatsRequest(_Strict):
    corpus: str
    patterns: list[str] = Field(min_length=1, max_length=HTTP.patterns)


class ConcordanceRequest(_Strict):
    corpus: str
    pattern: str
    left: int = Field(LEFT, ge=0, le=HTTP.context)
    right: int = Field(RIGHT, ge=0, le=HTTP.context)
    limit: int = Field(LIMIT, ge=1, le=HTTP.limit)


class TermsRequest(_Strict):
    corpus: str
    rank: Ranking = Ranking(TERMS_RANK)
    top: int = Field(TERMS_TOP, ge=1, le=HTTP.top)
    min_df: int = Field(TERMS_MIN_DF, ge=1, le=HTTP.min_df)
    min_len: int = Field(TERMS_MIN_LEN, ge=1, le=HTTP.term_len)
    max_len: int = Field(TERMS_MAX_LEN, ge=1, le=HTTP.term_len)
    reference: str | None = None
    nested: bool = False


class SegmentRequest(_Strict):
    corpus: str
    lines: list[str] = Field(max_length=MAX_LINES)
    max_len: int | None = Field(None, ge=int(MAX_LEN.low), le=int(MAX_LEN.high))
    params: dict[str, float] | None = None
    store: bool = False
    scorer: Literal["branching", "words"] = "branching"


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
            await _error(413, f"request body over {self.limit} bytes")(scope, receive, send)
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
                await _error(413, f"request body over {self.limit} bytes")(scope, receive, send)

        await self.app(scope, limited, guarded)


class _Hosts:
    """421 for a request whose Host header names none of `names` (or names another port than `port`): a page
    of another site whose name was re-pointed at 127.0.0.1 (DNS rebinding) cannot read the API."""

    def __init__(self, app: ASGIApp, names: Iterable[str], port: int | None) -> None:
        self.app = app
        self.names = {n.strip("[]").lower() for n in names}
        self.port = port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = dict(scope.get("headers") or []).get(b"host") if scope["type"] == "http" else None
        if host is not None and not self.allowed(host.decode("latin-1")):
            shown = host.decode("latin-1")[:100]
            await _error(421, f"this server does not answer to host {shown!r} (start it with --allow-host NAME "
                              "to add a name)")(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def allowed(self, host: str) -> bool:
        """Whether `host` (name[:port], [v6 address][:port]) is one of ours."""
        if host.startswith("["):
            name, _, rest = host[1:].partition("]")
            port = rest[1:] if rest.startswith(":") else None
        elif host.count(":") == 1:
            name, _, port = host.partition(":")
        else:
            name, port = host, None
        if port is not None and self.port is not None and port != str(self.port):
            return False
        return name.lower() in self.names


class _Unexpected:
    """A 500 `{"error": ...}` and one log line for an exception no handler knows (no traceback in the log)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            log.error("termx serve: 500 on %s %s: %s: %s", scope.get("method"), scope.get("path"),
                      type(exc).__name__, first_line(exc))
            if not started:
                await _error(500, f"internal error ({type(exc).__name__})")(scope, receive, send)


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """The one error shape of every answer: `{"error": "<one line>"}`."""
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _one_line(errors: Any) -> str:
    """The first validation error as one line: where and what."""
    if not errors:
        return "invalid request"
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "query")) or "body"
    return f"{where}: {first.get('msg', 'invalid')}"


def _database_status(exc: Exception) -> tuple[int, str] | None:
    """503 and a line for a database that cannot be reached (the server went away), 500 for another database
    error; None when `exc` is not a database error."""
    message = database_error_line(exc)
    if message is None:
        return None
    unreachable = (message.startswith("lost or could not open") or unreachable_server(exc) is not None
                   or lost_storage_server(exc) is not None)
    return (503 if unreachable else 500), message.split(" (")[0]


def _install_handlers(app: FastAPI) -> None:
    """Every error answered as `{"error": "<one line>"}` with one log line for the server's own faults."""

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(400, _one_line(exc.errors()))

    @app.exception_handler(ValidationError)
    async def bad_query(request: Request, exc: ValidationError) -> JSONResponse:
        return _error(400, _one_line(exc.errors()))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail), dict(exc.headers or {}))

    @app.exception_handler(TermxError)
    async def termx_error(request: Request, exc: TermxError) -> JSONResponse:
        if isinstance(exc, DatabaseUnavailable):
            log.error("termx serve: 503 on %s %s: %s", request.method, request.url.path, first_line(exc))
            return _error(503, f"{exc.what} {UNSEEN}" if isinstance(exc, ServerUnreachable) else UNAVAILABLE)
        return _error(404 if isinstance(exc, CorpusNotFound) else 400, first_line(exc))

    async def database_error(request: Request, exc: Exception) -> JSONResponse:
        status, message = _database_status(exc) or (500, f"database error ({type(exc).__name__})")
        log.error("termx serve: %d on %s %s: %s", status, request.method, request.url.path, message)
        server = unreachable_server(exc)
        if server is not None:  # postgres_fdw's failure outside the library's own naming of the shards
            return _error(503, f"storage server {server[0]!r} is unreachable {UNSEEN}")
        if lost_storage_server(exc) is not None:
            return _error(503, f"a storage server went away in the middle of the statement {UNSEEN}")
        return _error(status, UNAVAILABLE if status == 503 else f"database error {UNSEEN}")

    app.add_exception_handler(sa.exc.DBAPIError, database_error)
    app.add_exception_handler(psycopg.Error, database_error)


def _refuse_training(corpus: Corpus, body: SegmentRequest, max_tokens: int) -> JSONResponse | None:
    """400 when the request's own params would need a model trained on a corpus over `max_tokens` tokens, or
    stored beside HTTP.stored_models others; None when it may go ahead."""
    if not body.params or corpus.has_model(body.max_len, body.params, stored=True):
        return None
    if corpus.info.tokens > max_tokens:
        return _error(400, f"no model of corpus {corpus.name!r} is stored for these params, and this server trains "
                           f"one for a request only on corpora of at most {max_tokens:,} tokens (it has "
                           f"{corpus.info.tokens:,}): store it first with `termx segment {corpus.name} --param "
                           "...`, or start the server with a larger --max-train-tokens")
    if body.store:
        if len(corpus.stored_models()) >= HTTP.stored_models:
            return _error(400, f"corpus {corpus.name!r} has {HTTP.stored_models} segmentation models stored, the "
                               "most a request may add to (send it without \"store\", or delete rows of "
                               "termx.segment_model with `termx db psql`)")
    return None


def create_app(db: str | None = None, max_body: int = DEFAULT_MAX_BODY, hosts: Iterable[str] = LOOPBACK,
               port: int | None = None, max_train_tokens: int = DEFAULT_MAX_TRAIN_TOKENS) -> FastAPI:
    """The application for database `db` (default: TERMX_DATABASE_URL, else the embedded server), answering
    requests whose Host header is one of `hosts` (with `port`, when given, or no port), and training a model
    for a request's own params only on a corpus of at most `max_train_tokens` tokens."""
    app = FastAPI(title="termx", summary="Substring statistics, terms and word breaking of indexed corpora.",
                  version="0.1.0")
    corpora: dict[str, Corpus] = {}
    lock = threading.Lock()
    training = threading.Lock()  # one model trained at a time

    def open_corpus(name: str) -> Corpus:
        with lock:
            if name not in corpora:
                corpora[name] = Corpus(name, db)
            return corpora[name]

    _install_handlers(app)
    from termx.serve.explorer import explorer_router  # the HTML explorer (docs/explorer.md)

    app.include_router(explorer_router(open_corpus, db))

    @app.get("/health")
    def health() -> dict[str, Any]:
        """Liveness, and the corpora held in memory."""
        return {"status": "ok", "loaded": sorted(corpora)}

    @app.get("/corpora")
    def list_corpora() -> list[dict[str, Any]]:
        """The indexed corpora (`termx corpora --format json`)."""
        from termx.database import Database

        return Database(db).corpora()

    @app.post("/stats")
    def stats(body: StatsRequest) -> list[dict[str, Any]]:
        """Statistics of each pattern (`termx stats --format json`)."""
        return open_corpus(body.corpus).stats(body.patterns)  # type: ignore[return-value]

    @app.get("/stats", name="stats (GET)")
    def stats_get(corpus: str, pattern: Annotated[list[str], Query()]) -> list[dict[str, Any]]:
        """POST /stats as a query string: /stats?corpus=NAME&pattern=P1&pattern=P2."""
        return stats(StatsRequest(corpus=corpus, patterns=pattern))

    @app.post("/concordance")
    def concordance(body: ConcordanceRequest) -> list[dict[str, Any]]:
        """KWIC lines of a pattern (`termx concordance --format json`)."""
        return open_corpus(body.corpus).concordance(body.pattern, body.left, body.right,  # type: ignore[return-value]
                                               body.limit)

    @app.get("/concordance", name="concordance (GET)")
    def concordance_get(corpus: str, pattern: str, left: int = LEFT, right: int = RIGHT,
                        limit: int = LIMIT) -> list[dict[str, Any]]:
        """POST /concordance as a query string."""
        return concordance(ConcordanceRequest(corpus=corpus, pattern=pattern, left=left, right=right, limit=limit))

    @app.post("/terms")
    def terms(body: TermsRequest) -> list[dict[str, Any]]:
        """Top terms of a corpus (`termx terms --format json`)."""
        return open_corpus(body.corpus).terms(body.rank.value, body.top, body.min_df, body.min_len, body.max_len,
                                         body.reference, nested=body.nested)

    @app.get("/terms", name="terms (GET)")
    def terms_get(corpus: str, rank: Ranking = Ranking(TERMS_RANK), top: int = TERMS_TOP,
                  min_df: int = TERMS_MIN_DF, min_len: int = TERMS_MIN_LEN, max_len: int = TERMS_MAX_LEN,
                  reference: str | None = None, nested: bool = False) -> list[dict[str, Any]]:
        """POST /terms as a query string."""
        return terms(TermsRequest(corpus=corpus, rank=rank, top=top, min_df=min_df, min_len=min_len,
                                  max_len=max_len, reference=reference, nested=nested))

    @app.post("/segment", response_model=None)
    def segment(body: SegmentRequest) -> list[dict[str, Any]] | JSONResponse:
        """Words of each line (`termx segment --format json`). A model for the request's own `params` is trained
        when none is stored (one training at a time, on a corpus of at most max_train_tokens tokens) and stored
        only with `"store": true`."""
        c = open_corpus(body.corpus)
        if body.scorer == "words":  # counted once and stored: the counts serve every params (docs/segment.md)
            with training:
                c.word_model(body.max_len, body.params)
            return list(c.segment_records(body.lines, max_len=body.max_len,  # type: ignore[arg-type]
                                          params=body.params, scorer="words"))
        store = body.store or not body.params
        if not c.has_model(body.max_len, body.params):
            refused = _refuse_training(c, body, max_train_tokens)
            if refused is not None:
                return refused
            if not training.acquire(blocking=not body.params):  # the default model: wait for it, it is shared
                return _error(503, "another request's model is being trained (retry later, or use the default "
                                   "params)", {"Retry-After": "60"})
            try:
                c.model(body.max_len, body.params, store=store)
            finally:
                training.release()
        return list(c.segment_records(body.lines, max_len=body.max_len, params=body.params,  # type: ignore[arg-type]
                                      store=store))

    @app.get("/segment", name="segment (GET)", response_model=None)
    def segment_get(corpus: str, line: Annotated[list[str], Query()], max_len: int | None = None,
                    scorer: Literal["branching", "words"] = "branching") -> list[dict[str, Any]] | JSONResponse:
        """POST /segment as a query string (the default params): /segment?corpus=NAME&line=L1&line=L2."""
        return segment(SegmentRequest(corpus=corpus, lines=line, max_len=max_len, scorer=scorer))

    app.add_middleware(_BodyLimit, limit=max_body)
    app.add_middleware(_Hosts, names=hosts, port=port)
    app.add_middleware(_Unexpected)
    return app
