"""Store cross-validation bins (termx.crossval_run / crossval_bin, migration 0012_studies) in one transaction."""

from __future__ import annotations

from sqlalchemy.engine import Engine

from termx.index.loaded_index import LoadedIndex
from termx.storage.copyrows import copy_binary
from termx.storage.transactions import transaction
from termx.studies.crossval import CrossvalBins, HalfStatistics


def save_crossval(engine: Engine, index: LoadedIndex, stats: HalfStatistics, bins: CrossvalBins) -> None:
    """Replace the corpus's stored bins (binned by (freq, df_1)); readers see the old or the new set, never half."""
    if len(bins.df) and int(bins.df.min()) < 0:
        raise ValueError("only bins by (freq, df_1) are stored")
    with transaction(engine, f"corpus {index.corpus.name!r}") as conn:
        conn.execute("DELETE FROM termx.crossval_run WHERE corpus_id = %s", (index.corpus.id,))
        conn.execute("INSERT INTO termx.crossval_run (corpus_id, half1_docs, half1_tokens, tokens) "
                     "VALUES (%s, %s, %s, %s)", (index.corpus.id, stats.docs_half1, stats.tokens_half1, index.n))
        copy_binary(conn, "termx.crossval_bin", ("corpus_id", "freq", "df", "n", "classes", "freq2_sum", "freq_star"),
                    ("int4", "int8", "int4", "int8", "int8", "int8", "float8"),
                    ((index.corpus.id, f, d, n, c, s, s / n) for f, d, n, c, s in zip(
                        bins.freq.tolist(), bins.df.tolist(), bins.n.tolist(), bins.classes.tolist(),
                        bins.freq2_sum.tolist(), strict=True)))
