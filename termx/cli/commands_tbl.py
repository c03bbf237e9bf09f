"""`termx tbl ...`: learn Brill transformation rules that correct a word breaker, apply and show them."""

from __future__ import annotations

from typing import Annotated

import typer

from termx.cli import TBL_PANEL, app
from termx.cli.options import DbOption, FormatOption, QuietOption, VerboseOption, emit, emit_raw
from termx.cli.output import Format, LinesFormat, LinesWriter, render, to_json
from termx.cli.progress_display import RichProgress

tbl_app = typer.Typer(help="Transformation-based learning (Brill): rules that correct word breaking.",
                      no_args_is_help=True)
app.add_typer(tbl_app, name="tbl", rich_help_panel=TBL_PANEL)

RULE_COLUMNS = ["ord", "rule", "score", "good", "bad"]


def _rule_rows(model) -> list[dict]:  # type: ignore[no-untyped-def, type-arg]
    return [{"ord": i + 1, "rule": model.describe(r), "template": r.template.name, "from_tag": r.from_tag,
             "to_tag": r.to_tag, "args": list(r.args), "score": r.score, "good": r.good, "bad": r.bad}
            for i, r in enumerate(model.rules)]


def _summary(name: str, model) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return {"name": name, "positions": model.n_positions, "n_rules": len(model.rules),
            "accuracy_before": round(model.accuracy_before, 6), "accuracy_after": round(model.accuracy_after, 6)}


def _show(name: str, model, fmt: Format) -> str:  # type: ignore[no-untyped-def]
    rows = _rule_rows(model)
    if fmt is Format.json:
        return to_json({**_summary(name, model), "rules": rows})
    if fmt is Format.table:
        return render(rows, fmt, RULE_COLUMNS) + "\n\n" + render([_summary(name, model)], fmt)
    return render(rows, fmt, RULE_COLUMNS)


@tbl_app.command()
def train(
    gold: Annotated[str, typer.Argument(help="Gold segmentation: spaced text, one sentence/document per line "
                                             "(- = stdin).")],
    pred: Annotated[str, typer.Argument(help="The word breaker's output for the same text, line by line.")],
    name: Annotated[str, typer.Option("--name", "-n", help="Name to store the model under.")],
    min_score: Annotated[int, typer.Option("--min-score", min=1, help="Stop when the best rule fixes fewer than "
                                           "this many more errors than it makes.")] = 2,
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
    from termx.line_reader import read_lines
    from termx.storage.db import get_engine
    from termx.tbl.model_store import save_model
    from termx.tbl.segmentation import train_segmentation_corrector
    from termx.tbl.templates import DEFAULT_TEMPLATES, TEMPLATE_SETS, select_templates

    chosen = DEFAULT_TEMPLATES if templates is None else select_templates(
        (n.strip() for n in templates.split(",") if n.strip()), TEMPLATE_SETS["chars8_tags"])
    with RichProgress() as progress:
        model = train_segmentation_corrector(read_lines(gold), read_lines(pred), templates=chosen,
                                             min_score=min_score, max_rules=max_rules, progress=progress)
    save_model(get_engine(db), name, model, replace=replace)
    emit(_show(name, model, fmt))


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
    from termx.line_reader import stream_lines
    from termx.storage.db import get_engine
    from termx.tbl.model_store import load_model
    from termx.tbl.segmentation import correct_segmentation

    batches = stream_lines(pred)
    model = load_model(get_engine(db), name)
    writer = LinesWriter(fmt)
    for lines in batches:
        first = writer.written + 1
        emit_raw(writer.batch([{"line": n, "words": line.split(" ") if line else []}
                               for n, line in enumerate(correct_segmentation(model, lines), first)]))
    emit_raw(writer.end())


@tbl_app.command()
def rules(name: Annotated[str, typer.Argument(help="A stored model.")], db: DbOption = None,
          fmt: FormatOption = Format.table, quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Print a stored model's rules in order, readably, with their training scores (good − bad)."""
    from termx.storage.db import get_engine
    from termx.tbl.model_store import load_model

    emit(_show(name, load_model(get_engine(db), name), fmt))


@tbl_app.command()
def models(db: DbOption = None, fmt: FormatOption = Format.table, quiet: QuietOption = False,
           verbose: VerboseOption = False) -> None:
    """List the stored TBL models with their training accuracy before/after."""
    from termx.storage.db import get_engine
    from termx.tbl.model_store import list_models

    emit(render(list_models(get_engine(db)), fmt,
                ["name", "n_rules", "n_positions", "accuracy_before", "accuracy_after", "created_at"]))


@tbl_app.command()
def templates(
    set_name: Annotated[str, typer.Option("--set", help="A built-in template set: brill (Brill's 23, the "
                                          "default of `termx tbl train`), chars4, chars4_tags, chars8, "
                                          "chars8_tags (each extends brill).")] = "brill",
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """List the templates of a built-in set (name and conditions), in tie-breaking order."""
    from termx.tbl.templates import template_set

    emit(render([{"name": t.name, "conditions": " ".join(c.spec for c in t.conditions)}
                 for t in template_set(set_name)], fmt))
