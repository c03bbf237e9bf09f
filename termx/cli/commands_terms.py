"""`termx terms`: rank a corpus's term candidates (adaptation, Poisson null, RIDF, specificity, freq/df)."""

from __future__ import annotations

from typing import Annotated

import typer

from termx.choices import Ranking
from termx.cli import TERMS_PANEL, app
from termx.cli.options import DbOption, FormatOption, QuietOption, VerboseOption, emit
from termx.cli.output import Format, render
from termx.cli.progress import RichProgress

COLUMNS = {Format.tsv: ["term", "score", "freq", "df"]}
TABLE_COLUMNS = ["rank", "term", "score", "freq", "df", "len"]
REFERENCE_COLUMNS = [*TABLE_COLUMNS, "ref_freq", "ref_df"]
ALL = 2**31 - 1  # --limit 0: the ranking queries take an integer LIMIT


@app.command(rich_help_panel=TERMS_PANEL)
def terms(
    corpus: Annotated[str, typer.Argument(help="Corpus to extract terms from.")],
    limit: Annotated[int, typer.Option("--limit", "-n", "--top", min=0, help="How many terms to show; 0 = all "
                                       "(--top is the old name).")] = 100,
    rank: Annotated[Ranking, typer.Option("--rank", help="adaptation: (df_2+0.5)/(df_1+1); poisson: signed G2 "
                                          "of df_2 against a length-aware Poisson null; ridf: residual IDF; "
                                          "specificity: weirdness against --reference x ln freq; "
                                          "freq, df: the baselines.")] = Ranking.adaptation,
    reference: Annotated[str | None, typer.Option("--reference", help="With --rank specificity: an indexed "
                                                  "corpus of general text in the same unit to compare "
                                                  "with.")] = None,
    min_df: Annotated[int, typer.Option("--min-df", min=1, help="Keep candidates in at least this many "
                                        "documents (df_1).")] = 3,
    min_len: Annotated[int, typer.Option("--min-len", min=1, help="Shortest candidate, in tokens (bytes, "
                                         "characters or words; use 1 for single words).")] = 2,
    max_len: Annotated[int, typer.Option("--max-len", min=1, help="Longest candidate, in tokens.")] = 40,
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
    from termx.storage.db import get_engine
    from termx.terms import extract_terms, save_terms

    engine = get_engine(db)
    limit = limit or ALL
    with RichProgress(enabled=not quiet) as progress:
        rows = extract_terms(engine, corpus, rank, limit, min_df, min_len, max_len, progress, reference=reference)
    if save:
        params = {"rank": rank.value, "top": limit, "min_df": min_df, "min_len": min_len, "max_len": max_len}
        if reference is not None:
            params["reference"] = reference
        save_terms(engine, save, corpus, rows, params, replace)
        if not quiet:
            typer.echo(f"saved {len(rows)} terms as term list {save!r}", err=True)
    emit(render(rows, fmt, COLUMNS.get(fmt, REFERENCE_COLUMNS if reference is not None else TABLE_COLUMNS)))
