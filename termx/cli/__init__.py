"""The termx command line: parses arguments, calls the library face (termx.database, termx.api), formats results.
No logic of its own. Importing this package registers every command on `app` (termx.cli.root); a command module
imports `app` and its panel from termx.cli.root, never from here, so registration makes no import cycle."""

from __future__ import annotations

from termx.cli.root import (
    DATABASE_PANEL,
    EVALUATION_PANEL,
    INDEX_PANEL,
    LOOKUP_PANEL,
    PANELS,
    STUDIES_PANEL,
    TBL_PANEL,
    TERMS_PANEL,
    WORDBREAK_PANEL,
    app,
    main,
)

# isort: split
from termx.cli import (  # after the names above (a late module may still import them from here): each adds commands
    commands_cache,  # noqa: F401
    commands_daemon,  # noqa: F401
    commands_db,  # noqa: F401
    commands_evaluation,  # noqa: F401
    commands_index,  # noqa: F401
    commands_jdf,  # noqa: F401
    commands_lookup,  # noqa: F401
    commands_segment,  # noqa: F401
    commands_serve,  # noqa: F401
    commands_servers,  # noqa: F401
    commands_studies,  # noqa: F401
    commands_tbl,  # noqa: F401
    commands_terms,  # noqa: F401
)

__all__ = ["DATABASE_PANEL", "EVALUATION_PANEL", "INDEX_PANEL", "LOOKUP_PANEL", "PANELS", "STUDIES_PANEL",
           "TBL_PANEL", "TERMS_PANEL", "WORDBREAK_PANEL", "app", "main"]
"""The app with every command, its help panels, and the console-script entry point."""
