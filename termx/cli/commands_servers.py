"""The `servers` group: storage servers that hold shards of this database's corpora through postgres_fdw
(add, list, remove; docs/scale-out.md "When one PostgreSQL server is not enough"). Maps onto termx.Database."""

from __future__ import annotations

from typing import Annotated

import typer

from termx.cli.options import DbOption, FormatOption, QuietOption, VerboseOption, emit, notice
from termx.cli.output import Format, render
from termx.cli.root import DATABASE_PANEL, app

servers_app = typer.Typer(help="Storage servers for shards, reached from this database through postgres_fdw "
                               "(add, list, remove).", no_args_is_help=True)
app.add_typer(servers_app, name="servers", rich_help_panel=DATABASE_PANEL)

COLUMNS = ["name", "url", "shards", "bytes", "reachable", "added_at"]


@servers_app.command("add")
def servers_add(
    name: Annotated[str, typer.Argument(help="The server's name: a lower-case letter, then letters, digits, _ or "
                                             "- (40 at most).")],
    url: Annotated[str, typer.Argument(help="postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE of the storage "
                                            "server; the password is kept only in a postgres_fdw user mapping.")],
    db: DbOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Register a storage server: checks it is reachable (from here and from the coordinator), upgrades its termx
    schema, and creates its postgres_fdw server and your user mapping on the coordinator (this database)."""
    from termx.database import Database

    row = Database(db).add_server(name, url)
    notice(f"added server {row['name']} ({row['url']}, {row['bytes']} bytes of termx tables)")


@servers_app.command("list")
def servers_list(db: DbOption = None, fmt: FormatOption = Format.table, quiet: QuietOption = False,
                 verbose: VerboseOption = False) -> None:
    """The registered storage servers: name, url (no password), shards held, bytes of termx tables there (read
    through postgres_fdw) and whether the coordinator reaches it (json also gives the corpora and the error)."""
    from termx.database import Database

    rows = Database(db).servers()
    for row in rows:
        if not row["reachable"]:
            notice(f"server {row['name']} is unreachable: {row['error']}")
    emit(render(rows, fmt, COLUMNS))


@servers_app.command("remove")
def servers_remove(name: Annotated[str, typer.Argument(help="The server to unregister.")], db: DbOption = None,
                   force: Annotated[bool, typer.Option("--force", help="For a server gone for good: also drop "
                                                       "every corpus with shards there.")] = False,
                   quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Unregister a storage server and drop its postgres_fdw server and user mappings (refused while a corpus has
    shards there, unless --force; its data on the server is left as it is)."""
    from termx.database import Database

    database = Database(db)
    if force:
        doomed = database.server_corpora(name)
        typer.echo(f"Warning: removing server {name} for good drops the corpora with shards there: "
                   f"{', '.join(doomed) or 'none'}", err=True)
    database.remove_server(name, force)
    notice(f"removed server {name}")
