"""The term rankings share one body: termx.ranked_terms(measure, ...) (sql/functions/ranking.sql) scores the
candidates by a named measure and numbers the top ones; each sql/terms_<measure>.sql calls it.

Revision ID: 0025_terms_body
Revises: 0024_pattern_batches
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0025_terms_body"
down_revision = "0024_pattern_batches"
branch_labels = None
depends_on = None


def upgrade() -> None:
    apply_function_file(op.get_bind(), "ranking")


def downgrade() -> None:
    op.execute("DROP FUNCTION termx.ranked_terms(text, text, integer, integer, integer, integer, text)")
