"""Look-ups fold the pattern in corpora indexed with --fold-case: re-apply sql/functions/lookup.sql, whose
termx._find now reads the corpus's `fold_case` param (the signatures are unchanged).

Revision ID: 0015_fold_case
Revises: 0014_shards
until the revisions are chained linearly)
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0015_fold_case"
down_revision = "0014_shards"
branch_labels = None
depends_on = None


def upgrade() -> None:
    apply_function_file(op.get_bind(), "lookup")


def downgrade() -> None:
    # The old body lives in git, not in the schema (sql/functions/README.md): re-applying the file keeps every
    # function and signature, and a corpus without the fold_case param answers exactly as before.
    apply_function_file(op.get_bind(), "lookup")
