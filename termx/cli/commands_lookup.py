"""Look-up commands: stats, concordance, class, sql."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.cells import cell_len

from termx.cli.options import DbOption, FormatOption, QuietOption, VerboseOption, emit
from termx.cli.output import Format, render, to_json, visible_rows
from termx.cli.patterns import PatternsOption, RecordWriter, pattern_source
from termx.cli.root import LOOKUP_PANEL, app
from termx.defaults import LEFT, LIMIT, RIGHT

if TYPE_CHECKING:
    from termx.api import Corpus

CorpusArg = Annotated[str, typer.Argument(help="Corpus name (termx corpora lists them).")]
PatternArg = Annotated[str | None, typer.Argument(help="Pattern, read in the corpus's unit (word corpora: split "
                                                      "like the indexer splits); or --patterns.")]


def _open(db: str | None, name: str) -> Corpus:
    """The corpus `name` of the database `db` with its index loaded (CorpusNotFound if there is none)."""
    from termx.database import Database

    return Database(db).corpus(name, load=True)


@app.command(rich_help_panel=LOOKUP_PANEL)
def stats(
    corpus: CorpusArg,
    patterns: Annotated[list[str] | None, typer.Argument(help="One or more patterns, read in the corpus's unit "
                                                         "(or --patterns).")] = None,
    patterns_file: PatternsOption = None,
    dist: Annotated[bool, typer.Option("--dist", help="Instead: Pr(k) for k = 0..K-1 and the tail Pr(k >= K), "
                                       "mean, variance, entropy, and Poisson / negative binomial / Katz "
                                       "K-mixture fits (docs/adaptation.md).")] = False,
    db: DbOption = None,
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """freq, df_1..df_K, adaptation (df_2/df_1), its Poisson prediction, RIDF, <i,j>, LBL, SIL and the class's
    shortest and longest members of each pattern. A pattern that does not occur has freq 0. On a corpus of
    several shards freq and df are summed over the shards; <i,j>, LBL, SIL and the members exist per shard only
    (empty in the table; JSON lists them per shard under "shards"). A bad pattern (empty, longer than every
    document) does not stop the others: its error names it and its position (json: its record's "error";
    table/csv/tsv: a line on stderr), and the exit status is 1."""
    from termx.api import record_fields

    source = pattern_source(patterns or [], patterns_file)
    opened = _open(db, corpus)
    records: Iterable[Any] = opened.iter_dist(source) if dist else opened.iter_stats(source)
    writer = RecordWriter(fmt, record_fields("dist" if dist else "stats"))
    writer.write(records)
    writer.end()


def _kwic(rows: list[dict[str, Any]], joiner: str) -> str:
    """sufconc-style lines: document:offset, then the left context right-aligned so the matches line up."""
    if not rows:
        return ""
    where = [f"{r['doc']}:{r['offset']}" for r in rows]
    before = [r["left"] + joiner if r["left"] else "" for r in rows]
    after = [joiner + r["right"] if r["right"] else "" for r in rows]
    w_where = max(cell_len(x) for x in where)
    w_left = max(cell_len(b) for b in before)
    return "\n".join(f"{x}{' ' * (w_where - cell_len(x))}  {' ' * (w_left - cell_len(b))}{b}{r['match']}{a}"
                     for x, b, a, r in zip(where, before, after, rows, strict=True))


@app.command(rich_help_panel=LOOKUP_PANEL)
def concordance(
    corpus: CorpusArg,
    pattern: PatternArg = None,
    patterns_file: PatternsOption = None,
    left: Annotated[int, typer.Option("--left", "-l", min=0, help="Tokens of left context.")] = LEFT,
    right: Annotated[int, typer.Option("--right", "-r", min=0, help="Tokens of right context.")] = RIGHT,
    limit: Annotated[int, typer.Option("--limit", "-n", min=0, help="Lines to show (a pattern); 0 = all.")] = LIMIT,
    db: DbOption = None,
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """KWIC lines of every occurrence in suffix-array order, with document and offset (the slides' sufconc);
    on a corpus of several shards, in document order then offset.

    Contexts and offsets count tokens of the corpus's unit (bytes, characters or words from the document's
    start); the table view shows newlines as ⏎. With --patterns, each line also says its "pattern", and a bad
    pattern gets an error record (as in termx stats)."""
    from termx.api import record_fields

    source = pattern_source([pattern] if pattern is not None else [], patterns_file)
    opened = _open(db, corpus)
    joiner = " " if opened.info.unit == "word" else ""
    fields = [*record_fields("concordance"), *(["shard_no"] if len(opened.shards) > 1 else [])]
    if patterns_file is not None:
        writer = RecordWriter(fmt, ["pattern", *fields], lambda rows: _kwic(rows, joiner))
        writer.write(opened.iter_concordance(source, left, right, limit or None))
        writer.end()
        return
    assert pattern is not None
    rows: list[dict[str, Any]] = opened.concordance(pattern, left, right, limit or None)  # type: ignore[assignment]
    shown = visible_rows(rows, fmt)
    emit(_kwic(shown, joiner) if fmt is Format.table else render(shown, fmt, fields))
    if not quiet:
        total = opened.occurrences(pattern)
        more = " (--limit 0 shows all)" if len(rows) < total else ""
        typer.echo(f"{len(rows)} of {total} occurrences{more}", err=True)


def _member_rows(infos: list[dict[str, Any]], listed: list[list[str]], tag: bool,
                 with_pattern: bool = False) -> list[dict[str, Any]]:
    """One row per member of each class: (pattern,) (shard_no,) length, member."""
    return [{**({"pattern": info["pattern"]} if with_pattern else {}),
             **({"shard_no": info["shard_no"]} if tag else {}), "length": n, "member": m}
            for info, names in zip(infos, listed, strict=True)
            for n, m in enumerate(names, (info["lbl"] or 0) + 1)]


def _per_member(records: Iterable[dict[str, Any]], tag: bool) -> Iterator[dict[str, Any]]:
    """The member rows of each class record (with its pattern); an error record stays as it is."""
    for r in records:
        if "error" in r:
            yield r
        else:
            yield from _member_rows([r], [r.pop("members")], tag, with_pattern=True)


@app.command("class", rich_help_panel=LOOKUP_PANEL)
def class_(
    corpus: CorpusArg,
    pattern: PatternArg = None,
    patterns_file: PatternsOption = None,
    members: Annotated[bool, typer.Option("--members", "-m", help="Also list every member: the prefixes of "
                                          "the longest member with length in (LBL, SIL].")] = False,
    limit: Annotated[int, typer.Option("--limit", "-n", min=0, help="Members to list, shortest first; "
                                       "0 = all.")] = LIMIT,
    db: DbOption = None,
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """The class that holds a pattern: <i,j>, freq, df, LBL, SIL, its size and shortest/longest members.

    With --members, JSON adds a "members" list to the class object; csv/tsv/jsonl print one row per member. A class
    exists per shard only: on a corpus of several shards, one class per shard where the pattern occurs (shard_no),
    and member rows say their shard. With --patterns, one class (per shard) for each pattern, member rows say
    their pattern, and a bad pattern gets an error record (as in termx stats)."""
    from termx.api import record_fields

    source = pattern_source([pattern] if pattern is not None else [], patterns_file)
    opened = _open(db, corpus)
    tag = len(opened.shards) > 1
    fields = [*(["shard_no"] if tag else []), *record_fields("class")]
    if patterns_file is not None:
        records: Iterable[dict[str, Any]] = opened.iter_classes(source, members, limit or None)
        if members and fmt is not Format.json:  # a row per member, as without --patterns
            records = _per_member(records, tag)
            fields = ["pattern", "shard_no", "length", "member"] if tag else ["pattern", "length", "member"]
        writer = RecordWriter(fmt, fields)
        writer.write(records)
        writer.end()
        return
    assert pattern is not None
    infos = opened.classes(pattern, members, limit or None)
    if not members:
        emit(render(visible_rows(infos, fmt), fmt, fields))
        return
    listed = [info.pop("members") for info in infos]
    member_rows = _member_rows(infos, listed, tag)
    columns = ["shard_no", "length", "member"] if tag else ["length", "member"]
    if fmt is Format.json:
        emit(to_json([{**info, "members": names} for info, names in zip(infos, listed, strict=True)]))
    elif fmt is Format.table:
        emit(render(visible_rows(infos, fmt), fmt, fields) + "\n\n"
             + render(visible_rows(member_rows, fmt), fmt, columns))
    else:
        emit(render(visible_rows(member_rows, fmt), fmt, columns))
    shown, size = sum(map(len, listed)), sum(info["size"] for info in infos)
    if not quiet and shown < size:
        typer.echo(f"{shown} of {size} members (--limit 0 lists all)", err=True)


def _params(pairs: list[str]) -> dict[str, str]:
    params = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"{pair!r} is not key=value", param_hint="--param")
        params[key] = value
    return params


@app.command("sql", rich_help_panel=LOOKUP_PANEL)
def sql_command(
    name: Annotated[str | None, typer.Argument(help="A query in sql/ (see --list) or a path to a .sql file.")]
    = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="key=value for the query's :key "
                                                    "(repeat it); values are bound, never spliced in.")] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the shipped queries and their parameters.")] = False,
    limit: Annotated[int, typer.Option("--limit", "-n", min=0, help="Rows to show; 0 = all (the query's own "
                                       "parameters, e.g. -p limit=..., decide what it returns).")] = 0,
    db: DbOption = None,
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Run an analyst query from sql/ (the same files psql users read) and format its rows."""
    from termx.database import Database

    if list_:
        emit(render(Database.queries(), fmt, ["name", "params", "description"]))
        return
    if name is None:
        raise typer.BadParameter("give a query name or file, or --list", param_hint="NAME")
    values = _params(param or [])
    rows = Database(db).sql(name, values)
    emit(render(visible_rows(rows[:limit] if limit else rows, fmt), fmt))
