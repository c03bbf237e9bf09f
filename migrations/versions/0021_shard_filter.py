"""Shard filters: sql/functions/ngram_filter.sql (termx._ngram_keys, termx._ngram_maybe: a shard's "does not occur"
filter, built since this revision as its index array 'ngram_filter') is applied (with termx.index.ngramfilter's
constants as its markers), and shards.sql is re-applied: where a shard's class probe misses, termx._find_each
searches the shard's suffix array only if its filter lets the pattern occur (the signatures are unchanged; shards
built before have no filter and are searched as before).

Revision ID: 0021_shard_filter
Revises: 0020_jdf_shards
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0021_shard_filter"
down_revision = "0020_jdf_shards"
branch_labels = None
depends_on = None


def upgrade() -> None:
    apply_function_file(op.get_bind(), "ngram_filter")
    apply_function_file(op.get_bind(), "shards")


def downgrade() -> None:
    # shards.sql can only be re-applied as it is (sql/functions/README.md): termx._find_each keeps its new body,
    # which calls the functions dropped here, until 0017_sql_shards drops it (re-apply with an upgrade). The
    # filters stay in termx.index_array, unread.
    op.execute("""
    DROP FUNCTION termx._ngram_maybe(integer, bigint[], bigint[]);
    DROP FUNCTION termx._ngram_keys(bigint[]);
    """)
