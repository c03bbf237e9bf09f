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

REVOKE EXECUTE ON FUNCTION termx.server_create(text, text, text, text, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION termx.server_probe(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION termx.server_drop(text) FROM PUBLIC;
