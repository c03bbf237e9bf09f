"""Look-ups in plain SQL: termx.stats, termx.find_class, termx.occurrences, termx.concordance and helpers.

The functions live in sql/functions/measures.sql (adaptation, its Poisson prediction, RIDF) and
sql/functions/lookup.sql (the class of a pattern by an index probe on termx.class (rep, sil) or, failing that, by
binary searches over the stored suffix array); see sql/functions/README.md for how those files are managed. This
migration adds the indexes the exact path needs and applies both files.

Revision ID: 0004_lookup
Revises: 0001_core
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0004_lookup"
down_revision = "0001_core"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # token → id, position → document and the longest document, for the exact path (small additive indexes on
    # core tables)
    op.execute("""
    CREATE INDEX vocab_token_idx ON termx.vocab (corpus_id, token COLLATE "C");
    CREATE INDEX document_start_idx ON termx.document (corpus_id, start);
    CREATE INDEX document_length_idx ON termx.document (corpus_id, length);
    """)
    apply_function_file(op.get_bind(), "measures")
    apply_function_file(op.get_bind(), "lookup")


def downgrade() -> None:
    op.execute("""
    DROP FUNCTION termx.concordance(text, text, integer, integer, integer);
    DROP FUNCTION termx.occurrences(text, text, integer);
    DROP FUNCTION termx.stats(text, text[]);
    DROP FUNCTION termx.stats(text, text);
    DROP FUNCTION termx.find_class(text, text);
    DROP FUNCTION termx._find(text, text);
    DROP FUNCTION termx._common_prefix(text, text, text);
    DROP FUNCTION termx._pos(integer, bigint, integer, bigint, bigint, bytea);
    DROP FUNCTION termx._shared(integer, bigint, integer, bigint, bytea);
    DROP FUNCTION termx._compare(integer, bigint, integer, bigint, bytea, bigint[]);
    DROP FUNCTION termx._pattern_prefix(text, text, text[], integer);
    DROP FUNCTION termx._text(integer, text, integer, bigint, integer, bigint, bigint, integer, boolean);
    DROP FUNCTION termx._utf8(bytea, boolean);
    DROP FUNCTION termx._bytes(integer, text, bigint, bigint, bigint);
    DROP FUNCTION termx._int(bytea, integer, integer);
    DROP FUNCTION termx._corpus_info(text);
    DROP FUNCTION termx.ridf(bigint, bigint, bigint);
    DROP FUNCTION termx.poisson_adaptation(bigint, bigint);
    DROP FUNCTION termx.adaptation(integer[]);
    DROP FUNCTION termx.split_words(text);
    DROP INDEX termx.document_length_idx;
    DROP INDEX termx.document_start_idx;
    DROP INDEX termx.vocab_token_idx;
    """)
