"""Core index schema: corpora, shards, documents, vocabulary, classes (partitioned by shard), index arrays.

Revision ID: 0001_core
Revises:
"""

from alembic import op

revision = "0001_core"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE termx.corpus (
        id          serial PRIMARY KEY,
        name        text NOT NULL UNIQUE,
        unit        text NOT NULL CHECK (unit IN ('byte', 'char', 'word')),
        max_k       integer NOT NULL CHECK (max_k >= 1),
        tokens      bigint NOT NULL,        -- text tokens, separators not counted
        documents   integer NOT NULL,
        classes     bigint NOT NULL,        -- non-trivial classes stored, summed over shards
        rep_cap     integer NOT NULL,       -- longest members are stored truncated to this many tokens
        params      jsonb NOT NULL DEFAULT '{}',
        timings     jsonb NOT NULL DEFAULT '{}',
        created_at  timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE termx.corpus IS 'One row per indexed corpus; its statistics are the sums over its shards.';

    CREATE TABLE termx.shard (
        id          serial PRIMARY KEY,
        corpus_id   integer NOT NULL REFERENCES termx.corpus(id) ON DELETE CASCADE,
        shard_no    integer NOT NULL,
        tokens      bigint NOT NULL,        -- text tokens of this shard
        documents   integer NOT NULL,
        first_doc   integer NOT NULL,       -- doc_no of the shard's first document
        classes     bigint NOT NULL,
        UNIQUE (corpus_id, shard_no)
    );
    COMMENT ON TABLE termx.shard IS 'An independently built part of a corpus (a disjoint set of documents).';

    CREATE TABLE termx.document (
        corpus_id   integer NOT NULL REFERENCES termx.corpus(id) ON DELETE CASCADE,
        doc_no      integer NOT NULL,
        shard_id    integer NOT NULL REFERENCES termx.shard(id) ON DELETE CASCADE,
        name        text NOT NULL,
        title       text,
        start       bigint NOT NULL,        -- offset of the first token in the shard's token array
        length      integer NOT NULL,       -- tokens
        text        text NOT NULL,
        PRIMARY KEY (corpus_id, doc_no)
    );

    CREATE TABLE termx.vocab (
        corpus_id   integer NOT NULL REFERENCES termx.corpus(id) ON DELETE CASCADE,
        token_id    integer NOT NULL,       -- 0 is the document separator and never stored
        token       text NOT NULL,
        PRIMARY KEY (corpus_id, token_id)
    );
    COMMENT ON TABLE termx.vocab IS 'Token ids of char and word corpora (byte corpora use the byte values).';

    CREATE TABLE termx.class (
        shard_id    integer NOT NULL,
        i           integer NOT NULL,       -- first rank of the interval <i,j> in the shard's suffix array
        j           integer NOT NULL,
        lbl         integer NOT NULL,       -- longest bounding LCP: members have length in (lbl, sil]
        sil         integer NOT NULL,       -- shortest interior LCP
        freq        integer NOT NULL,       -- = j - i + 1 = cdf_1
        df          integer[] NOT NULL,     -- df[k] = documents with at least k occurrences, k = 1..max_k
        rep         text COLLATE "C" NOT NULL  -- the longest member (first sil tokens), truncated at rep_cap
    ) PARTITION BY LIST (shard_id);
    COMMENT ON TABLE termx.class IS
        'Non-trivial classes (i < j) of every shard; one partition per shard, created and indexed by the builder.';

    CREATE TABLE termx.index_array (
        shard_id    integer NOT NULL REFERENCES termx.shard(id) ON DELETE CASCADE,
        name        text NOT NULL,          -- tokens | sa | doc_start
        dtype       text NOT NULL,          -- NumPy dtype string, little-endian
        length      bigint NOT NULL,        -- elements in the whole array
        chunk       integer NOT NULL,
        data        bytea NOT NULL,
        PRIMARY KEY (shard_id, name, chunk)
    );
    ALTER TABLE termx.index_array ALTER COLUMN data SET STORAGE EXTERNAL;
    COMMENT ON TABLE termx.index_array IS 'The arrays look-ups need (tokens, suffix array, document starts), chunked.';
    """)


def downgrade() -> None:
    op.execute("""
    DROP TABLE termx.index_array;
    DROP TABLE termx.class;
    DROP TABLE termx.vocab;
    DROP TABLE termx.document;
    DROP TABLE termx.shard;
    DROP TABLE termx.corpus;
    """)
