"""Trained word-breaking models stored with their corpus: termx.segment_model (one row per corpus, scorer and
settings) and its arrays in termx.segment_model_array. Both cascade from termx.corpus, so rebuilding or dropping
a corpus removes its models.

Revision ID: 0011_segment_models
Revises: 0010_storage
"""

from alembic import op

revision = "0011_segment_models"
down_revision = "0010_storage"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE termx.segment_model (
        id          serial PRIMARY KEY,
        corpus_id   integer NOT NULL REFERENCES termx.corpus(id) ON DELETE CASCADE,
        scorer      text NOT NULL,
        key         text NOT NULL,           -- the settings it was trained with, as canonical JSON
        meta        jsonb NOT NULL,          -- format, unit, resolved parameters, scalars of the model
        nodes       bigint NOT NULL,         -- stored n-grams
        bytes       bigint NOT NULL,         -- size of its arrays
        seconds     real NOT NULL,           -- training time
        created_at  timestamptz NOT NULL DEFAULT now(),
        UNIQUE (corpus_id, scorer, key)
    );
    CREATE TABLE termx.segment_model_array (
        model_id    integer NOT NULL REFERENCES termx.segment_model(id) ON DELETE CASCADE,
        name        text NOT NULL,
        dtype       text NOT NULL,
        length      bigint NOT NULL,
        chunk       integer NOT NULL,
        data        bytea NOT NULL,
        PRIMARY KEY (model_id, name, chunk)
    );
    ALTER TABLE termx.segment_model_array ALTER COLUMN data SET STORAGE EXTERNAL;  -- hash tables do not compress
    """)


def downgrade() -> None:
    op.execute("DROP TABLE termx.segment_model_array; DROP TABLE termx.segment_model;")
