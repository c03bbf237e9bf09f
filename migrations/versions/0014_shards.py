"""Corpora of several shards: each shard records when it was built and how long it took, and
sql/functions/lookup.sql is re-applied (termx.stats, termx.find_class sum freq and df_k over a corpus's shards;
termx.find_class_shards shows the per-shard classes).

Revision ID: 0014_shards
Revises: 0013_jdf
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0014_shards"
down_revision = "0013_jdf"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    ALTER TABLE termx.shard ADD COLUMN built_at timestamptz NOT NULL DEFAULT now();
    ALTER TABLE termx.shard ADD COLUMN seconds double precision;
    COMMENT ON COLUMN termx.shard.built_at IS 'When the shard''s build finished storing it.';
    COMMENT ON COLUMN termx.shard.seconds IS 'Seconds its worker took: build in memory and store.';
    """)
    apply_function_file(op.get_bind(), "lookup")


def downgrade() -> None:
    op.execute("""
    DROP FUNCTION termx.find_class_shards(text, text);
    DROP FUNCTION IF EXISTS termx._find_shard(text, integer, text);  -- gone since 0017_sql_shards
    DROP FUNCTION termx._corpus(text);
    ALTER TABLE termx.shard DROP COLUMN seconds;
    ALTER TABLE termx.shard DROP COLUMN built_at;
    """)
    # lookup.sql can only be re-applied as it is (sql/functions/README.md): termx._find keeps its multi-shard body,
    # which needs the functions dropped here, until 0004_lookup drops it (re-apply with an upgrade)
