"""termx._find_each reads each shard's classes from the shard's own table (termx.class_<id>, by EXECUTE) instead of
through the partitioned parent: a generic plan over termx.class locked every partition in the database at each call
and was rebuilt whenever one of them changed (a thousand partitions made termx.stats 30-100x slower). Same answers;
sql/functions/shards.sql is re-applied (sql/functions/README.md: a later change to a function file). The downgrade
restores the functions as 0021 left them, from the copy kept in sql/functions/replaced/shards_before_0022.sql.

Revision ID: 0022_find_each_tables
Revises: 0021_shard_filter
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0022_find_each_tables"
down_revision = "0021_shard_filter"
branch_labels = None
depends_on = None


def upgrade() -> None:
    apply_function_file(op.get_bind(), "shards")


def downgrade() -> None:
    apply_function_file(op.get_bind(), "replaced/shards_before_0022")
