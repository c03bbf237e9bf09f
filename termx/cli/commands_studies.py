"""Adaptation studies: crossval (freq* by halves), adapt (method 1, method 2, priming, the shape)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from termx.cli import STUDIES_PANEL, app
from termx.cli.options import DbOption, FormatOption, QuietOption, VerboseOption, emit
from termx.cli.output import Format, render

CorpusArg = Annotated[str, typer.Argument(help="Corpus name (termx corpora lists them).")]
PlotOption = Annotated[str | None, typer.Option("--plot", help="Also draw the figure to this .png/.svg file "
                                                "(needs the optional extra termx[plot]: matplotlib).")]


class By(str, Enum):
    """How crossval bins strings."""

    df = "df"
    freq = "freq"


class Method(str, Enum):
    """Which adaptation estimate adapt reports."""

    one = "1"
    two = "2"
    both = "both"


def _load(db: str | None, corpus: str):  # type: ignore[no-untyped-def]
    from termx.storage.db import get_engine
    from termx.storage.index_loader import load_index

    engine = get_engine(db)
    return engine, load_index(engine, corpus)


@app.command(rich_help_panel=STUDIES_PANEL)
def crossval(
    corpus: CorpusArg,
    freq: Annotated[int | None, typer.Option("--freq", min=1, help="Show only the bins with this freq in "
                                             "half 1 (the slides' table is --freq 10).")] = None,
    by: Annotated[By, typer.Option("--by", help="Bin by (freq, df_1) in half 1, or by freq alone.")] = By.df,
    plot: PlotOption = None,
    db: DbOption = None,
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """freq* by cross-validation: the documents split into two halves (half 1 = the shortest prefix of the
    documents holding half of the tokens), every substring binned by its freq and df_1 in half 1, freq* = its
    mean freq in half 2; n = strings in the bin, classes = their classes. The (freq, df_1) bins are stored in
    termx.crossval_bin (sql/crossval_bins.sql)."""
    from termx.studies.crossval import crossval_bins, half_statistics
    from termx.studies.crossval_store import save_crossval

    if plot:
        from termx.studies.plots import require_matplotlib

        require_matplotlib()
    engine, index = _load(db, corpus)
    stats = half_statistics(index)
    by_df = crossval_bins(stats, "df")
    save_crossval(engine, index, stats, by_df)
    all_rows = (by_df if by is By.df else crossval_bins(stats, "freq")).rows()
    rows = [r for r in all_rows if freq is None or r["freq"] == freq]
    emit(render(rows, fmt, ["freq", "df", "freq_star", "n", "classes"]))
    if plot:
        from termx.studies.plots import plot_crossval

        plot_crossval(by_df.rows(), plot)
    if not quiet:
        typer.echo(f"half 1: {stats.docs_half1} of {index.n_docs} documents, {stats.tokens_half1} of {index.n} "
                   f"tokens; {len(all_rows)} bins", err=True)


@app.command(rich_help_panel=STUDIES_PANEL)
def adapt(
    corpus: CorpusArg,
    patterns: Annotated[list[str] | None, typer.Argument(help="Patterns in the corpus's unit; without any, "
                                                         "the summary over every string.")] = None,
    method: Annotated[Method, typer.Option("--method", help="1: history/test contingency table; 2: df_2/df_1; "
                                           "both.")] = Method.both,
    priming: Annotated[bool, typer.Option("--priming", help="Add Pr(test | near): the neighbourhood of a "
                                          "document is its --neighbors nearest documents by tf-idf cosine of "
                                          "the history's words.")] = False,
    neighbors: Annotated[int, typer.Option("--neighbors", min=1, help="Documents in a neighbourhood.")] = 10,
    min_df: Annotated[int, typer.Option("--min-df", min=1, help="Summaries: strings (or words) with df_1 at "
                                        "least this.")] = 10,
    shape: Annotated[bool, typer.Option("--shape", help="The shape table instead: Pr(k>=1) and Pr(k>=2 | k>=1) "
                                        "by binned freq.")] = False,
    plot: PlotOption = None,
    db: DbOption = None,
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Adaptation by method 1 (history = each document's first half of tokens, test = the rest; a, b, c, d =
    documents with the string in both, history only, test only, neither; Pr(+adapt) = a/(a+b), prior =
    (a+c)/D, Pr(-adapt) = c/(c+d)) and method 2 (df_2/df_1). Without patterns: how often the two agree within
    a factor of 2 and 3 over every string with df_1 >= --min-df."""
    if plot:
        from termx.studies.plots import require_matplotlib

        require_matplotlib()
    _, index = _load(db, corpus)
    if shape:
        from termx.studies.shape import SHAPE_FIELDS, shape_rows

        rows = shape_rows(index)
        if priming:
            from termx.studies.priming import near_by_freq

            rows = near_by_freq(index, rows, neighbors)
        emit(render(rows, fmt, [*SHAPE_FIELDS, *(["p_near"] if priming else [])]))
        if plot:
            from termx.studies.plots import plot_shape

            plot_shape(rows, plot)
        return
    if patterns:
        _named(index, patterns, method, priming, neighbors, fmt, plot)
        return
    if priming:
        from termx.studies.priming import PRIMING_SUMMARY_FIELDS, priming_summary

        emit(render([priming_summary(index, neighbors, min_df)], fmt, PRIMING_SUMMARY_FIELDS))
        return
    from termx.studies.adaptation import split_counts
    from termx.studies.agreement import agreement, segments

    seg = segments(index, split_counts(index), min_df)
    emit(render([agreement(seg, min_df).as_dict()], fmt))
    if plot:
        from termx.studies.plots import plot_agreement

        plot_agreement(seg.p1, seg.p2, seg.strings, plot)


def _named(index, patterns: list[str], method: Method, priming: bool, neighbors: int, fmt: Format,  # type: ignore[no-untyped-def]
           plot: str | None) -> None:
    """Rows per pattern; --method picks the columns."""
    from termx.studies.adaptation import ADAPT_FIELDS, adapt_rows

    rows = adapt_rows(index, patterns)
    keep = {Method.one: ("pattern", "a", "b", "c", "d", "p_adapt", "prior", "p_neg_adapt"),
            Method.two: ("pattern", "adaptation", "df"), Method.both: ADAPT_FIELDS}[method]
    columns = list(keep)
    if priming:
        from termx.studies.priming import PRIMING_FIELDS, priming_rows

        for row, extra in zip(rows, priming_rows(index, patterns, neighbors), strict=True):
            row.update(extra)
        columns += [f for f in PRIMING_FIELDS if f not in columns]
    emit(render([{k: r[k] for k in columns} for r in rows], fmt, columns))
    if plot:
        import numpy as np

        from termx.studies.plots import plot_agreement

        p1 = np.array([r["p_adapt"] or 0.0 for r in rows])
        p2 = np.array([r["adaptation"] or 0.0 for r in rows])
        plot_agreement(p1, p2, np.ones(len(rows)), plot)
