"""Batches of patterns in SQL: termx.stats(corpus, text[]) answers every good pattern and gives a bad one (empty,
longer than every document) a row with an `error` column instead of aborting the call, so it is dropped and
re-created with that column (lookup.sql re-applied); sql/functions/batches.sql adds termx.find_class(corpus,
text[]) and termx.concordance(corpus, text[], ...) that do the same.

Revision ID: 0024_pattern_batches
Revises: 0022_find_each_tables
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0024_pattern_batches"
down_revision = "0023_reader_login"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP FUNCTION termx.stats(text, text[])")  # its result gains a column
    apply_function_file(op.get_bind(), "lookup")
    apply_function_file(op.get_bind(), "batches")


def downgrade() -> None:
    # lookup.sql can only be re-applied as it is (sql/functions/README.md): termx.stats(text, text[]) keeps its
    # error column until 0004_lookup drops it
    op.execute("""
    DROP FUNCTION termx.concordance(text, text[], integer, integer, integer);
    DROP FUNCTION termx.find_class(text, text[]);
    DROP FUNCTION termx._pattern_failure(integer, text, text, text);
    """)
