"""Commands that build and manage indexes: index, corpora, drop, demo."""

from __future__ import annotations

from typing import Annotated

import typer

from termx.cli import INDEX_PANEL, app
from termx.cli.options import DbOption, FormatOption, QuietOption, emit
from termx.cli.output import Format, render, to_json
from termx.cli.progress import RichProgress
from termx.index.build import DEFAULT_MAX_K
from termx.index.ingest import InputMode, OnInvalid
from termx.index.units import Unit


def _summary_rows(summary: dict) -> str:  # type: ignore[type-arg]
    sizes = [{"corpus": summary["corpus"], "unit": summary["unit"], "tokens": summary["tokens"],
              "documents": summary["documents"], "classes": summary["classes"],
              "trivial_classes": summary["trivial_classes"]}]
    stages = [{"stage": k, "seconds": v} for k, v in summary["seconds"].items()]
    stages.append({"stage": "total", "seconds": round(sum(summary["seconds"].values()), 3)})
    return render(sizes, Format.table) + "\n\n" + render(stages, Format.table)


def _flat(summary: dict) -> dict:  # type: ignore[type-arg]
    """The summary as one flat row (csv, tsv): the seconds of each stage as seconds_<stage>."""
    row = {k: v for k, v in summary.items() if k != "seconds"}
    row.update({f"seconds_{stage.replace(' ', '_')}": v for stage, v in summary["seconds"].items()})
    return row


@app.command(rich_help_panel=INDEX_PANEL)
def index(
    paths: Annotated[list[str], typer.Argument(help="Files, directories (every file under it is a document, "
                                                    "in sorted path order) or - for stdin.")],
    corpus: Annotated[str, typer.Option("--corpus", "-c", help="Name of the corpus to create.")],
    unit: Annotated[Unit, typer.Option(help="Token unit: byte (UTF-8 bytes), char (code points, for Japanese/"
                                            "Chinese) or word (regex \\w+ runs and single punctuation marks; "
                                            "white space separates, case kept).")] = Unit.byte,
    max_k: Annotated[int, typer.Option("--max-k", min=1, max=64, help="Compute df_1..df_K.")] = DEFAULT_MAX_K,
    input_mode: Annotated[InputMode, typer.Option("--input", help="auto: .jsonl/.ndjson files are JSON lines "
                                                  "({\"text\", \"id\"?, \"title\"?}), other files one document "
                                                  "each; lines: one document per line; paragraphs: one "
                                                  "document per blank-line separated paragraph (term "
                                                  "extraction on long files: docs/terms.md).")] = InputMode.auto,
    invalid: Annotated[OnInvalid, typer.Option("--invalid", help="Invalid UTF-8: reject (error with file and "
                                               "byte offset) or replace with U+FFFD and count.")] = OnInvalid.reject,
    replace: Annotated[bool, typer.Option("--replace", help="Rebuild an existing corpus atomically.")] = False,
    fold_case: Annotated[bool, typer.Option("--fold-case", help="Index the text lower-cased (every character "
                                            "whose lower case has the same length; offsets stay the original's); "
                                            "look-ups then fold their patterns too, so stats are "
                                            "case-insensitive. Concordance lines show the folded text.")] = False,
    db: DbOption = None,
    quiet: QuietOption = False,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Summary format: table goes to stderr (a "
                                        "report, hidden by --quiet); csv, tsv, json and jsonl go to stdout "
                                        "(one row, stage seconds as seconds_<stage>).")] = Format.table,
) -> None:
    """Index documents: suffix array, LCP, classes and df_1..df_K for every substring, stored in PostgreSQL."""
    from termx.index.indexer import index_paths
    from termx.storage.db import get_engine

    engine = get_engine(db)
    with RichProgress(enabled=not quiet) as progress:
        summary = index_paths(engine, corpus, paths, unit, max_k, input_mode, invalid, replace, progress,
                              fold_case)
    if fmt is Format.json:
        emit(to_json(summary.as_dict()))
    elif fmt is Format.table:
        if not quiet:
            typer.echo(_summary_rows(summary.as_dict()), err=True)
    else:  # jsonl keeps the nested record on one line; csv and tsv need a flat row
        row = summary.as_dict()
        emit(render([row if fmt is Format.jsonl else _flat(row)], fmt))


@app.command(rich_help_panel=INDEX_PANEL)
def corpora(db: DbOption = None, fmt: FormatOption = Format.table) -> None:
    """List the indexed corpora (name, unit, tokens, documents, classes, max_k)."""
    from termx.storage.db import get_engine
    from termx.storage.store import list_corpora

    rows = [c.as_row() for c in list_corpora(get_engine(db))]
    emit(render(rows, fmt, ["name", "unit", "tokens", "documents", "classes", "max_k", "created_at"]))


@app.command(rich_help_panel=INDEX_PANEL)
def drop(name: Annotated[str, typer.Argument(help="Corpus to delete.")], db: DbOption = None,
         quiet: QuietOption = False) -> None:
    """Delete a corpus and everything built for it."""
    from termx.storage.db import get_engine
    from termx.storage.store import drop_corpus

    drop_corpus(get_engine(db), name)
    if not quiet:
        typer.echo(f"dropped {name}", err=True)


@app.command(rich_help_panel=INDEX_PANEL)
def demo(
    corpus: Annotated[str, typer.Option("--corpus", "-c", help="Name for the demo corpus.")] = "stdlib-docs",
    db: DbOption = None,
    quiet: QuietOption = False,
) -> None:
    """Index the docstrings of Python's standard library (on every machine) and show what termx finds."""
    from termx.experiments.demo import stdlib_docstrings
    from termx.index.indexer import index_documents
    from termx.storage.db import get_engine
    from termx.terms import extract_terms

    engine = get_engine(db)
    docs = stdlib_docstrings()
    with RichProgress(enabled=not quiet) as progress:
        summary = index_documents(engine, corpus, docs, Unit.byte, DEFAULT_MAX_K, replace=True, progress=progress)
        top = extract_terms(engine, corpus, "adaptation", 20, progress=progress)
    emit(_summary_rows(summary.as_dict()))
    emit("\n" + render(top, Format.table, ["rank", "term", "score", "freq", "df"], title="top 20 terms by adaptation"))
