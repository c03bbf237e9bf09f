"""Storage servers (issue 30, docs/scale-out.md "When one PostgreSQL server is not enough"): the registry
termx.server (name, the URL without its password, when added), termx.shard.server (where a shard's rows live;
NULL = this database), the view termx.storage_status (the bytes of termx's relations in this database, read by a
coordinator through postgres_fdw) and sql/functions/servers.sql (termx.server_create, server_probe, server_drop; and
for foreign shards shard_table_create, shard_table_drop, server_class_table). shards.sql is re-applied: its probes of
a shard's classes no longer write COLLATE "C" on the key (rep is "C" already) and the exact path's prefix class is
looked up in two plain statements, so postgres_fdw ships each whole to a foreign shard's server.

Credentials are never in these tables: a server's user and password live in the postgres_fdw user mapping that
server_create makes. Downgrade drops every registered server's postgres_fdw objects, then the tables.

Revision ID: 0027_servers
Revises: 0026_store_min_freq
"""

from alembic import op

from termx.storage.sqlfiles import apply_function_file

revision = "0027_servers"
down_revision = "0026_store_min_freq"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE termx.server (
        name text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9_-]{0,39}$'),
        url text NOT NULL,
        added_at timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE termx.server IS 'Storage servers of this coordinator; credentials are in user mappings only.';
    COMMENT ON COLUMN termx.server.url IS 'The URL it was added with, without its password.';
    ALTER TABLE termx.shard ADD COLUMN server text REFERENCES termx.server (name);
    COMMENT ON COLUMN termx.shard.server IS 'The storage server holding the shard''s rows; NULL: this database.';
    CREATE VIEW termx.storage_status AS
        SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
        FROM pg_class c WHERE c.relnamespace = 'termx'::regnamespace AND c.relkind IN ('r', 'm');
    COMMENT ON VIEW termx.storage_status IS 'Bytes of termx''s tables here, with indexes and TOAST.';
    """)
    apply_function_file(op.get_bind(), "servers")
    apply_function_file(op.get_bind(), "shards")  # probes postgres_fdw ships whole (docs/scale-out.md)


def downgrade() -> None:
    apply_function_file(op.get_bind(), "replaced/shards_before_0027_servers")
    op.execute("""
    SELECT termx.server_drop(name) FROM termx.server;
    DROP FUNCTION termx.server_class_table(text, integer);
    DROP FUNCTION termx.shard_table_drop(integer);
    DROP FUNCTION termx.shard_table_create(integer);
    DROP FUNCTION termx.server_drop(text);
    DROP FUNCTION termx.server_probe(text);
    DROP FUNCTION termx.server_create(text, text, text, text, text, text);
    DROP FUNCTION termx._server_name(text);
    DROP VIEW termx.storage_status;
    ALTER TABLE termx.shard DROP COLUMN server;
    DROP TABLE termx.server;
    """)
