"""Result records as plain JSON values: what `--format json` prints and the Python and HTTP APIs return."""

from __future__ import annotations

import math
from typing import Any


def jsonable(value: Any) -> Any:
    """NumPy scalars/arrays as lists and numbers, non-finite floats as None, recursively."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return value
