"""Word breaking commands: segment (text → words with a corpus's statistics) and whitespace (the experiment)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Annotated, Any

import typer

from termx.cli.options import DbOption, QuietOption, VerboseOption, emit, emit_raw
from termx.cli.output import Format, LinesFormat, LinesWriter, describe_deleted, render, to_json
from termx.cli.progress_display import RichProgress
from termx.cli.root import WORDBREAK_PANEL, app
from termx.database import InputMode
from termx.defaults import DEFAULT_MAX_LEN, WHITESPACE_SCORERS, Condition, Scorer, Unit
from termx.errors import InputError
from termx.limits import scorer_ranges

MaxLenOption = Annotated[int, typer.Option("--max-len", min=1, max=256,
                                           help="Longest candidate word, in tokens of the corpus.")]


ParamOption = Annotated[list[str] | None, typer.Option("--param", "-p", help="NAME=VALUE: a scorer parameter "
                                                      "(beta; branching: window, kappa, kappa_digit, "
                                                      "kappa_han_kana, kappa_run, runs, theta0, weight, theta, "
                                                      "smoothing, autonomy, passes, pass_weight, pass_theta, "
                                                      "pass_mix, pass_bigram, pass_pair, suffix, "
                                                      "suffix_stems; words: discount, min_count, min_pair, "
                                                      "unknown, unknown_len), for one scorer as "
                                                      "SCORER.NAME=VALUE. "
                                                      "Repeatable. Allowed values: " + scorer_ranges() + ".")]


def _options(specs: list[str] | None, scorers: list[Scorer]) -> dict[str, dict[str, float]]:
    """--param values per scorer; a bare NAME goes to every chosen scorer that has it."""
    from termx.face.wordbreak import scorer_params

    out: dict[str, dict[str, float]] = {s.value: {} for s in scorers}
    for spec in specs or []:
        key, sep, text = spec.partition("=")
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not sep or value != value:
            raise InputError(f"bad --param {spec!r}", "write NAME=NUMBER or SCORER.NAME=NUMBER")
        owner, dot, name = key.rpartition(".")
        targets = [s for s in scorers if s.value == owner] if dot else \
            [s for s in scorers if name in scorer_params(s.value, {})]
        if not targets:
            raise InputError(f"no chosen scorer takes --param {key!r}",
                             "; ".join(f"{s.value}: {', '.join(scorer_params(s.value, {}))}" for s in scorers))
        for s in targets:
            out[s.value][name] = value
    for s in scorers:
        scorer_params(s.value, out[s.value])
    return out


def _scorers(spec: str) -> list[Scorer]:
    names = [s.strip() for s in spec.split(",") if s.strip()]
    known = ", ".join(s.value for s in Scorer)
    if not names:
        raise InputError("no scorers given", f"choose from {known}")
    out = []
    for name in names:
        try:
            out.append(Scorer(name))
        except ValueError:
            raise InputError(f"unknown scorer {name!r}", f"choose from {known}") from None
    return list(dict.fromkeys(out))


@app.command(rich_help_panel=WORDBREAK_PANEL)
def segment(
    corpus: Annotated[str, typer.Argument(help="Corpus whose statistics score the candidate words.")],
    source: Annotated[str, typer.Argument(metavar="[FILE|-]", help="Text to break, one line at a time "
                                          "(default: stdin).")] = "-",
    scorer: Annotated[Scorer, typer.Option(help="branching: branching entropy + self-trained word model; "
                                           "adaptation: log A − β; poisson: log(A / A_poisson) − β; freq: "
                                           "log(f/N) − β, the baseline; words: word and word-pair counts of "
                                           "the corpus's own spacing (a spaced corpus: hashtags, URLs, "
                                           "run-together words), bigram Viterbi with an unknown-word model "
                                           "(docs/segment.md).")] = Scorer.branching,
    max_len: MaxLenOption = DEFAULT_MAX_LEN,
    param: ParamOption = None,
    db: DbOption = None,
    quiet: QuietOption = False,
    fmt: Annotated[LinesFormat, typer.Option("--format", "-f", help="text: words separated by spaces, one "
                                             "line per input line; tsv: separated by tabs; jsonl: one "
                                             "{line, text, words, boundaries} record per line; json: an array "
                                             "of them.")] = LinesFormat.text,
    verbose: VerboseOption = False,
) -> None:
    """Break each input line into words with no dictionary: candidates and statistics from CORPUS, Viterbi
    search for the best total score. White space already in the input stays a boundary. With --scorer words,
    CORPUS's own spacing is the model: its word and word-pair counts (counted once, stored with it).

    Streams: input is read as it arrives and each batch of lines is answered and flushed, so it works in a
    pipe (`producer | termx segment CORPUS - | consumer`)."""
    from termx.database import Database
    from termx.face.wordbreak import segment_records
    from termx.line_reader import stream_lines

    options = _options(param, [scorer])[scorer.value]
    database = Database(db)
    batches = stream_lines(source)
    first = next(batches, [])  # read before the corpus is looked up: a missing FILE is the first error
    opened = database.corpus(corpus)
    notice = opened.foreign_notice(first)  # before a model is trained for text it cannot break
    if notice is not None:
        typer.echo(f"Warning: {notice}", err=True)
    with RichProgress(enabled=not quiet) as progress:
        segment_lines, trained = opened.word_breaker(scorer.value, max_len, options, progress)
    if trained is not None and not quiet:
        size = f"{trained:,} words" if scorer is Scorer.words else f"{trained:,} n-grams"
        typer.echo(f"trained the {scorer.value} model of {corpus!r} and stored it with the corpus "
                   f"({size}); later calls load it", err=True)
    writer = LinesWriter(fmt)
    for lines in itertools.chain([first], batches):
        records: list[dict[str, Any]] = list(segment_records(lines, segment_lines(lines), writer.written + 1))  # type: ignore[arg-type]
        emit_raw(writer.batch(records))
    emit_raw(writer.end())


@app.command(rich_help_panel=WORDBREAK_PANEL)
def whitespace(
    paths: Annotated[list[str], typer.Argument(help="Spaced text: files, directories or - for stdin.")],
    corpus: Annotated[str, typer.Option("--corpus", "-c", help="Name of the corpus the de-spaced text is "
                                        "indexed as.")],
    input_mode: Annotated[InputMode, typer.Option("--input", help="How PATHs split into documents (as in "
                                                  "termx index).")] = InputMode.auto,
    unit: Annotated[Unit, typer.Option(help="byte or char (Chinese, Japanese).")] = Unit.byte,
    scorers: Annotated[str, typer.Option("--scorers", help="Comma-separated scorers to compare: branching, "
                                         "adaptation, poisson, freq.")] = ",".join(s.value for s in WHITESPACE_SCORERS),
    eval_docs: Annotated[int | None, typer.Option("--eval-docs", min=1, help="Score only the first N documents; "
                                                  "the rest are unlabelled context. Default: all.")] = None,
    condition: Annotated[Condition, typer.Option(help="alnum: lower-case, keep only letters and digits; raw: "
                                                 "delete only the white space.")] = Condition.alnum,
    lines_per_doc: Annotated[int | None, typer.Option("--lines-per-doc", min=1, help="Pseudo-documents: this "
                                                      "many consecutive input documents (e.g. --input lines) "
                                                      "form one document; each line is scored on its own.")]
    = None,
    max_len: MaxLenOption = DEFAULT_MAX_LEN,
    param: ParamOption = None,
    results: Annotated[Path | None, typer.Option("--results", help="Write <scorer>.jsonl per-document records "
                                                 "for termx compare here.")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Rebuild an existing corpus of that name.")] = False,
    tbl: Annotated[bool, typer.Option("--tbl", help="Also correct each scorer with Brill's TBL, trained on its "
                                      "output for context documents (never evaluated ones): adds "
                                      "<scorer>+tbl rows and paired tests; models stored as "
                                      "whitespace-<run_id>-<scorer>.")] = False,
    tbl_train_chars: Annotated[int | None, typer.Option("--tbl-train-chars", min=1, help="With --tbl: characters "
                                                        "of context documents to train on, sampled with a fixed "
                                                        "seed. Default 1000000.")] = None,
    tbl_min_score: Annotated[int | None, typer.Option("--tbl-min-score", min=1, help="With --tbl: stop when the "
                                                      "best rule fixes fewer than this many more errors than it "
                                                      "makes. Default 2.")] = None,
    tbl_max_rules: Annotated[int | None, typer.Option("--tbl-max-rules", min=1, help="With --tbl: learn at most "
                                                      "this many rules. Default: no limit.")] = None,
    tbl_templates: Annotated[str | None, typer.Option("--tbl-templates", help="With --tbl: the built-in template "
                                                      "set (brill, chars4, chars4_tags, chars8, chars8_tags; "
                                                      "`termx tbl templates --set NAME`). Default chars8_tags.")]
    = None,
    db: DbOption = None,
    quiet: QuietOption = False,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="table: one row per scorer; json: the whole "
                                        "report with per-document scores.")] = Format.table,
    verbose: VerboseOption = False,
) -> None:
    """The white space recovery experiment: delete the spaces, index, segment, score against the spacing."""
    from termx.database import Database

    chosen = _scorers(scorers)
    options = _options(param, chosen)
    tbl_flags = {"--tbl-train-chars": tbl_train_chars, "--tbl-min-score": tbl_min_score,
                 "--tbl-max-rules": tbl_max_rules, "--tbl-templates": tbl_templates}
    unused = [flag for flag, value in tbl_flags.items() if value is not None]
    if unused and not tbl:
        raise InputError(f"{', '.join(unused)} needs --tbl", "add --tbl to train and apply the TBL correctors")
    settings = {"train_chars": tbl_train_chars, "min_score": tbl_min_score, "max_rules": tbl_max_rules,
                "templates": tbl_templates} if tbl else None
    database = Database(db)
    with RichProgress(enabled=not quiet) as progress:
        report = database.whitespace(corpus, paths, input=input_mode, unit=unit, scorers=[s.value for s in chosen],
                                     eval_docs=eval_docs, condition=condition, lines_per_doc=lines_per_doc,
                                     max_len=max_len, params=options, results=results, replace=replace,
                                     tbl=settings, progress=progress)
    deleted = describe_deleted(report.deleted)
    if deleted and not quiet:
        typer.echo(f"replaced {corpus}: deleted its {deleted}", err=True)
    if fmt is Format.json:
        emit(to_json(report.as_dict()))
        return
    rows = [r.row() for r in report.results]
    if fmt is Format.jsonl:
        emit(render(rows, fmt))
        return
    title = (f"run {report.run_id}: {report.eval_documents} documents scored ({report.characters} characters), "
             f"{report.context_documents} context, condition {report.condition}")
    emit(render(rows, fmt, title=title if fmt is Format.table else None))
    if report.tbl and fmt is Format.table:
        emit(render([t.row() for t in report.tbl], fmt,
                    title="TBL: boundary F1 before/after; sign test and Wilcoxon over documents "
                          "(boundary-decision error rate)"))
