"""`termx serve`: the HTTP JSON API (optional extra `serve`: FastAPI + uvicorn)."""

from __future__ import annotations

from typing import Annotated

import typer

from termx.cli.options import DbOption, QuietOption, VerboseOption, notice
from termx.cli.root import DATABASE_PANEL, app
from termx.limits import HTTP

LOOPBACK = ("127.0.0.1", "::1", "localhost")
"""Addresses that only this machine reaches (the same names termx.serve answers to by default)."""


@app.command(rich_help_panel=DATABASE_PANEL)
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to bind. Anything but loopback exposes every "
                                      "corpus in the database to the network, unauthenticated.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port.")] = 8765,
    max_body: Annotated[int, typer.Option("--max-body", min=1, help="Largest request body in bytes; larger "
                                          "ones get 413.")] = 1 << 20,
    max_train_tokens: Annotated[int, typer.Option("--max-train-tokens", min=0, help="Train a segmentation model "
                                                  "for a request's own params only on corpora of at most this "
                                                  "many tokens (bigger ones answer 400 unless the model is "
                                                  "stored: `termx segment CORPUS --param ...` stores it).")]
    = HTTP.train_tokens,
    allow_host: Annotated[list[str] | None, typer.Option("--allow-host", help="Also answer requests whose Host "
                                                         "header is NAME (a name this machine is reached by; "
                                                         "repeatable). By default only 127.0.0.1, localhost, "
                                                         "[::1] and --host are answered, others get 421: a web "
                                                         "page cannot reach the server by re-pointing its own "
                                                         "name at 127.0.0.1 (DNS rebinding).", metavar="NAME")]
    = None,
    db: DbOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Answer /stats, /concordance, /terms and /segment (POST with a JSON body, or GET with a query string) with
    JSON (the records of --format json), keeping each corpus's index and its last segmentation models in memory;
    OpenAPI page at /docs. The explorer, web pages for analysts with .json/.csv exports of every view, is at
    http://127.0.0.1:8765/ (docs/explorer.md). Limits of one request: docs/python.md (HTTP)."""
    from termx.errors import MissingDependency

    try:
        import uvicorn

        from termx.serve import create_app
    except ImportError as exc:
        raise MissingDependency(f"termx serve needs {exc.name or 'fastapi'}", "pip install 'termx[serve]'") from None
    if host not in LOOPBACK:
        typer.echo(f"warning: listening on {host}: anyone who can reach it can query every corpus (it answers "
                   "only the Host names 127.0.0.1, localhost, --host and --allow-host NAME)", err=True)
    notice(f"termx serve: the explorer at http://{host}:{port}/ (OpenAPI page at /docs); Ctrl-C stops it")
    hosts = (*LOOPBACK, host, *(allow_host or ()))
    uvicorn.run(create_app(db, max_body, hosts, port, max_train_tokens), host=host, port=port, log_level="warning")
