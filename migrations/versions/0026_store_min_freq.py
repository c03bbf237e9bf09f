"""Store what is hot, compute what is cold: a corpus built with --store-min-freq T (its params' store_min_freq; 2
when absent, every corpus built before) holds class rows only for the classes with freq >= T. sql/functions/shards.sql
is re-applied: termx._find_each computes a class that has no row (freq < T) from the stored suffix array, so every
look-up answers as before (sql/functions/README.md: a later change to a function file); sql/functions/classes.sql
adds termx.classes(corpus, prefix, min_freq, max_occurrences): every class under a prefix, computed from the arrays,
cold ones too. The comments of termx.class and termx.corpus say which classes the table holds. The downgrade drops
termx.classes, restores the functions as 0025 left them (from sql/functions/replaced/shards_before_0026.sql) and the
comments; a corpus built with T > 2 then answers its cold patterns wrongly (as freq 1) in SQL and must be rebuilt
with T = 2 (the library's look-ups are unaffected).

Revision ID: 0026_store_min_freq
Revises: 0025_terms_body
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0026_store_min_freq"
down_revision = "0025_terms_body"
branch_labels = None
depends_on = None

CLASS_BEFORE = ("Non-trivial classes (i < j) of every shard; one partition per shard, created and indexed by the "
                "builder.")
CLASS_AFTER = (
    "Non-trivial classes (i < j) with freq >= the corpus''s store_min_freq (termx.corpus.params, 2 when absent: every "
    "class that repeats) of every shard; one partition per shard, created and indexed by the builder. The rarer "
    "classes have no row: termx.stats, find_class and the other look-ups compute them from the suffix array "
    "(docs/scale-out.md).")
CORPUS_BEFORE = "One row per indexed corpus; its statistics are the sums over its shards."
CORPUS_AFTER = (
    "One row per indexed corpus; its statistics are the sums over its shards. params ->> ''store_min_freq'': the "
    "least freq of a class with a row in termx.class (absent: 2).")


def upgrade() -> None:
    apply_function_file(op.get_bind(), "shards")
    apply_function_file(op.get_bind(), "classes")
    op.execute(f"COMMENT ON TABLE termx.class IS '{CLASS_AFTER}'")
    op.execute(f"COMMENT ON TABLE termx.corpus IS '{CORPUS_AFTER}'")


def downgrade() -> None:
    op.execute("DROP FUNCTION termx.classes(text, text, integer, integer)")
    op.execute("DROP FUNCTION termx._suffix_lcp(integer, bigint, integer, bigint, bigint, bigint, bigint)")
    apply_function_file(op.get_bind(), "replaced/shards_before_0026")
    op.execute(f"COMMENT ON TABLE termx.class IS '{CLASS_BEFORE}'")
    op.execute(f"COMMENT ON TABLE termx.corpus IS '{CORPUS_BEFORE}'")
