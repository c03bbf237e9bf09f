-- servers: the storage servers of a coordinator (docs/scale-out.md, "When one PostgreSQL server is not enough").
-- A registered server NAME is the postgres_fdw server "termx_NAME" with the current user's mapping (the only place
-- its credentials are kept) and a foreign table termx."server_status_NAME" over the storage server's
-- termx.storage_status view. NAME is checked against the pattern of termx.server's CHECK here too, and every
-- identifier and option is quoted by format() (%I, %L): nothing is spliced from the caller's text.

CREATE OR REPLACE FUNCTION termx._server_name(name text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF name IS NULL OR name !~ '^[a-z][a-z0-9_-]{0,39}$' THEN
        RAISE EXCEPTION 'not a server name: %', name USING ERRCODE = 'invalid_name';
    END IF;
    RETURN name;
END $$;
COMMENT ON FUNCTION termx._server_name(text) IS 'The server name, or an error when it does not match the pattern.';

CREATE OR REPLACE FUNCTION termx.server_create(name text, host text, port text, dbname text, remote_user text,
                                               password text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    fdw_server text := 'termx_' || termx._server_name(name);
BEGIN
    EXECUTE format('CREATE SERVER %I FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host %L, port %L, dbname %L, '
                   'connect_timeout %L, fetch_size %L)', fdw_server, host, port, dbname, '10', '10000');
    IF password IS NULL THEN
        EXECUTE format('CREATE USER MAPPING FOR CURRENT_USER SERVER %I OPTIONS (user %L)', fdw_server, remote_user);
    ELSE
        EXECUTE format('CREATE USER MAPPING FOR CURRENT_USER SERVER %I OPTIONS (user %L, password %L)', fdw_server,
                       remote_user, password);
    END IF;
    EXECUTE format('CREATE FOREIGN TABLE termx.%I (bytes bigint) SERVER %I '
                   'OPTIONS (schema_name %L, table_name %L)', 'server_status_' || name, fdw_server, 'termx',
                   'storage_status');
END $$;
COMMENT ON FUNCTION termx.server_create(text, text, text, text, text, text) IS
    'Register storage server NAME with postgres_fdw: server termx_NAME, the current user''s mapping, its status table.';

CREATE OR REPLACE FUNCTION termx.server_probe(name text, OUT bytes bigint, OUT error text)
LANGUAGE plpgsql AS $$
DECLARE
    detail text;
BEGIN
    EXECUTE format('SELECT bytes FROM termx.%I', 'server_status_' || termx._server_name(name)) INTO bytes;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    bytes := NULL;
    error := SQLERRM || CASE WHEN coalesce(detail, '') = '' THEN '' ELSE ': ' || detail END;
END $$;
COMMENT ON FUNCTION termx.server_probe(text) IS
    'The bytes of termx tables on storage server NAME, read through postgres_fdw; NULL and the error if unreachable.';

CREATE OR REPLACE FUNCTION termx.server_drop(name text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('DROP SERVER IF EXISTS %I CASCADE', 'termx_' || termx._server_name(name));
END $$;
COMMENT ON FUNCTION termx.server_drop(text) IS
    'Drop postgres_fdw server termx_NAME with its user mappings and foreign tables.';

-- Foreign shards: a shard whose class rows live on a storage server. There (the storage database is at the same
-- schema head) termx.shard_table_create makes termx_shards.class_<id>, shaped like termx.class; on the
-- coordinator termx.server_class_table imports it as the foreign table termx.class_<id>, which the build's swap
-- attaches as the shard's partition of termx.class. The schema termx_shards keeps these tables away from the
-- storage database's own garbage collection, which drops termx.class_<id> tables of shards it does not know.

CREATE OR REPLACE FUNCTION termx.shard_table_create(shard integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    CREATE SCHEMA IF NOT EXISTS termx_shards;
    EXECUTE format('CREATE TABLE termx_shards.%I (LIKE termx.class INCLUDING ALL, CHECK (shard_id = %s))',
                   'class_' || shard, shard);
END $$;
COMMENT ON FUNCTION termx.shard_table_create(integer) IS
    'On a storage server: the table termx_shards.class_SHARD for a coordinator''s foreign shard.';

CREATE OR REPLACE FUNCTION termx.shard_table_drop(shard integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF to_regnamespace('termx_shards') IS NOT NULL THEN
        EXECUTE format('DROP TABLE IF EXISTS termx_shards.%I', 'class_' || shard);
    END IF;
END $$;
COMMENT ON FUNCTION termx.shard_table_drop(integer) IS
    'On a storage server: drop a coordinator''s foreign shard table termx_shards.class_SHARD.';

CREATE OR REPLACE FUNCTION termx.server_class_table(name text, shard integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    columns text;
BEGIN
    -- termx.class's columns as they are here (the storage server's table is LIKE its own termx.class, at the same
    -- schema head); not IMPORT FOREIGN SCHEMA: postgres_fdw's remote snapshot would miss tables created after it
    SELECT string_agg(format('%I %s%s%s', a.attname, format_type(a.atttypid, a.atttypmod),
                             CASE WHEN a.attcollation IN (0, 100) THEN '' ELSE ' COLLATE ' || a.attcollation::regcollation END,
                             CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END), ', ' ORDER BY a.attnum)
      INTO columns
      FROM pg_attribute a WHERE a.attrelid = 'termx.class'::regclass AND a.attnum > 0 AND NOT a.attisdropped;
    EXECUTE format('CREATE FOREIGN TABLE termx.%I (%s, CHECK (shard_id = %s)) SERVER %I OPTIONS (schema_name %L, '
                   'table_name %L)', 'class_' || shard, columns, shard, 'termx_' || termx._server_name(name),
                   'termx_shards', 'class_' || shard);
END $$;
COMMENT ON FUNCTION termx.server_class_table(text, integer) IS
    'On the coordinator: the foreign table termx.class_SHARD over storage server NAME''s termx_shards.class_SHARD.';

REVOKE EXECUTE ON FUNCTION termx.server_create(text, text, text, text, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION termx.server_probe(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION termx.server_drop(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION termx.shard_table_create(integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION termx.shard_table_drop(integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION termx.server_class_table(text, integer) FROM PUBLIC;
