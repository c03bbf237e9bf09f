"""Evaluation commands: compare (paired significance tests), signtest-table, segscore."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from termx.cli.options import FormatOption, QuietOption, VerboseOption, emit
from termx.cli.output import Format, render, to_json
from termx.cli.root import EVALUATION_PANEL, app
from termx.defaults import SIGN_TABLE_MAX_N, SIGN_TABLE_MIN_N, CompareOptions
from termx.errors import InputError


class Ties(Enum):
    drop = "drop"
    split = "split"


class ZeroMethod(Enum):
    wilcox = "wilcox"
    pratt = "pratt"


AlphaOption = Annotated[float, typer.Option("--alpha", help="Significance level, in (0, 1).")]
TailsOption = Annotated[int, typer.Option("--tails", min=1, max=2, help="2 = two-tailed; 1 = one-tailed in the "
                                          "direction named by --alternative (required with --tails 1).")]


class Alternative(Enum):
    a_better = "A-better"
    b_better = "B-better"

RESULT_COLUMNS = ["test", "method", "n", "ties", "statistic", "p_value", "decision", "better", "difference"]


@app.command("compare", rich_help_panel=EVALUATION_PANEL)
def compare_cmd(
    a_path: Annotated[Path, typer.Argument(metavar="A.jsonl", help="System A: one JSON object per subset.")],
    b_path: Annotated[Path, typer.Argument(metavar="B.jsonl", help="System B, same subset ids.")],
    test: Annotated[str, typer.Option("--test", "-t", help="all, or a comma-separated list of: sign, wilcoxon, "
                                      "ttest, mcnemar, mapsswe, bootstrap, permutation.")] = "all",
    alpha: AlphaOption = CompareOptions.alpha,
    tails: TailsOption = 2,
    alternative: Annotated[Alternative | None, typer.Option(
        "--alternative", help="The direction hypothesised before the data for a one-tailed test (implies "
        "--tails 1).", show_default=False)] = None,
    ties: Annotated[Ties, typer.Option("--ties", help="Sign test: drop tied subsets (the default) or split "
                                       "them half and half as NIST's sc_stats does.")] = Ties.drop,
    zero_method: Annotated[ZeroMethod, typer.Option("--zero-method", help="Wilcoxon: drop zero differences "
                                                    "(wilcox) or rank them unsigned (pratt).")] = ZeroMethod.wilcox,
    exact: Annotated[bool | None, typer.Option("--exact/--normal", help="Force exact p-values (sign, "
                                               "Wilcoxon, McNemar) or the normal/chi-square approximations. "
                                               "Default: exact sign and McNemar, Wilcoxon exact up to "
                                               "N = 50.", show_default=False)] = None,
    resamples: Annotated[int, typer.Option("--resamples", min=1, help="Bootstrap / randomization "
                                           "resamples.")] = CompareOptions.resamples,
    seed: Annotated[int, typer.Option("--seed", help="Random seed of the resampling tests.")] = CompareOptions.seed,
    min_good: Annotated[int, typer.Option("--min-good", min=1, help="MAPSSWE: jointly right items that "
                                          "close a segment.")] = CompareOptions.min_good,
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Compare two systems scored on the same subsets with paired significance tests (a NIST-style report)."""
    if tails == 1 and alternative is None:
        raise typer.BadParameter("a one-tailed test needs the direction hypothesised beforehand: "
                                 "--alternative A-better or B-better", param_hint="--tails")
    from termx.face.evaluation import compare_systems

    hypothesis = alternative.value if alternative else CompareOptions.alternative
    report = compare_systems(a_path, b_path, test, alpha=alpha, alternative=hypothesis, ties=ties.value,
                             zero_method=zero_method.value, exact=exact, resamples=resamples, seed=seed,
                             min_good=min_good)
    results = report["results"]
    if fmt is not Format.table:
        emit(render(results, fmt, RESULT_COLUMNS))
        return
    direction = "higher" if report["higher_is_better"] else "lower"
    header = (f"A = {a_path}   B = {b_path}\n{report['subsets']} subsets, measure: {report['measure']} "
              f"({direction} is better), alpha = {alpha:g}, "
              + (f"1-tailed, hypothesis {alternative.value.replace('-better', ' better')} (stated beforehand)"
                 if alternative else "2-tailed"))
    per_subset = render(report["per_subset"], Format.table, title="Per-subset results")
    emit("\n\n".join([header, render(results, Format.table, RESULT_COLUMNS, title="Paired tests"),
                      "\n".join(r["summary"] for r in results), per_subset]))


@app.command("signtest-table", rich_help_panel=EVALUATION_PANEL)
def signtest_table_cmd(
    alpha: AlphaOption = CompareOptions.alpha,
    tails: TailsOption = 2,
    n_min: Annotated[int, typer.Option("--min-n", min=1, help="Smallest N.")] = SIGN_TABLE_MIN_N,
    n_max: Annotated[int, typer.Option("--max-n", min=1, help="Largest N.")] = SIGN_TABLE_MAX_N,
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Critical values of the sign test: reject H0 when min(N+, N-) <= critical_value (exact binomial)."""
    from termx.face.evaluation import sign_test_table

    rows = sign_test_table(alpha, tails, n_min, n_max)
    if fmt is not Format.table:
        emit(render(rows, fmt))
        return
    emit(f"Sign test critical values, {tails}-tailed, alpha = {alpha:g}: reject H0 when min(N+, N-) <= "
         "critical_value\n(p_value = P(C <= critical_value); empty = no outcome is significant at this N)\n\n"
         + render(rows, fmt))


@app.command("segscore", rich_help_panel=EVALUATION_PANEL)
def segscore_cmd(
    gold: Annotated[str, typer.Argument(help="Gold segmentation: one sentence per line, words space-separated "
                                             "(- = stdin).")],
    pred: Annotated[str, typer.Argument(help="Predicted segmentation of the same lines (- = stdin, e.g. piped "
                                             "from termx segment).")],
    fmt: FormatOption = Format.table,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Score a word segmentation against gold: word and boundary precision/recall/F1 (SIGHAN bakeoff style)."""
    from termx.face.evaluation import score_segmentation
    from termx.line_reader import read_lines, source_name

    if gold == "-" and pred == "-":
        raise InputError("GOLD and PRED cannot both be stdin", "give one of them as a file")
    scores = score_segmentation(read_lines(gold), read_lines(pred), source_name(gold), source_name(pred))
    if fmt is Format.json:
        emit(to_json(scores))
        return
    rows = [{"level": level, **scores[level]} for level in ("word", "boundary")]  # jsonl: the rows csv has
    emit(render(rows, fmt, title=f"{scores['lines']} lines"))
