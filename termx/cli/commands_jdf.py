"""Joint document frequency commands: jdf, related, sketch."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

import typer

from termx.cli.options import DbOption, FormatOption, QuietOption, VerboseOption, emit
from termx.cli.output import Format, render, to_json, visible_rows
from termx.cli.patterns import RecordWriter, pattern_source
from termx.cli.progress_display import RichProgress
from termx.cli.root import STUDIES_PANEL, app
from termx.defaults import RELATED_MEASURE, RELATED_MIN_DF, RELATED_TOP, SKETCH_K, SKETCH_THRESHOLD

CorpusArg = Annotated[str, typer.Argument(help="Corpus name (termx corpora lists them).")]
TABLE_COLUMNS = ["x", "y", "df_x", "df_y", "jdf", "documents", "pmi", "dice", "lift", "g2", "p_value", "method",
                 "stderr", "interval", "note"]


def _flat(rows: list[dict[str, Any]], fmt: Format) -> list[dict[str, Any]]:
    """Table/CSV views: the contingency table as four columns (JSON keeps it as an object)."""
    if fmt in (Format.json, Format.jsonl):
        return rows
    out = []
    for r in rows:
        t = r["table"]
        flat = {k: v for k, v in r.items() if k != "table"}
        flat.update(x_and_y=t["x_and_y"], x_only=t["x_only"], y_only=t["y_only"], neither=t["neither"])
        out.append(flat)
    return out


def _pairs(x: str | None, ys: list[str], patterns_file: str | None) -> Iterator[tuple[str, str]]:
    """The (x, y) pairs asked for: X with each Y and each line of --patterns; without X, each line is X<TAB>Y."""
    if x is None:
        if patterns_file is None:
            raise typer.BadParameter("give X and Y, or --patterns FILE", param_hint="X")
        return (_tab_pair(line, n) for n, line in enumerate(pattern_source([], patterns_file), 1))
    if not ys and patterns_file is None:
        raise typer.BadParameter("give one or more Y, or --patterns FILE", param_hint="YS")
    return ((x, y) for y in pattern_source(ys, patterns_file, "Y"))


def _tab_pair(line: str, n: int) -> tuple[str, str]:
    """X and Y of a --patterns line without a positional X: split at the first TAB."""
    x, tab, y = line.partition("\t")
    if not tab:
        from termx.errors import InputError

        raise InputError(f"line {n} of --patterns has no TAB", "without X each line is X<TAB>Y; with X, a Y a line")
    return x, y


@app.command(rich_help_panel=STUDIES_PANEL)
def jdf(
    corpus: CorpusArg,
    x: Annotated[str | None, typer.Argument(help="First string, read in the corpus's unit.")] = None,
    ys: Annotated[list[str] | None, typer.Argument(help="One or more strings to pair with X.")] = None,
    patterns_file: Annotated[str | None, typer.Option(
        "--patterns", metavar="FILE|-", help="Also read strings from FILE, or - for stdin, one a line, streamed: "
        "with X, each line is a Y to pair with X; without X, each line is X<TAB>Y. A bad pair gets its own "
        "record with an error (exit 1).")] = None,
    exact: Annotated[bool, typer.Option("--exact", help="Count from the suffix-array intervals (the "
                                        "default).")] = False,
    sketch: Annotated[bool, typer.Option("--sketch", help="Estimate from the stored bottom-k sketches, with a "
                                         "standard error and 95% interval (termx sketch makes them).")] = False,
    db: DbOption = None,
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Joint document frequency of X with each Y: df_x, df_y, jdf, the 2x2 document table (x_and_y, x_only,
    y_only, neither), PMI, Dice, lift Pr(y|x)/Pr(y), log-likelihood G2 and its p-value (chi2, 1 df). A pair with
    a bad string (empty) does not stop the others: its error names the pair's position and the string."""
    from termx.database import Database
    from termx.errors import InputError

    if exact and sketch:
        raise InputError("--exact and --sketch exclude each other")
    pairs = _pairs(x, ys or [], patterns_file)
    source, method = Database(db).corpus(corpus), "sketch" if sketch else "exact"
    if x is not None:
        source.jdf(x, [], method)  # a bad X is one error, not one per pair
    rows = source.iter_jdf(pairs, method)
    cols = TABLE_COLUMNS[:6] + ["x_and_y", "x_only", "y_only", "neither"] + TABLE_COLUMNS[6:]
    writer = RecordWriter(fmt, cols)
    writer.write(r if "error" in r else _flat([r], fmt)[0] for r in rows)
    writer.end()


@app.command(rich_help_panel=STUDIES_PANEL)
def related(
    corpus: CorpusArg,
    term: Annotated[str, typer.Argument(help="The term whose companions to find.")],
    top: Annotated[int, typer.Option("--limit", "-n", "--top", min=1, help="How many strings to show (--top is "
                                     "the old name).")] = RELATED_TOP,
    measure: Annotated[str, typer.Option("--measure", help="Ranking: g2 (log-likelihood), pmi, dice or "
                                         "lift.")] = RELATED_MEASURE,
    min_df: Annotated[int, typer.Option("--min-df", min=1, help="Keep strings in at least this many documents "
                                        "(only sketched classes, df_1 >= the sketch threshold, are "
                                        "candidates).")] = RELATED_MIN_DF,
    db: DbOption = None,
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Strings that co-occur with TERM in documents more than chance: candidates from the sketches, scores from
    exact jdf; strings containing TERM or contained in it are skipped."""
    from termx.api import record_fields
    from termx.database import Database

    rows = Database(db).corpus(corpus).related(term, top, measure, min_df)
    emit(render(visible_rows(rows, fmt), fmt, record_fields("related")))


@app.command(rich_help_panel=STUDIES_PANEL)
def sketch(
    corpus: CorpusArg,
    k: Annotated[int, typer.Option("--k", min=1, max=65536, help="Hashes per sketch (bottom-k).")] = SKETCH_K,
    threshold: Annotated[int, typer.Option("--threshold", min=1, help="Sketch the classes with df_1 >= this "
                                           "many documents.")] = SKETCH_THRESHOLD,
    db: DbOption = None,
    quiet: QuietOption = False,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Summary format (table on stderr, json on "
                                        "stdout).")] = Format.table,
    verbose: VerboseOption = False,
) -> None:
    """Compute and store bottom-k MinHash sketches of the document sets of a corpus's frequent classes (one
    pass over the class tree), for termx jdf --sketch and termx related."""
    from termx.database import Database

    with RichProgress(enabled=not quiet) as progress:
        summary = Database(db).corpus(corpus).sketch(k, threshold, progress)
    if fmt in (Format.json, Format.jsonl):
        emit(to_json(summary))
    elif not quiet:
        seconds = summary.pop("seconds")
        typer.echo(render([summary], Format.table) + "\n\n" +
                   render([{"stage": s, "seconds": v} for s, v in seconds.items()], Format.table), err=True)
