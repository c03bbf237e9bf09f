"""The `cache` group: the look-up cache under $TERMX_HOME/cache (its size and cap, its folders, emptying it)."""

from __future__ import annotations

from typing import Annotated

import typer

from termx.cli.options import DbOption, FormatOption, QuietOption, VerboseOption, emit, notice
from termx.cli.output import Format, render, render_record
from termx.cli.root import DATABASE_PANEL, app

cache_app = typer.Typer(help="The look-up cache under $TERMX_HOME/cache (status, list, clear): memory-mapped copies "
                             "of what look-ups read, never the only copy.", no_args_is_help=True)
app.add_typer(cache_app, name="cache", rich_help_panel=DATABASE_PANEL)


@cache_app.command("status")
def cache_status(fmt: FormatOption = Format.table, quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Where the cache is, its size, its cap (TERMX_CACHE_MAX_GB; the least recently used builds go first when a new
    one would pass it) and how many corpus builds it holds."""
    from termx.database import Database

    emit(render_record(Database.cache_status(), fmt))


@cache_app.command("list")
def cache_list(fmt: FormatOption = Format.table, quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """One row per cached corpus build or model: its database, corpus id, build time, bytes and last use (least
    recently used first)."""
    from termx.database import Database

    emit(render(Database.cache_folders(), fmt,
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
    from termx.database import Database

    freed = Database.clear_cache() if corpus is None else Database(db).clear_corpus_cache(corpus)
    notice(f"removed {freed['folders']} cache folder{'s' * (freed['folders'] != 1)} ({freed['bytes'] / 1e6:.1f} MB)")
