"""Batches of patterns for the look-up commands: `--patterns FILE|-` and the records of a batch, written as they
are answered.

A batch is the positional patterns, then the lines of `--patterns` (read by termx.line_reader, batch by batch, so a big
file is never held at once). A bad pattern has its own record with an `error` field (termx.lookup.answer_each):
json and jsonl carry it in place (and stderr says how many failed); table, csv and tsv leave it out of the data
and print its error as one `Error: pattern N '...': ...` line on stderr. Either way the command exits 1 once
every record is written.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Annotated, Any

import typer

from termx.cli.options import emit_raw
from termx.cli.output import Format, render, to_json, visible_rows

PatternsOption = Annotated[
    str | None,
    typer.Option("--patterns", metavar="FILE|-",
                 help="Also read patterns from FILE, or - for stdin: one a line, streamed (a bad one gets its own "
                      "record with an error; exit 1)."),
]
BATCH = 1000
"""Patterns read, and records written, at a time."""


def pattern_source(given: Sequence[str], patterns_file: str | None, what: str = "PATTERN") -> Iterator[str]:
    """The positional patterns, then the lines of `patterns_file`, lazily (the file is opened now, so a missing
    one is an error before any work); a usage error when there are none of either."""
    from termx.line_reader import stream_lines

    if not given and patterns_file is None:
        raise typer.BadParameter(f"give a {what} or --patterns FILE", param_hint=what)
    lines = stream_lines(patterns_file, BATCH) if patterns_file is not None else iter(())
    return itertools.chain(given, itertools.chain.from_iterable(lines))


class RecordWriter:
    """Writes a batch's records in `fmt` as they come: json, jsonl, csv and tsv batch by batch (the same text as
    one render() of all of them); table once at the end, since its columns are as wide as the widest cell.
    Error records go to stderr (table, csv, tsv) or in place (json, jsonl), and are counted."""

    def __init__(self, fmt: Format, columns: Sequence[str],
                 table: Callable[[list[dict[str, Any]]], str] | None = None) -> None:
        self.fmt, self.columns = fmt, list(columns)
        self.table = table or (lambda rows: render(rows, Format.table, self.columns))
        self.failed = 0
        self.written = 0
        self._held: list[dict[str, Any]] = []

    def write(self, records: Iterable[dict[str, Any]]) -> None:
        """Write every record, BATCH at a time."""
        it = iter(records)
        while batch := list(itertools.islice(it, BATCH)):
            self._batch(batch)

    def _batch(self, records: list[dict[str, Any]]) -> None:
        inline = self.fmt in (Format.json, Format.jsonl)
        for r in records:
            if "error" in r:
                self.failed += 1
                if not inline:
                    typer.echo(f"Error: {r['error']}", err=True)
        rows = records if inline else [r for r in records if "error" not in r]
        if self.fmt is Format.table:
            self._held.extend(visible_rows(rows, self.fmt))
            return
        if not rows:
            return
        if self.fmt is Format.json:
            text = ("[\n" if not self.written else ",\n") + to_json(rows)[2:-2]  # the items of `[\n...\n]`
        else:
            text = render(rows, self.fmt, self.columns)
            if self.fmt in (Format.csv, Format.tsv) and self.written:
                text = text.split("\n", 1)[1]  # the header once (column names hold no newline)
            text += "\n"
        self.written += len(rows)
        emit_raw(text)

    def end(self) -> None:
        """Close the output (the JSON array, the table; csv/tsv with no row: the header), then exit 1 when any
        pattern failed."""
        if self.fmt is Format.json:
            emit_raw("\n]\n" if self.written else "[]\n")
        elif self.fmt is Format.table:
            text = self.table(self._held) if self._held or not self.failed else ""
            emit_raw(text + "\n" if text else "")
        elif not self.written:
            emit_raw(render([], self.fmt, self.columns) + "\n")
        if self.failed:
            if self.fmt in (Format.json, Format.jsonl):
                typer.echo(f"Error: {self.failed} pattern{'s' * (self.failed > 1)} failed (their records have an "
                           '"error" field)', err=True)
            raise typer.Exit(1)
