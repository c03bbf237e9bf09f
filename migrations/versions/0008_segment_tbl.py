"""White space recovery runs may hold TBL-corrected scorers: seg_score.kind also takes 'tbl' (termx whitespace
--tbl reports `<scorer>+tbl` next to each scorer).

Revision ID: 0008_segment_tbl
Revises: 0006_segment
"""

from alembic import op

revision = "0008_segment_tbl"
down_revision = "0006_segment"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    ALTER TABLE termx.seg_score DROP CONSTRAINT seg_score_kind_check;
    ALTER TABLE termx.seg_score ADD CONSTRAINT seg_score_kind_check CHECK (kind IN ('scorer', 'baseline', 'tbl'));
    """)


def downgrade() -> None:
    op.execute("""
    DELETE FROM termx.seg_score WHERE kind = 'tbl';
    ALTER TABLE termx.seg_score DROP CONSTRAINT seg_score_kind_check;
    ALTER TABLE termx.seg_score ADD CONSTRAINT seg_score_kind_check CHECK (kind IN ('scorer', 'baseline'));
    """)
