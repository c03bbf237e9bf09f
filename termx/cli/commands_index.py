"""Commands that build and manage indexes: index, corpora, drop, db, demo."""

from __future__ import annotations

from typing import Annotated

import typer

from termx.choices import DEFAULT_MAX_K, Unit
from termx.cli import app
from termx.cli.options import DbOption, FormatOption, QuietOption, emit
from termx.cli.output import Format, render, to_json
from termx.cli.progress import RichProgress
from termx.index.ingest import InputMode, OnInvalid

db_app = typer.Typer(help="Inspect or upgrade the database schema (Alembic).", no_args_is_help=True)
app.add_typer(db_app, name="db")


def _summary_rows(summary: dict) -> str:  # type: ignore[type-arg]
    sizes = [{"corpus": summary["corpus"], "unit": summary["unit"], "tokens": summary["tokens"],
              "documents": summary["documents"], "classes": summary["classes"],
              "trivial_classes": summary["trivial_classes"]}]
    stages = [{"stage": k, "seconds": v} for k, v in summary["seconds"].items()]
    stages.append({"stage": "total", "seconds": round(sum(summary["seconds"].values()), 3)})
    return render(sizes, Format.table) + "\n\n" + render(stages, Format.table)


@app.command()
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
                                                  "each; lines: one document per line.")] = InputMode.auto,
    invalid: Annotated[OnInvalid, typer.Option("--invalid", help="Invalid UTF-8: reject (error with file and "
                                               "byte offset) or replace with U+FFFD and count.")] = OnInvalid.reject,
    replace: Annotated[bool, typer.Option("--replace", help="Rebuild an existing corpus atomically.")] = False,
    db: DbOption = None,
    quiet: QuietOption = False,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Summary format (table on stderr, json on "
                                        "stdout).")] = Format.table,
) -> None:
    """Index documents: suffix array, LCP, classes and df_1..df_K for every substring, stored in PostgreSQL."""
    from termx.index.indexer import index_paths
    from termx.storage.db import get_engine

    engine = get_engine(db)
    with RichProgress(enabled=not quiet) as progress:
        summary = index_paths(engine, corpus, paths, unit, max_k, input_mode, invalid, replace, progress)
    if fmt in (Format.json, Format.jsonl):
        emit(to_json(summary.as_dict()))
    elif not quiet:
        typer.echo(_summary_rows(summary.as_dict()), err=True)


@app.command()
def corpora(db: DbOption = None, fmt: FormatOption = Format.table) -> None:
    """List the indexed corpora (name, unit, tokens, documents, classes, max_k)."""
    from termx.storage.db import get_engine
    from termx.storage.store import list_corpora

    rows = [c.as_row() for c in list_corpora(get_engine(db))]
    emit(render(rows, fmt, ["name", "unit", "tokens", "documents", "classes", "max_k", "created_at"]))


@app.command()
def drop(name: Annotated[str, typer.Argument(help="Corpus to delete.")], db: DbOption = None,
         quiet: QuietOption = False) -> None:
    """Delete a corpus and everything built for it."""
    from termx.storage.db import get_engine
    from termx.storage.store import drop_corpus

    drop_corpus(get_engine(db), name)
    if not quiet:
        typer.echo(f"dropped {name}", err=True)


@db_app.command("upgrade")
def db_upgrade(db: DbOption = None) -> None:
    """Migrate the schema to the newest revision (also done automatically on first use)."""
    from termx.storage.db import current, get_engine

    emit(" ".join(sorted(current(get_engine(db)))))


@db_app.command("current")
def db_current(db: DbOption = None) -> None:
    """Print the schema revision(s) the database is at."""
    import sqlalchemy as sa

    from termx.storage.db import current, resolve_url

    emit(" ".join(sorted(current(sa.create_engine(resolve_url(db))))) or "(empty)")


@app.command()
def demo(
    corpus: Annotated[str, typer.Option("--corpus", "-c", help="Name for the demo corpus.")] = "stdlib-docs",
    top: Annotated[int, typer.Option("--top", min=1, max=100, help="Terms per ranking.")] = 10,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Index the docstrings again even if the corpus "
                                          "exists.")] = False,
    db: DbOption = None,
    quiet: QuietOption = False,
    fmt: FormatOption = Format.table,
) -> None:
    """What termx is for, in one screen: index Python's stdlib docstrings (on every machine), rank terms by
    adaptation beside frequency and RIDF, show one in context, and break an unspaced sentence into words."""
    from dataclasses import asdict

    from termx.cli.commands_lookup import _kwic, _visible
    from termx.experiments.demo import RANKINGS, run_demo
    from termx.storage.db import get_engine

    with RichProgress(enabled=not quiet) as progress:
        report = run_demo(get_engine(db), corpus, top, rebuild, progress)
    if fmt is not Format.table:
        emit(to_json(asdict(report)) if fmt is Format.json else render([asdict(report)], fmt))
        return
    side = [{"rank": k + 1, **{rank: report.terms[rank][k]["term"] if k < len(report.terms[rank]) else ""
                               for rank in RANKINGS}} for k in range(top)]
    emit(f"{report.corpus}: {report.documents} stdlib modules' docstrings, {report.tokens:,} bytes, every "
         "substring counted\n")
    emit(render(_visible(side, fmt), fmt, title="top terms (4+ bytes, in 3+ documents)"))
    emit(f"\nadaptation = df_2/df_1 (does a string recur in the documents it occurs in?); freq is the baseline; "
         f"ridf = residual IDF\n\n{report.term!r} in context (termx concordance {report.corpus} ...):")
    emit(_kwic(_visible(report.concordance, fmt), ""))
    emit(f"\nno spaces:  {report.sentence}\nwords:      {' '.join(report.words)}\n"
         f"(termx segment {report.corpus}: branching entropy + a word model the corpus taught itself, "
         f"model {report.model_source})")
