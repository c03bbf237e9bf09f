"""The candidate filter of the term rankings as one SQL function, termx.term_candidates (sql/functions/terms.sql),
which every sql/terms_*.sql extends with its score.

Revision ID: 0009_terms_candidates
Revises: 0008_segment_tbl
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0009_terms_candidates"
down_revision = "0008_segment_tbl"
branch_labels = None
depends_on = "0005_terms"  # terms.sql reads termx.candidate; an SQL function's body is checked at CREATE time


def upgrade() -> None:
    # The row type of termx.term_candidates: a composite type carries the C collation of candidate.term through
    # the function (a RETURNS TABLE column would come out in the database's default collation, and the rankings'
    # tie-break on term would depend on the server's locale).
    op.execute("""
    CREATE TYPE termx.term_candidate AS (
        shard_id    integer,
        i           integer,
        j           integer,
        term        text COLLATE "C",
        len         integer,
        freq        integer,
        df          integer[],
        p0          double precision,
        documents   integer,            -- D of the corpus
        tokens      bigint              -- N of the corpus
    );
    """)
    apply_function_file(op.get_bind(), "terms")


def downgrade() -> None:
    op.execute("""
    DROP FUNCTION termx.term_candidates(text, integer, integer, integer);
    DROP TYPE termx.term_candidate;
    """)
