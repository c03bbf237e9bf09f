"""Result files: one JSON-lines file of evaluation records per scorer (the input of `termx compare`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from termx.errors import InputError
from termx.experiments.whitespace.report import ScorerResult


def write_records(results: Sequence[ScorerResult], results_dir: str | Path) -> list[Path]:
    """One JSON-lines file per scorer (`<scorer>.jsonl`) in the evaluation toolkit's record format."""
    folder = Path(results_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {folder}: {exc.strerror}") from None
    paths = []
    for r in results:
        path = folder / f"{r.scorer}.jsonl"
        path.write_text("".join(json.dumps(rec) + "\n" for rec in r.records), encoding="utf-8")
        paths.append(path)
    return paths
