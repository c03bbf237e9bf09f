"""The `cache` group: the look-up cache under $TERMX_HOME/cache (its size and cap, its folders, emptying it)."""

from __future__ import annotations

from typing import Annotated

import typer

from termx.cli import DATABASE_PANEL, app
from termx.cli.options import DbOption, FormatOption, QuietOption, VerboseOption, emit, notice
from termx.cli.output import Format, render, render_record

cache_app = typer.Typer(help="The look-up cache under $TERMX_HOME/cache (status, list, clear): memory-mapped copies "
                             "of what look-ups read, never the only copy.", no_args_is_help=True)
app.add_typer(cache_app, name="cache", rich_help_panel=DATABASE_PANEL)


@cache_app.command("status")
def cache_status(fmt: FormatOption = Format.table, quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Where the cache is, its size, its cap (TERMX_CACHE_MAX_GB; the least recently used builds go first when a new
    one would pass it) and how many corpus builds it holds."""
    from termx.storage.disk_cache import cache_entries, cache_limit, cache_size
    from termx.storage.paths import home

    emit(render_record({"path": str(home() / "cache"), "cache_bytes": cache_size(),
                        "cache_max_bytes": cache_limit(), "folders": len(cache_entries())}, fmt))


@cache_app.command("list")
def cache_list(fmt: FormatOption = Format.table, quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """One row per cached corpus build or model: its database, corpus id, build time, bytes and last use (least
    recently used first)."""
    from termx.storage.disk_cache import cache_entries

    emit(render([e.as_row() for e in cache_entries()], fmt,
                ["folder", "database", "corpus_id", "built_at", "cache_bytes", "last_used"]))


@cache_app.command("clear")
def cache_clear(
    corpus: Annotated[str | None, typer.Argument(help="Only this corpus's cache (of the database --db names); "
                                                 "without it, the whole cache, of every database.")] = None,
    db: DbOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Empty the cache (or one corpus's part of it); the database keeps everything, and the next look-up fills the
    cache again."""
    from termx.storage.disk_cache import clear_cache

    if corpus is None:
        removed = clear_cache()
    else:
        from termx.storage.corpora import get_corpus
        from termx.storage.db import get_engine

        engine = get_engine(db)
        removed = clear_cache(engine.url.render_as_string(hide_password=True), get_corpus(engine, corpus).id)
    freed = sum(e.bytes for e in removed)
    notice(f"removed {len(removed)} cache folder{'s' * (len(removed) != 1)} ({freed / 1e6:.1f} MB)")
