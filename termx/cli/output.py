"""Render lists of row dicts as table, csv, tsv, json or jsonl: the one output abstraction every command uses."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Sequence
from datetime import date, time
from enum import Enum
from typing import Any

from termx.json_values import jsonable as _jsonable
from termx.safe_text import escape_controls

# C0 and C1 controls, DEL, and the bidi embeddings/overrides/isolates that reorder what a terminal shows.
# What JSON may carry raw but is better written as \uXXXX: C1 controls and DEL (terminals act on them), the
# line and paragraph separators (line readers split at them) and bidi controls. Outside strings JSON text is
# ASCII, so replacing them anywhere is lossless: a parser reads back the same data.
JSON_ESCAPE_RE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _iso(value: Any) -> str:
    """A date or time as JSON and csv write it (ISO 8601), e.g. the created_at of `termx tbl models`."""
    if isinstance(value, (date, time)):
        return value.isoformat()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def json_text(data: Any, indent: int | None = None) -> str:
    """JSON of a result, UTF-8 kept readable, characters that could act on a terminal or split a line escaped."""
    text = json.dumps(_jsonable(data), ensure_ascii=False, indent=indent, default=_iso)
    return JSON_ESCAPE_RE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


class Format(str, Enum):
    """Output formats shared by every query command."""

    table = "table"
    csv = "csv"
    tsv = "tsv"
    json = "json"
    jsonl = "jsonl"


def _cell(value: Any) -> str:
    """A short, human-readable table cell: floats to 4 significant digits, lists space-separated."""
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


def export_cell(value: Any) -> str:
    """An exact csv/tsv cell, the same data as JSON: integers as integers, floats as their shortest round-trip
    repr (52892.0, 0.61807...), None (and non-finite floats) as empty, a list of numbers space-separated (df_1..df_K
    as "3 1 0 0"), other lists and objects as JSON text."""
    value = _jsonable(value)
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return " ".join(export_cell(v) for v in value)
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, default=_iso)
    return _iso(value) if isinstance(value, (date, time)) else str(value)


def to_json(data: Any) -> str:
    """JSON text of any result (rows, nested reports), UTF-8 kept readable."""
    return json_text(data, indent=2)


def render(rows: Sequence[dict[str, Any]], fmt: Format | str, columns: Iterable[str] | None = None,
           title: str | None = None) -> str:
    """Render rows in `fmt`; `columns` picks and orders the table/csv columns (json keeps every key)."""
    fmt = Format(fmt)
    if fmt is Format.json:
        return to_json(list(rows))
    if fmt is Format.jsonl:
        return "\n".join(json_text(r) for r in rows)
    cols = list(columns) if columns is not None else (list(rows[0].keys()) if rows else [])
    if fmt in (Format.csv, Format.tsv):
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter="," if fmt is Format.csv else "\t", lineterminator="\n")
        writer.writerow(cols)
        for r in rows:
            writer.writerow([export_cell(r.get(c)) for c in cols])
        return buf.getvalue().rstrip("\n")
    return render_table(rows, cols, title)


def render_record(row: dict[str, Any], fmt: Format) -> str:
    """One record (a status): a field/value table, or one row of JSON or CSV."""
    if fmt is Format.table:
        return render([{"field": k, "value": "" if v is None else v} for k, v in row.items()], fmt)
    return render([row], fmt)


def render_table(rows: Sequence[dict[str, Any]], cols: Sequence[str], title: str | None = None) -> str:
    """A rich table rendered to plain text (no colour codes), numbers right-aligned, control characters
    escaped (a table is for a terminal; csv, tsv and json keep the data exact)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text  # cells as Text: corpus text such as "[red]" is data, not rich markup

    table = Table(title=Text(escape_controls(title)) if title else None, show_edge=False, header_style="bold")
    for c in cols:
        numeric = bool(rows) and all(isinstance(_jsonable(r.get(c)), (int, float)) for r in rows)
        table.add_column(Text(escape_controls(c)), justify="right" if numeric else "left", overflow="fold")
    for r in rows:
        table.add_row(*[Text(escape_controls(_cell(r.get(c)))) for c in cols])
    console = Console(file=io.StringIO(), width=200, color_system=None, force_terminal=False)
    console.print(table)
    return console.file.getvalue().rstrip("\n")  # type: ignore[attr-defined]


class LinesFormat(str, Enum):
    """Output of commands that answer each input line with a line of words (segment, tbl apply)."""

    text = "text"    # the words separated by spaces, one output line per input line
    tsv = "tsv"      # the words separated by tabs
    json = "json"    # one array of records {"line": n, "words": [...], ...}
    jsonl = "jsonl"  # one record per line


class LinesWriter:
    """Renders per-line records (each with "words") batch by batch, so output can be flushed as input arrives;
    JSON is one array across batches, closed by `end()`."""

    def __init__(self, fmt: LinesFormat) -> None:
        self.fmt = LinesFormat(fmt)
        self.written = 0

    def batch(self, records: Sequence[dict[str, Any]]) -> str:
        """The text of one batch of records, newline-terminated."""
        if not records:
            return ""
        if self.fmt is LinesFormat.json:
            head = "[\n" if self.written == 0 else ",\n"
            text = head + ",\n".join(json_text(r) for r in records)
        else:
            text = "\n".join(self._line(r) for r in records) + "\n"
        self.written += len(records)
        return text

    def end(self) -> str:
        """What closes the output (the end of the JSON array)."""
        if self.fmt is not LinesFormat.json:
            return ""
        return "\n]\n" if self.written else "[]\n"

    def _line(self, record: dict[str, Any]) -> str:
        if self.fmt is LinesFormat.jsonl:
            return json_text(record)
        return ("\t" if self.fmt is LinesFormat.tsv else " ").join(record["words"])


VISIBLE = str.maketrans({"\n": "⏎", "\r": "␍", "\t": "⇥"})


def visible_rows(rows: list[dict[str, Any]], fmt: Format) -> list[dict[str, Any]]:
    """For the terminal (table): newlines and tabs as visible marks (⏎ ␍ ⇥), other control characters escaped.
    csv, tsv and json keep the text exact (csv/tsv quote fields that hold newlines or tabs)."""
    if fmt is not Format.table:
        return rows
    return [{k: escape_controls(v.translate(VISIBLE)) if isinstance(v, str) else v for k, v in r.items()}
            for r in rows]


def describe_deleted(deleted: dict[str, int]) -> str:
    """'2 term lists, 1 white space runs' for the counts that are not zero ('' if none): what a drop or a replace
    removed with a corpus."""
    return ", ".join(f"{n} {what if n > 1 else what[:-1]}" for what, n in deleted.items() if n)
