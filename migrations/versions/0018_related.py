"""related from an inverted table: each shard's related classes (sketched term candidates, with their documents)
and, per document, the related classes whose sketch holds it; termx.related (sql/functions/related.sql) reads
them on corpora of any number of shards. The sketches' `first` column (the old GIN probe) goes, and so do
sketches stored before (they have no related classes; `termx sketch` makes both again).

Revision ID: 0018_related
Revises: 0017_sql_shards
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0018_related"
down_revision = "0017_sql_shards"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE termx.related_class (
        shard_id    integer NOT NULL REFERENCES termx.sketch_set(shard_id) ON DELETE CASCADE,
        n           integer NOT NULL,       -- position among the shard's related classes
        i           integer NOT NULL,       -- the class's interval <i,j>
        j           integer NOT NULL,
        df          integer NOT NULL,       -- df_1 in the shard
        tau         bigint NOT NULL,        -- largest hash of a full sketch; 2^63 - 1 when it is the whole set
        term        text NOT NULL,          -- the term candidate's surface form
        docs        integer[] NOT NULL,     -- its documents (global numbers, ascending), for exact jdf
        PRIMARY KEY (shard_id, n)
    );
    CREATE INDEX related_class_term_idx ON termx.related_class (shard_id, term);
    CREATE INDEX related_class_interval_idx ON termx.related_class (shard_id, i, j);
    COMMENT ON TABLE termx.related_class IS
        'Classes termx related ranks: sketched classes that are term candidates (termx sketch writes them).';
    CREATE TABLE termx.related_doc (
        shard_id    integer NOT NULL REFERENCES termx.sketch_set(shard_id) ON DELETE CASCADE,
        doc         integer NOT NULL,       -- global document number
        classes     integer[] NOT NULL,     -- n of the related classes whose sketch holds the document's hash
        PRIMARY KEY (shard_id, doc)
    );
    COMMENT ON TABLE termx.related_doc IS
        'Inverted table of the related classes'' sketches: document -> classes (termx.related''s candidates).';
    -- sketches stored before this revision have no related classes: they go, and termx sketch makes both again
    DELETE FROM termx.sketch_set;
    DROP INDEX termx.sketch_first_idx;
    ALTER TABLE termx.sketch DROP COLUMN first;
    """)
    apply_function_file(op.get_bind(), "related")


def downgrade() -> None:
    op.execute("""
    DROP FUNCTION termx.related(text, text, integer, text, integer);
    DROP FUNCTION termx._related_docs(text, integer, text);
    DROP FUNCTION termx._related_shard_docs(text, integer, integer, integer, text);
    DROP TABLE termx.related_doc;
    DROP TABLE termx.related_class;
    ALTER TABLE termx.sketch ADD COLUMN first bigint[] NOT NULL DEFAULT '{}';
    CREATE INDEX sketch_first_idx ON termx.sketch USING gin (first);
    """)
