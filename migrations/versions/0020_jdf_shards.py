"""SQL termx.jdf on corpora of any number of shards: re-apply sql/functions/jdf.sql, whose termx._jdf_docs now
takes the documents of every shard (global numbers) through termx._related_docs (the signatures are unchanged).

Revision ID: 0020_jdf_shards
Revises: 0019_sql_reader
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0020_jdf_shards"
down_revision = "0019_sql_reader"
branch_labels = None
depends_on = None


def upgrade() -> None:
    apply_function_file(op.get_bind(), "jdf")


def downgrade() -> None:
    # The old body lives in git, not in the schema (sql/functions/README.md): re-applying the file keeps every
    # function and signature, and a one-shard corpus answers exactly as before.
    apply_function_file(op.get_bind(), "jdf")
