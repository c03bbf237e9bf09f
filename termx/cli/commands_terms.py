"""`termx terms`: rank a corpus's term candidates (adaptation, Poisson null, RIDF, specificity, freq/df)."""

from __future__ import annotations

from typing import Annotated

import typer

from termx.cli.options import DbOption, FormatOption, QuietOption, VerboseOption, emit
from termx.cli.output import Format, render
from termx.cli.progress_display import RichProgress
from termx.cli.root import TERMS_PANEL, app
from termx.defaults import TERMS_MAX_LEN, TERMS_MIN_DF, TERMS_MIN_LEN, TERMS_RANK, TERMS_TOP, Ranking

COLUMNS = {Format.tsv: ["term", "score", "freq", "df"]}
TABLE_COLUMNS = ["rank", "term", "score", "freq", "df", "len"]
REFERENCE_COLUMNS = [*TABLE_COLUMNS, "ref_freq", "ref_df"]
ALL = 2**31 - 1  # --limit 0: the ranking queries take an integer LIMIT


@app.command(rich_help_panel=TERMS_PANEL)
def terms(
    corpus: Annotated[str, typer.Argument(help="Corpus to extract terms from.")],
    limit: Annotated[int, typer.Option("--limit", "-n", "--top", min=0, help="How many terms to show; 0 = all "
                                       "(--top is the old name).")] = TERMS_TOP,
    rank: Annotated[Ranking, typer.Option("--rank", help="adaptation: (df_2+0.5)/(df_1+1); poisson: signed G2 "
                                          "of df_2 against a length-aware Poisson null; ridf: residual IDF; "
                                          "specificity: weirdness against --reference x ln freq; "
                                          "freq, df: the baselines; cvalue: C-value, log2(len+1) x "
                                          "the nested-discounted freq.")] = Ranking(TERMS_RANK),
    reference: Annotated[str | None, typer.Option("--reference", help="With --rank specificity: an indexed "
                                                  "corpus of general text in the same unit to compare "
                                                  "with.")] = None,
    nested: Annotated[bool, typer.Option("--nested", help="With --rank freq or specificity: use C-value's "
                                         "nested discount, freq minus the mean freq of the longer candidates "
                                         "containing the term.")] = False,
    min_df: Annotated[int, typer.Option("--min-df", min=1, help="Keep candidates in at least this many "
                                        "documents (df_1).")] = TERMS_MIN_DF,
    min_len: Annotated[int, typer.Option("--min-len", min=1, help="Shortest candidate, in tokens (bytes, "
                                         "characters or words; use 1 for single words).")] = TERMS_MIN_LEN,
    max_len: Annotated[int, typer.Option("--max-len", min=1, help="Longest candidate, in tokens.")] = TERMS_MAX_LEN,
    fmt: FormatOption = Format.table,
    save: Annotated[str | None, typer.Option("--save", help="Also store the list in PostgreSQL as "
                                             "termx.term_list NAME with its rows in termx.term.")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="With --save: overwrite a list of that "
                                          "name.")] = False,
    db: DbOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Top terms of a corpus: longest members of left-maximal classes, ranked by a query in sql/terms_*.sql.

    The first run on a corpus computes its candidates and stores them in termx.candidate (and, with
    --reference, their counts in the reference corpus in termx.candidate_reference).
    """
    from termx.database import Database

    opened = Database(db).corpus(corpus)
    with RichProgress(enabled=not quiet) as progress:
        rows = opened.terms(rank, limit or ALL, min_df, min_len, max_len, reference, nested=nested, save=save,
                            replace=replace, progress=progress)
    if save and not quiet:
        typer.echo(f"saved {len(rows)} terms as term list {save!r}", err=True)
    emit(render(rows, fmt, COLUMNS.get(fmt, REFERENCE_COLUMNS if reference is not None else TABLE_COLUMNS)))
