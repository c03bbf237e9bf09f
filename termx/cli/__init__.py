"""The termx command line: parses arguments, calls the library face (termx.database, termx.api), formats results.
No logic of its own. Importing this package registers every command on `app` (termx.cli.root)."""

from __future__ import annotations

from termx.cli import (  # each adds its commands to `app`
    commands_cache,  # noqa: F401
    commands_daemon,  # noqa: F401
    commands_db,  # noqa: F401
    commands_evaluation,  # noqa: F401
    commands_index,  # noqa: F401
    commands_jdf,  # noqa: F401
    commands_lookup,  # noqa: F401
    commands_segment,  # noqa: F401
    commands_serve,  # noqa: F401
    commands_studies,  # noqa: F401
    commands_tbl,  # noqa: F401
    commands_terms,  # noqa: F401
)
from termx.cli.root import PANELS, app, main

__all__ = ["PANELS", "app", "main"]
"""The app with every command, its help panels in order, and the console-script entry point."""
