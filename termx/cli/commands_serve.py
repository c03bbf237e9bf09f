"""`termx serve`: the HTTP JSON API (optional extra `serve`: FastAPI + uvicorn)."""

from __future__ import annotations

from typing import Annotated

import typer

from termx.cli import DATABASE_PANEL, app
from termx.cli.options import DbOption, QuietOption, VerboseOption, notice

LOOPBACK = ("127.0.0.1", "::1", "localhost")


@app.command(rich_help_panel=DATABASE_PANEL)
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to bind. Anything but loopback exposes every "
                                      "corpus in the database to the network, unauthenticated.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port.")] = 8765,
    max_body: Annotated[int, typer.Option("--max-body", min=1, help="Largest request body in bytes; larger "
                                          "ones get 413.")] = 1 << 20,
    db: DbOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Answer POST /stats, /concordance, /terms and /segment with JSON (the records of --format json), keeping
    each corpus's index and segmentation model in memory; OpenAPI page at /docs."""
    from termx.errors import MissingDependency

    try:
        import uvicorn

        from termx.serve import create_app
    except ImportError as exc:
        raise MissingDependency(f"termx serve needs {exc.name or 'fastapi'}", "pip install 'termx[serve]'") from None
    if host not in LOOPBACK:
        typer.echo(f"warning: listening on {host}: anyone who can reach it can query every corpus", err=True)
    notice(f"termx serve: http://{host}:{port} (OpenAPI page at /docs); Ctrl-C stops it")
    uvicorn.run(create_app(db, max_body), host=host, port=port, log_level="warning")
