"""Builds beside live corpora: a corpus row may be nameless (a build being staged, or a retired version being
purged), TBL models trained for a corpus go with it, every class partition has an (i, j) index again, and
sql/functions/lookup.sql is re-applied (termx.stats(corpus, text[]) gives a row of NULLs for a NULL element).

Revision ID: 0010_storage
Revises: 0009_terms_candidates
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0010_storage"
down_revision = "0009_terms_candidates"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    ALTER TABLE termx.corpus ALTER COLUMN name DROP NOT NULL;
    COMMENT ON COLUMN termx.corpus.name IS
        'NULL while a build is staged or a replaced/dropped version is being purged; such rows are never read.';

    ALTER TABLE termx.tbl_model ADD COLUMN corpus_id integer REFERENCES termx.corpus(id) ON DELETE CASCADE;
    COMMENT ON COLUMN termx.tbl_model.corpus_id IS 'The corpus a model was trained for (dropped with it), if any.';
    CREATE INDEX tbl_model_corpus_idx ON termx.tbl_model (corpus_id);
    -- the models termx whitespace trained so far are named whitespace-<run id>-<scorer>
    UPDATE termx.tbl_model m SET corpus_id = r.corpus_id
    FROM termx.seg_run r WHERE m.name LIKE 'whitespace-' || r.id || '-%';

    DO $do$
    DECLARE part name;
    BEGIN
        FOR part IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                    WHERE i.inhparent = 'termx.class'::regclass LOOP
            EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON termx.%I (i, j)', part || '_i_j_idx', part);
        END LOOP;
    END
    $do$;
    """)
    apply_function_file(op.get_bind(), "lookup")


def downgrade() -> None:
    op.execute("""
    DO $do$
    DECLARE part name;
    BEGIN
        FOR part IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                    WHERE i.inhparent = 'termx.class'::regclass LOOP
            EXECUTE format('DROP INDEX IF EXISTS termx.%I', part || '_i_j_idx');
        END LOOP;
        -- nameless rows cannot survive NOT NULL: drop their class tables and rows
        FOR part IN SELECT 'class_' || s.id FROM termx.shard s JOIN termx.corpus c ON c.id = s.corpus_id
                    WHERE c.name IS NULL LOOP
            EXECUTE format('DROP TABLE IF EXISTS termx.%I', part);
        END LOOP;
    END
    $do$;
    DELETE FROM termx.corpus WHERE name IS NULL;
    ALTER TABLE termx.corpus ALTER COLUMN name SET NOT NULL;
    COMMENT ON COLUMN termx.corpus.name IS NULL;

    DROP INDEX termx.tbl_model_corpus_idx;
    ALTER TABLE termx.tbl_model DROP COLUMN corpus_id;
    """)
    # lookup.sql can only be re-applied as it is (sql/functions/README.md); its functions stay for 0004_lookup
