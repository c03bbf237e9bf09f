"""Where termx keeps local state: $TERMX_HOME (default ~/.termx) holds the embedded database and caches."""

from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    """The termx data directory, created on first use (mode 0700: it holds the database password)."""
    path = Path(os.environ.get("TERMX_HOME") or Path.home() / ".termx").expanduser().absolute()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def resource(name: str) -> Path:
    """A directory shipped with termx (`migrations` or `sql`): inside the wheel, or at the source tree's top."""
    package = Path(__file__).resolve().parent.parent
    installed = package / f"_{name}"
    return installed if installed.is_dir() else package.parent / name
