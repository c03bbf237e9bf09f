"""Cross-validation bins of a corpus (termx crossval): strings binned by (freq, df_1) in half 1 of the
collection, with their total freq in half 2 (freq* = freq2_sum / n). Deleted with the corpus.

Revision ID: 0012_studies
Revises: 0011_segment_models
"""

from alembic import op

revision = "0012_studies"
down_revision = "0011_segment_models"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE termx.crossval_run (
        corpus_id     integer PRIMARY KEY REFERENCES termx.corpus(id) ON DELETE CASCADE,
        half1_docs    integer NOT NULL,   -- documents 0 .. half1_docs-1 (input order) form half 1
        half1_tokens  bigint NOT NULL,
        tokens        bigint NOT NULL,
        created_at    timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE termx.crossval_run IS
        'The split of a corpus into two halves by document for cross-validation (termx crossval).';

    CREATE TABLE termx.crossval_bin (
        corpus_id   integer NOT NULL REFERENCES termx.crossval_run(corpus_id) ON DELETE CASCADE,
        freq        bigint NOT NULL,            -- freq in half 1
        df          integer NOT NULL,           -- df_1 in half 1
        n           bigint NOT NULL,            -- strings in the bin (class sizes summed)
        classes     bigint NOT NULL,            -- classes in the bin (trivial ones included)
        freq2_sum   bigint NOT NULL,            -- sum over the bin's strings of their freq in half 2
        freq_star   double precision NOT NULL,  -- freq2_sum / n: the held-out (deleted interpolation) estimate
        PRIMARY KEY (corpus_id, freq, df)
    );
    COMMENT ON TABLE termx.crossval_bin IS
        'Strings binned by (freq, df_1) in half 1, with freq* = mean freq in half 2; see docs/adaptation.md.';
    """)


def downgrade() -> None:
    op.execute("""
    DROP TABLE termx.crossval_bin;
    DROP TABLE termx.crossval_run;
    """)
