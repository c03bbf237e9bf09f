"""Commands that build and manage indexes: index, corpora, drop, demo."""

from __future__ import annotations

from typing import Annotated

import typer

from termx.cli.options import DbOption, FormatOption, QuietOption, VerboseOption, emit
from termx.cli.output import Format, describe_deleted, render, to_json
from termx.cli.progress_display import RichProgress
from termx.cli.root import INDEX_PANEL, app
from termx.database import IndexOptions, InputMode, OnInvalid
from termx.defaults import DEMO_CORPUS, DEMO_TOP, MAX_STORE_MIN_FREQ, Unit


def _summary_rows(summary: dict) -> str:  # type: ignore[type-arg]
    sizes = [{"corpus": summary["corpus"], "unit": summary["unit"], "tokens": summary["tokens"],
              "documents": summary["documents"], "classes": summary["classes"],
              "trivial_classes": summary["trivial_classes"]}]
    stages = [{"stage": k, "seconds": v} for k, v in summary["seconds"].items()]
    stages.append({"stage": "total", "seconds": round(sum(summary["seconds"].values()), 3)})
    return render(sizes, Format.table) + "\n\n" + render(stages, Format.table)


def _flat(summary: dict) -> dict:  # type: ignore[type-arg]
    """The summary as one flat row (csv, tsv): the seconds of each stage as seconds_<stage>, what --replace
    deleted as deleted_<what>."""
    row = {k: v for k, v in summary.items() if k not in ("seconds", "deleted")}
    row.update({f"seconds_{stage.replace(' ', '_')}": v for stage, v in summary["seconds"].items()})
    row.update({f"deleted_{what.replace(' ', '_')}": n for what, n in summary.get("deleted", {}).items()})
    return row


@app.command(rich_help_panel=INDEX_PANEL)
def index(
    paths: Annotated[list[str], typer.Argument(help="Files, directories (every file under it is a document, "
                                                    "in sorted path order) or - for stdin; gzip, bzip2 and xz "
                                                    "input is decompressed as it is read.")],
    corpus: Annotated[str, typer.Option("--corpus", "-c", help="Name of the corpus to create.")],
    unit: Annotated[Unit, typer.Option(help="Token unit: byte (UTF-8 bytes), char (code points, for Japanese/"
                                            "Chinese) or word (regex \\w+ runs and single punctuation marks; "
                                            "white space separates, case kept).")] = IndexOptions.default("unit"),
    max_k: Annotated[int, typer.Option("--max-k", min=1, max=64, help="Compute df_1..df_K.")]
    = IndexOptions.default("max_k"),
    input_mode: Annotated[InputMode, typer.Option("--input", help="auto: .jsonl/.ndjson files are JSON lines "
                                                  "({\"text\", \"id\"?, \"title\"?}), .json files a JSON array "
                                                  "of such objects (json), other files one document each (x.jsonl.gz "
                                                  "counts as .jsonl); lines: one document per line; paragraphs: one "
                                                  "document per blank-line separated paragraph (term "
                                                  "extraction on long files: docs/terms.md).")]
    = IndexOptions.default("input"),
    invalid: Annotated[OnInvalid, typer.Option("--invalid", help="Invalid UTF-8: reject (error with file and "
                                               "byte offset) or replace with U+FFFD and count.")]
    = IndexOptions.default("invalid"),
    replace: Annotated[bool, typer.Option("--replace", help="Rebuild an existing corpus atomically.")]
    = IndexOptions.default("replace"),
    sketches: Annotated[bool, typer.Option("--sketches", help="Also store bottom-k MinHash sketches (k=256, "
                                           "classes with df_1 >= 20) for termx jdf --sketch and termx related "
                                           "(same as termx sketch afterwards).")] = IndexOptions.default("sketches"),
    fold_case: Annotated[bool, typer.Option("--fold-case", help="Index the text lower-cased (every character "
                                            "whose lower case has the same length; offsets stay the original's); "
                                            "look-ups then fold their patterns too, so stats are "
                                            "case-insensitive. Concordance lines show the folded text.")]
    = IndexOptions.default("fold_case"),
    append: Annotated[bool, typer.Option("--append", help="Add the documents to an existing corpus as new "
                                         "shard(s), in one transaction; nothing is rebuilt. Its unit and max-k "
                                         "apply; document names must be new.")] = IndexOptions.default("append"),
    shard_size: Annotated[str, typer.Option("--shard-size", help="Cut the input into shards of at most this "
                                            "much UTF-8 text, by whole documents in input order (kB, MB, GB: "
                                            "powers of 1000; a larger document is a shard of its own).")]
    = IndexOptions.default("shard_size"),
    store_min_freq: Annotated[int, typer.Option("--store-min-freq", min=2, max=MAX_STORE_MIN_FREQ,
                                                help="Store a class row only for substrings that occur at least "
                                                "this often (2: all that repeat); look-ups compute the rarer ones "
                                                "from the suffix array, with the same answers (docs/scale-out.md). "
                                                "--append keeps the corpus's.")]
    = IndexOptions.default("store_min_freq"),
    workers: Annotated[int | None, typer.Option("--workers", min=1, help="Worker processes that build and "
                                                   "store shards in parallel [default: the cores].")]
    = IndexOptions.default("workers"),
    dask: Annotated[str | None, typer.Option("--dask", help="Build the shards as tasks on this Dask "
                                                "scheduler (tcp://HOST:8786; needs termx[dask]); each worker "
                                                "needs termx and the database.")] = IndexOptions.default("dask"),
    server: Annotated[str | None, typer.Option("--server", help="Store the shards' classes on this storage "
                                                  "server (termx servers add), attached here as foreign "
                                                  "partitions.")] = IndexOptions.default("server"),
    db: DbOption = None,
    quiet: QuietOption = False,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Summary format: table goes to stderr (a "
                                        "report, hidden by --quiet); csv, tsv, json and jsonl go to stdout "
                                        "(one row, stage seconds as seconds_<stage>).")] = Format.table,
    verbose: VerboseOption = False,
) -> None:
    """Index documents: suffix array, LCP, classes and df_1..df_K for every substring, stored in PostgreSQL."""
    from termx.database import Database

    with RichProgress(enabled=not quiet) as progress:
        summary = Database(db).index(corpus, paths, progress=progress, unit=unit, max_k=max_k, input=input_mode,
                                     invalid=invalid, replace=replace, append=append, fold_case=fold_case,
                                     shard_size=shard_size, sketches=sketches, workers=workers, dask=dask,
                                     store_min_freq=store_min_freq, server=server)
    if fmt is Format.json:
        emit(to_json(summary))
    elif fmt is Format.table:
        if not quiet:
            typer.echo(_summary_rows(summary), err=True)
    else:  # jsonl keeps the nested record on one line; csv and tsv need a flat row
        emit(render([summary if fmt is Format.jsonl else _flat(summary)], fmt))
    deleted = describe_deleted(summary["deleted"])
    if deleted and not quiet:
        typer.echo(f"replaced {corpus}: deleted its {deleted}", err=True)


