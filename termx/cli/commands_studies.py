"""Adaptation studies: crossval (freq* by halves), adapt (method 1, method 2, priming, the shape)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from termx.cli.options import DbOption, FormatOption, QuietOption, VerboseOption, emit
from termx.cli.output import Format, render
from termx.cli.root import STUDIES_PANEL, app
from termx.defaults import NEIGHBORS, STUDY_MIN_DF

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
    from termx.database import Database
    from termx.face.studies import study_fields

    report = Database(db).corpus(corpus).crossval(by.value, plot)
    rows = [r for r in report["rows"] if freq is None or r["freq"] == freq]
    emit(render(rows, fmt, list(study_fields("crossval"))))
    if not quiet:
        typer.echo(f"half 1: {report['docs_half1']} of {report['documents']} documents, {report['tokens_half1']} of "
                   f"{report['tokens']} tokens; {report['bins']} bins", err=True)


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
    neighbors: Annotated[int, typer.Option("--neighbors", min=1, help="Documents in a neighbourhood.")] = NEIGHBORS,
    min_df: Annotated[int, typer.Option("--min-df", min=1, help="Summaries: strings (or words) with df_1 at "
                                        "least this.")] = STUDY_MIN_DF,
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
    from termx.database import Database
    from termx.face.studies import adaptation_fields, study_fields

    opened = Database(db).corpus(corpus)
    if shape:
        rows = opened.shape(priming, neighbors, plot)
        emit(render(rows, fmt, [*study_fields("shape"), *(["p_near"] if priming else [])]))
        return
    if patterns:
        rows = opened.adaptation(patterns, method.value, priming, neighbors, plot)
        emit(render(rows, fmt, list(adaptation_fields(method.value, priming))))
        return
    if priming:
        emit(render([opened.priming_summary(neighbors, min_df)], fmt, list(study_fields("priming"))))
        return
    emit(render([opened.agreement(min_df, plot)], fmt))
