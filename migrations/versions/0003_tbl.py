"""Brill TBL models: one row per learned rule list, its rules in order with scores and readable text.

Revision ID: 0003_tbl
Revises: 0001_core
"""

from alembic import op

revision = "0003_tbl"
down_revision = "0001_core"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE termx.tbl_model (
        id               serial PRIMARY KEY,
        name             text NOT NULL UNIQUE,
        params           jsonb NOT NULL DEFAULT '{}',  -- templates, n_tags, tag_names, token_kind, min_score
        n_positions      bigint NOT NULL,              -- training tags
        accuracy_before  double precision,             -- training accuracy of the initial tags
        accuracy_after   double precision,             -- ... after applying every rule
        n_rules          integer NOT NULL,
        created_at       timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE termx.tbl_model IS 'A transformation-based learning model: an ordered list of rules (Brill 1995).';

    CREATE TABLE termx.tbl_rule (
        model_id   integer NOT NULL REFERENCES termx.tbl_model(id) ON DELETE CASCADE,
        ord        integer NOT NULL,            -- rules run in this order, 0 first
        template   text NOT NULL,               -- template name, defined in tbl_model.params
        from_tag   integer NOT NULL,
        to_tag     integer NOT NULL,
        args       bigint[] NOT NULL,           -- one value per template condition (tag or token id)
        score      integer NOT NULL,            -- good - bad on the training data when learned
        good       integer NOT NULL,            -- errors it fixed
        bad        integer NOT NULL,            -- correct tags it broke
        readable   text NOT NULL,               -- e.g. '· → | if previous token is ''e'''
        PRIMARY KEY (model_id, ord)
    );
    COMMENT ON TABLE termx.tbl_rule IS 'The rules of a TBL model, applied in ord order, each to all positions at once.';
    """)


def downgrade() -> None:
    op.execute("DROP TABLE termx.tbl_rule; DROP TABLE termx.tbl_model;")