@app.command(rich_help_panel=INDEX_PANEL)
def corpora(
    name: Annotated[str | None, typer.Argument(help="Only this corpus.")] = None,
    shards: Annotated[bool, typer.Option("--shards", help="One row per shard: documents, tokens, classes, "
                                         "built at, seconds.")] = False,
    db: DbOption = None,
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """List the indexed corpora (name, unit, tokens, documents, classes, max_k, shards, and the bytes each takes
    in the database and in the look-up cache)."""
    from termx.database import Database

    if shards:
        emit(render(Database(db).shards(name), fmt,
                    ["corpus", "shard_no", "documents", "tokens", "classes", "built_at", "seconds"]))
        return
    emit(render(Database(db).corpora(name or None), fmt, ["name", "unit", "tokens", "documents", "classes", "max_k",
                                                          "shards", "created_at", "db_bytes", "cache_bytes"]))


@app.command(rich_help_panel=INDEX_PANEL)
def drop(name: Annotated[str, typer.Argument(help="Corpus to delete.")], db: DbOption = None,
         quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Delete a corpus and everything built for it."""
    from termx.database import Database

    deleted = describe_deleted(Database(db).drop(name))
    if not quiet:
        typer.echo(f"dropped {name}" + (f" and its {deleted}" if deleted else ""), err=True)


@app.command(rich_help_panel=INDEX_PANEL)
def demo(
    corpus: Annotated[str, typer.Option("--corpus", "-c", help="Name for the demo corpus.")] = DEMO_CORPUS,
    top: Annotated[int, typer.Option("--top", min=1, max=100, help="Terms per ranking.")] = DEMO_TOP,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Index the docstrings again even if the corpus "
                                          "exists.")] = False,
    db: DbOption = None,
    quiet: QuietOption = False,
    fmt: FormatOption = Format.table,
    verbose: VerboseOption = False,
) -> None:
    """What termx is for, in one screen: index Python's stdlib docstrings (on every machine), rank terms by
    adaptation beside frequency and RIDF, show one in context, and break an unspaced sentence into words."""
    from dataclasses import asdict

    from termx.cli.commands_lookup import _kwic
    from termx.cli.output import visible_rows
    from termx.database import Database

    database = Database(db)
    with RichProgress(enabled=not quiet) as progress:
        report = database.demo(corpus, top, rebuild, progress)
    if fmt is not Format.table:
        emit(to_json(asdict(report)) if fmt is Format.json else render([asdict(report)], fmt))
        return
    side = [{"rank": k + 1, **{rank: report.terms[rank][k]["term"] if k < len(report.terms[rank]) else ""
                               for rank in report.terms}} for k in range(top)]
    emit(f"{report.corpus}: {report.documents} stdlib modules' docstrings, {report.tokens:,} bytes, every "
         "substring counted\n")
    emit(render(visible_rows(side, fmt), fmt, title="top terms (4+ bytes, in 3+ documents)"))
    emit(f"\nadaptation = df_2/df_1 (does a string recur in the documents it occurs in?); freq is the baseline; "
         f"ridf = residual IDF\n\n{report.term!r} in context (termx concordance {report.corpus} ...):")
    emit(_kwic(visible_rows(report.concordance, fmt), ""))
    emit(f"\nno spaces:  {report.sentence}\nwords:      {' '.join(report.words)}\n"
         f"(termx segment {report.corpus}: branching entropy + a word model the corpus taught itself, "
         f"model {report.model_source})")
