"""Term extraction: per-shard candidate sets (left-maximal, edge-filtered class members) and saved term lists.

Revision ID: 0005_terms
Revises: 0001_core
"""

from alembic import op

revision = "0005_terms"
down_revision = "0001_core"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE termx.candidate_set (
        shard_id    integer PRIMARY KEY REFERENCES termx.shard(id) ON DELETE CASCADE,
        rules       integer NOT NULL,       -- version of the candidate rules (termx.terms.CANDIDATE_RULES)
        spaced      boolean NOT NULL,       -- byte/char text with white space: word-boundary rule applied
        candidates  bigint NOT NULL,
        params      jsonb NOT NULL DEFAULT '{}',
        created_at  timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE termx.candidate_set IS
        'Marks a shard whose term candidates were computed (built on first use by termx terms).';

    CREATE TABLE termx.candidate (
        shard_id    integer NOT NULL REFERENCES termx.candidate_set(shard_id) ON DELETE CASCADE,
        i           integer NOT NULL,       -- the class <i,j> in termx.class whose longest member this is
        j           integer NOT NULL,
        len         integer NOT NULL,       -- tokens (= the class's sil)
        freq        integer NOT NULL,       -- copied from the class row
        df          integer[] NOT NULL,     -- df_1..df_K, copied from the class row
        p0          double precision NOT NULL,  -- Pr(k>=2 | k>=1) under the length-aware Poisson null
        term        text COLLATE "C" NOT NULL,  -- surface form (word units: original spacing between tokens)
        PRIMARY KEY (shard_id, i, j)
    );
    COMMENT ON TABLE termx.candidate IS
        'Term candidates: longest members of left-maximal classes that pass the edge rules; see docs/terms.md.';

    CREATE TABLE termx.term_list (
        id          serial PRIMARY KEY,
        name        text NOT NULL UNIQUE,
        corpus_id   integer NOT NULL REFERENCES termx.corpus(id) ON DELETE CASCADE,
        params      jsonb NOT NULL DEFAULT '{}',  -- rank, top, min_df, min_len, max_len
        created_at  timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE termx.term_list IS 'A ranked term list saved by termx terms --save.';

    CREATE TABLE termx.term (
        list_id     integer NOT NULL REFERENCES termx.term_list(id) ON DELETE CASCADE,
        rank        integer NOT NULL,       -- 1 = best
        term        text COLLATE "C" NOT NULL,
        score       double precision NOT NULL,
        freq        integer NOT NULL,
        df          integer[] NOT NULL,
        PRIMARY KEY (list_id, rank)
    );
    CREATE INDEX term_term_idx ON termx.term (term);
    COMMENT ON TABLE termx.term IS 'The terms of a saved list, best first.';
    """)


def downgrade() -> None:
    op.execute("""
    DROP TABLE termx.term;
    DROP TABLE termx.term_list;
    DROP TABLE termx.candidate;
    DROP TABLE termx.candidate_set;
    """)
