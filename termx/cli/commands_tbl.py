"""`termx tbl ...`: learn Brill transformation rules that correct a word breaker, apply and show them."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from termx.cli.options import DbOption, FormatOption, QuietOption, VerboseOption, emit, emit_raw
from termx.cli.output import Format, LinesFormat, LinesWriter, render, to_json
from termx.cli.progress_display import RichProgress
from termx.cli.root import TBL_PANEL, app
from termx.defaults import TBL_MIN_SCORE, TBL_TEMPLATE_SET

tbl_app = typer.Typer(help="Transformation-based learning (Brill): rules that correct word breaking.",
                      no_args_is_help=True)
app.add_typer(tbl_app, name="tbl", rich_help_panel=TBL_PANEL)

RULE_COLUMNS = ["ord", "rule", "score", "good", "bad"]


def _show(record: dict[str, Any], fmt: Format) -> str:
    """A model's record (Database.tbl_model): its rules, and in a table its summary below them."""
    rows = record["rules"]
    summary = {k: v for k, v in record.items() if k != "rules"}
    if fmt is Format.json:
        return to_json(record)
    if fmt is Format.table:
        return render(rows, fmt, RULE_COLUMNS) + "\n\n" + render([summary], fmt)
    return render(rows, fmt, RULE_COLUMNS)


@tbl_app.command()
def train(
    gold: Annotated[str, typer.Argument(help="Gold segmentation: spaced text, one sentence/document per line "
                                             "(- = stdin).")],
    pred: Annotated[str, typer.Argument(help="The word breaker's output for the same text, line by line.")],
    name: Annotated[str, typer.Option("--name", "-n", help="Name to store the model under.")],
    min_score: Annotated[int, typer.Option("--min-score", min=1, help="Stop when the best rule fixes fewer than "
                                           "this many more errors than it makes.")] = TBL_MIN_SCORE,
    max_rules: Annotated[int | None, typer.Option("--max-rules", min=1, help="Stop after this many rules.")] = None,
    templates: Annotated[str | None, typer.Option("--templates", help="Comma-separated template names "
                                                  "(default: Brill's 23; see `termx tbl templates --set "
                                                  "chars8_tags` for all built-in ones).")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Overwrite a stored model of that name.")] = False,
    db: DbOption = None,
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Learn rules that turn PRED into GOLD, store them, print them with training accuracy before/after."""
    from termx.database import Database
    from termx.line_reader import read_lines

    names = None if templates is None else [n.strip() for n in templates.split(",") if n.strip()]
    gold_lines, pred_lines = read_lines(gold), read_lines(pred)
    database = Database(db)
    with RichProgress() as progress:
        record = database.tbl_learn(name, gold_lines, pred_lines, min_score=min_score,
                                    max_rules=max_rules, templates=names, replace=replace, progress=progress)
    emit(_show(record, fmt))


@tbl_app.command("apply")
def apply_cmd(
    name: Annotated[str, typer.Argument(help="A stored model (see `termx tbl models`).")],
    pred: Annotated[str, typer.Argument(help="Segmented text to correct, one line each (- = stdin).")],
    db: DbOption = None,
    fmt: Annotated[LinesFormat, typer.Option("--format", "-f", help="text: the corrected lines; tsv: their "
                                             "words separated by tabs; jsonl: one {line, words} record per "
                                             "line; json: an array of them.")] = LinesFormat.text,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Write PRED corrected by the model's rules (applied in order) to stdout, streamed batch by batch."""
    from termx.database import Database
    from termx.line_reader import stream_lines

    batches = stream_lines(pred)
    correct = Database(db).tbl_corrector(name)
    writer = LinesWriter(fmt)
    for lines in batches:
        first = writer.written + 1
        emit_raw(writer.batch([{"line": n, "words": line.split(" ") if line else []}
                               for n, line in enumerate(correct(lines), first)]))
    emit_raw(writer.end())


@tbl_app.command()
def rules(name: Annotated[str, typer.Argument(help="A stored model.")], db: DbOption = None,
          fmt: FormatOption = Format.table, quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Print a stored model's rules in order, readably, with their training scores (good − bad)."""
    from termx.database import Database

    emit(_show(Database(db).tbl_model(name), fmt))


@tbl_app.command()
def models(db: DbOption = None, fmt: FormatOption = Format.table, quiet: QuietOption = False,
           verbose: VerboseOption = False) -> None:
    """List the stored TBL models with their training accuracy before/after."""
    from termx.database import Database

    emit(render(Database(db).tbl_models(), fmt,
                ["name", "n_rules", "n_positions", "accuracy_before", "accuracy_after", "created_at"]))


@tbl_app.command()
def templates(
    set_name: Annotated[str, typer.Option("--set", help="A built-in template set: brill (Brill's 23, the "
                                          "default of `termx tbl train`), chars4, chars4_tags, chars8, "
                                          "chars8_tags (each extends brill).")] = TBL_TEMPLATE_SET,
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """List the templates of a built-in set (name and conditions), in tie-breaking order."""
    from termx.database import Database

    emit(render(Database.tbl_templates(set_name), fmt))
