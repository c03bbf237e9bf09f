"""Joint document frequency: bottom-k MinHash sketches per shard and class, and the SQL functions termx.jdf and
termx.related (sql/functions/jdf.sql).

Revision ID: 0013_jdf
Revises: 0012_studies
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0013_jdf"
down_revision = "0012_studies"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE termx.sketch_set (
        shard_id    integer PRIMARY KEY REFERENCES termx.shard(id) ON DELETE CASCADE,
        k           integer NOT NULL CHECK (k >= 1),
        threshold   integer NOT NULL CHECK (threshold >= 1),   -- classes with df_1 >= threshold are sketched
        seed        bigint NOT NULL,                           -- of the splitmix64 document hash
        classes     integer NOT NULL,                          -- sketched classes
        doc_hash    bigint[] NOT NULL,                         -- doc_hash[d + 1] = hash of the shard's document d
        seconds     double precision NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE termx.sketch_set IS 'How the bottom-k sketches of a shard were made (termx sketch).';

    CREATE TABLE termx.sketch (
        shard_id    integer NOT NULL REFERENCES termx.sketch_set(shard_id) ON DELETE CASCADE,
        cls         integer NOT NULL,       -- class number in walk order (j ascending, then i descending)
        i           integer NOT NULL,       -- the class's interval <i,j>, as in termx.class
        j           integer NOT NULL,
        sil         integer NOT NULL,       -- its SIL: the longest member is the first sil tokens of rank i
        df          integer NOT NULL,       -- df_1 of the class in this shard
        first       bigint[] NOT NULL,      -- the 8 smallest hashes (GIN-indexed: termx.related's candidates)
        hashes      bytea NOT NULL,         -- the min(k, df) smallest document hashes, ascending, 8 bytes each,
                                            -- little-endian (raw bytes load ~6x faster than bigint[])
        PRIMARY KEY (shard_id, i, j)
    ) PARTITION BY LIST (shard_id);
    ALTER TABLE termx.sketch ALTER COLUMN hashes SET STORAGE EXTERNAL;  -- random bytes do not compress
    CREATE INDEX sketch_first_idx ON termx.sketch USING gin (first);
    COMMENT ON TABLE termx.sketch IS
        'Bottom-k MinHash sketch of the document set of every class with df_1 >= threshold; one partition per '
        'shard (termx.sketch_<shard id>), loaded and indexed by termx sketch, then attached.';
    """)
    apply_function_file(op.get_bind(), "jdf")


def downgrade() -> None:
    op.execute("""
    DROP FUNCTION IF EXISTS termx.related(text, text, integer, text, integer);  -- 0018_related's since then
    DROP FUNCTION termx.jdf(text, text, text);
    DROP FUNCTION termx._overlaps(text, text, integer);
    DROP FUNCTION termx._jdf_score(text, double precision, double precision, double precision, double precision);
    DROP FUNCTION termx._sketch_hashes(bytea);
    DROP FUNCTION termx._jdf_docs(text, text);
    DROP FUNCTION termx._interval_docs(integer, integer, integer, bigint[]);
    DROP FUNCTION termx._jdf_measures(double precision, double precision, double precision, double precision);
    DROP FUNCTION termx._erfc(double precision);
    DROP TABLE termx.sketch;
    DROP TABLE termx.sketch_set;
    """)
