"""Where the bench scripts find the real data: $TERMX_DATA, else ../shared/data next to the repository.

The data is never copied into the repository and no script names a machine's absolute path; a script that takes
`--data` defaults it from here.
"""

from __future__ import annotations

import os
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    """The shared data folder (the one holding en/, ja/, zh/ and PROVENANCE.md)."""
    return Path(os.environ.get("TERMX_DATA") or REPOSITORY.parent / "shared" / "data")
