"""White space recovery runs: one row per run of `termx whitespace`, one score row per (scorer, document).

Revision ID: 0006_segment
Revises: 0001_core
"""

from alembic import op

revision = "0006_segment"
down_revision = "0001_core"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE termx.seg_run (
        id          serial PRIMARY KEY,
        corpus_id   integer NOT NULL REFERENCES termx.corpus(id) ON DELETE CASCADE,
        params      jsonb NOT NULL DEFAULT '{}',   -- condition, unit, scorers, parameters, documents, seconds
        created_at  timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE termx.seg_run IS 'A white space recovery experiment (termx whitespace) on one de-spaced corpus.';

    CREATE TABLE termx.seg_score (
        run_id      integer NOT NULL REFERENCES termx.seg_run(id) ON DELETE CASCADE,
        scorer      text NOT NULL,      -- a scorer (adaptation, freq, ...) or a baseline (no-boundaries, ...)
        kind        text NOT NULL CHECK (kind IN ('scorer', 'baseline')),
        doc_no      integer NOT NULL,   -- position among the run's evaluation documents
        doc_name    text NOT NULL,
        b_tp        integer NOT NULL,   -- boundaries inside the document: right, spurious, missed
        b_fp        integer NOT NULL,
        b_fn        integer NOT NULL,
        w_tp        integer NOT NULL,   -- words (both ends right, SIGHAN style): right, spurious, missed
        w_fp        integer NOT NULL,
        w_fn        integer NOT NULL,
        PRIMARY KEY (run_id, scorer, doc_no)
    );
    COMMENT ON TABLE termx.seg_score IS 'Per-document boundary and word counts of every scorer of a seg_run.';
    """)


def downgrade() -> None:
    op.execute("DROP TABLE termx.seg_score; DROP TABLE termx.seg_run;")
