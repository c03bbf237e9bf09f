"""SQL look-ups over several shards: sql/functions/shards.sql (termx._find_each prepares a pattern once and finds its
class in every shard; termx._occurrences_shard) is applied, and lookup.sql is re-applied: termx.occurrences and
termx.concordance merge the shards' lines by document then offset and gain a `shard_no` column (so they are
dropped and re-created), termx._find sums over termx._find_each, and termx._find_shard is gone.

Revision ID: 0017_sql_shards
Revises: 0015_fold_case
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0017_sql_shards"
down_revision = "0015_fold_case"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    DROP FUNCTION termx.concordance(text, text, integer, integer, integer);
    DROP FUNCTION termx.occurrences(text, text, integer);
    DROP FUNCTION IF EXISTS termx._find_shard(text, integer, text);
    """)
    apply_function_file(op.get_bind(), "shards")
    apply_function_file(op.get_bind(), "lookup")


def downgrade() -> None:
    # lookup.sql can only be re-applied as it is (sql/functions/README.md): its functions keep their new bodies and
    # columns, which need the functions dropped here, until 0004_lookup drops them (re-apply with an upgrade)
    op.execute("""
    DROP FUNCTION termx._occurrences_shard(integer, integer, integer, integer);
    DROP FUNCTION termx._find_each(text, text, integer, boolean);
    """)
