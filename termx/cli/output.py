"""Render lists of row dicts as table, csv, tsv, json or jsonl: the one output abstraction every command uses."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Any

from termx.records import jsonable as _jsonable


class Format(str, Enum):
    """Output formats shared by every query command."""

    table = "table"
    csv = "csv"
    tsv = "tsv"
    json = "json"
    jsonl = "jsonl"


def _cell(value: Any) -> str:
    """A short, human-readable cell for table/csv output."""
    value = _jsonable(value)
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return " ".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def to_json(data: Any) -> str:
    """JSON text of any result (rows, nested reports), UTF-8 kept readable."""
    return json.dumps(_jsonable(data), ensure_ascii=False, indent=2)


def render(rows: Sequence[dict[str, Any]], fmt: Format | str, columns: Iterable[str] | None = None,
           title: str | None = None) -> str:
    """Render rows in `fmt`; `columns` picks and orders the table/csv columns (json keeps every key)."""
    fmt = Format(fmt)
    if fmt is Format.json:
        return to_json(list(rows))
    if fmt is Format.jsonl:
        return "\n".join(json.dumps(_jsonable(r), ensure_ascii=False) for r in rows)
    cols = list(columns) if columns is not None else (list(rows[0].keys()) if rows else [])
    if fmt in (Format.csv, Format.tsv):
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter="," if fmt is Format.csv else "\t", lineterminator="\n")
        writer.writerow(cols)
        for r in rows:
            writer.writerow([_cell(r.get(c)) for c in cols])
        return buf.getvalue().rstrip("\n")
    return render_table(rows, cols, title)


def render_table(rows: Sequence[dict[str, Any]], cols: Sequence[str], title: str | None = None) -> str:
    """A rich table rendered to plain text (no colour codes), numbers right-aligned."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_edge=False, header_style="bold")
    for c in cols:
        numeric = bool(rows) and all(isinstance(_jsonable(r.get(c)), (int, float)) for r in rows)
        table.add_column(c, justify="right" if numeric else "left", overflow="fold")
    for r in rows:
        table.add_row(*[_cell(r.get(c)) for c in cols])
    console = Console(file=io.StringIO(), width=200, color_system=None, force_terminal=False)
    console.print(table)
    return console.file.getvalue().rstrip("\n")  # type: ignore[attr-defined]
