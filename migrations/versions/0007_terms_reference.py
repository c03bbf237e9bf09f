"""Term extraction against a reference corpus: each candidate's frequency in another corpus (specificity).

Revision ID: 0007_terms_reference
Revises: 0005_terms
"""

from alembic import op

revision = "0007_terms_reference"
down_revision = "0005_terms"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE termx.reference_set (
        shard_id        integer NOT NULL REFERENCES termx.candidate_set(shard_id) ON DELETE CASCADE,
        ref_corpus_id   integer NOT NULL REFERENCES termx.corpus(id) ON DELETE CASCADE,
        created_at      timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (shard_id, ref_corpus_id)
    );
    COMMENT ON TABLE termx.reference_set IS
        'Marks a shard whose candidates were counted in a reference corpus (built on first use of --reference).';

    CREATE TABLE termx.candidate_reference (
        shard_id        integer NOT NULL,
        ref_corpus_id   integer NOT NULL,
        i               integer NOT NULL,   -- the candidate (termx.candidate) these counts belong to
        j               integer NOT NULL,
        ref_freq        integer NOT NULL,   -- occurrences of the candidate's term in the reference corpus
        ref_df          integer NOT NULL,   -- reference documents that contain it
        PRIMARY KEY (shard_id, ref_corpus_id, i, j),
        FOREIGN KEY (shard_id, ref_corpus_id) REFERENCES termx.reference_set (shard_id, ref_corpus_id)
            ON DELETE CASCADE
    );
    COMMENT ON TABLE termx.candidate_reference IS
        'Each term candidate''s freq and df in a reference corpus, for sql/terms_specificity.sql.';
    """)


def downgrade() -> None:
    op.execute("""
    DROP TABLE termx.candidate_reference;
    DROP TABLE termx.reference_set;
    """)
