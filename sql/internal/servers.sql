-- servers: the statements of termx/storage/servers.py (the registry of storage servers, their postgres_fdw
-- objects through sql/functions/servers.sql), run by termx.storage.statements.run_internal("servers.<name>", ...).

-- name: fdw_available
SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'postgres_fdw')

-- name: create_fdw
CREATE EXTENSION IF NOT EXISTS postgres_fdw

-- name: server_names
SELECT name FROM termx.server ORDER BY name

-- name: insert_server
INSERT INTO termx.server (name, url) VALUES (:name, :url)

-- name: server_create
-- the password is a bound parameter: it reaches the server apart from the statement's text
SELECT termx.server_create(:name, :host, :port, :dbname, :remote_user, :password)

-- name: server_probe
SELECT bytes, error FROM termx.server_probe(:name)

-- name: servers
-- every registered server with the shards it holds (of named corpora) and the corpora they belong to
SELECT s.name, s.url, s.added_at,
       count(sh.id) FILTER (WHERE c.name IS NOT NULL) AS shards,
       array_remove(array_agg(DISTINCT c.name), NULL) AS corpora
 FROM termx.server s LEFT JOIN termx.shard sh ON sh.server = s.name LEFT JOIN termx.corpus c ON c.id = sh.corpus_id
 WHERE CAST(:n AS text) IS NULL OR s.name = :n
 GROUP BY s.name, s.url, s.added_at ORDER BY s.name

-- name: lock_server
-- held until the removal commits: a build cannot record a shard on the server meanwhile
SELECT name FROM termx.server WHERE name = :name FOR UPDATE

-- name: shards_on_server
-- the shards on a server: by corpus name (NULL: a corpus being built or dropped)
SELECT c.name, count(*) FROM termx.shard sh JOIN termx.corpus c ON c.id = sh.corpus_id
 WHERE sh.server = :name GROUP BY c.name ORDER BY c.name NULLS LAST

-- name: server_drop
SELECT termx.server_drop(:name)

-- name: delete_server
DELETE FROM termx.server WHERE name = :name

-- name: server_address
-- the options of a server's postgres_fdw server and of the current user's mapping (visible to that user)
SELECT s.srvoptions, u.umoptions FROM pg_foreign_server s
 LEFT JOIN pg_user_mappings u ON u.srvid = s.oid AND u.usename = current_user WHERE s.srvname = 'termx_' || :name

-- name: shard_table_create
SELECT termx.shard_table_create(:shard)

-- name: shard_table_drop
SELECT termx.shard_table_drop(:shard)

-- name: server_class_table
SELECT termx.server_class_table(:name, :shard)

-- name: set_shard_server
UPDATE termx.shard SET server = :name WHERE id = :shard

-- name: foreign_shards
-- the shards of a corpus whose classes live on a storage server
SELECT id, server FROM termx.shard WHERE corpus_id = :corpus AND server IS NOT NULL ORDER BY id

-- name: shard_numbers_on_server
-- the shards of named corpora on a server, by corpus and shard number (what an unreachable server's error names)
SELECT c.name, sh.shard_no FROM termx.shard sh JOIN termx.corpus c ON c.id = sh.corpus_id
 WHERE sh.server = :name AND c.name IS NOT NULL ORDER BY c.name, sh.shard_no

-- name: corpora_on_server
-- the named corpora with shards on a server (what `termx servers remove --force` drops)
SELECT DISTINCT c.name FROM termx.shard sh JOIN termx.corpus c ON c.id = sh.corpus_id
 WHERE sh.server = :name AND c.name IS NOT NULL ORDER BY c.name

-- name: forget_shards
-- a server gone for good: its shards' tables there can no longer be dropped, so their purge skips them
UPDATE termx.shard SET server = NULL WHERE server = :name

-- name: reader_settings
-- the read-only role's name and password for the DO blocks below (a DO block takes no parameters), until the end of
-- the transaction; the password is a bound parameter
SELECT set_config('termx.reader_role', :role, true), set_config('termx.reader_password', :password, true)

-- name: remote_reader_role
-- on a storage server: the name of the login role the coordinator's termx_reader reads shards as (one per storage
-- database; role names are the cluster's)
SELECT 'termx_reads_' || left(md5(current_database()), 16)

-- name: remote_reader_create
-- on a storage server: create (or give a new password to) the role of reader_settings, which may read the tables of
-- termx_shards and nothing else of termx's (the storage user needs CREATEROLE)
DO $$
DECLARE
    r text := current_setting('termx.reader_role');
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
        EXECUTE format('ALTER ROLE %I LOGIN PASSWORD %L', r, current_setting('termx.reader_password'));
    ELSE
        EXECUTE format('CREATE ROLE %I LOGIN NOINHERIT PASSWORD %L', r, current_setting('termx.reader_password'));
    END IF;
    -- termx's from now on (its password is the mapping's): what remote_reader_drop may drop
    EXECUTE format('COMMENT ON ROLE %I IS %L', r, 'termx: termx sql reads the shards of termx_shards as this role');
    CREATE SCHEMA IF NOT EXISTS termx_shards;
    EXECUTE format('GRANT USAGE ON SCHEMA termx_shards TO %I', r);
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA termx_shards TO %I', r);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA termx_shards GRANT SELECT ON TABLES TO %I', r);
END $$

-- name: remote_reader_drop
-- on a storage server, when its server is removed: drop the read-only role of remote_reader_role if termx made it
-- (its comment) and termx_shards holds no table (no coordinator has shards here; a storage database serves one)
DO $$
DECLARE
    r text := 'termx_reads_' || left(md5(current_database()), 16);
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r AND shobj_description(oid, 'pg_authid')
                      = 'termx: termx sql reads the shards of termx_shards as this role')
       AND NOT EXISTS (SELECT 1 FROM pg_class WHERE relnamespace = to_regnamespace('termx_shards')) THEN
        EXECUTE format('REVOKE USAGE ON SCHEMA termx_shards FROM %I', r);
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA termx_shards REVOKE SELECT ON TABLES FROM %I', r);
        EXECUTE format('DROP ROLE %I', r);
    END IF;
END $$

-- name: same_database_servers
-- the other registered servers with the same host, port and database as server :name (they share its read-only role)
SELECT o.srvname FROM pg_foreign_server s JOIN pg_foreign_server o ON o.oid <> s.oid AND o.srvname LIKE 'termx\_%'
 WHERE s.srvname = 'termx_' || :name
   AND (SELECT array_agg(x ORDER BY x) FROM unnest(o.srvoptions) x WHERE x ~ '^(host|port|dbname)=')
     = (SELECT array_agg(x ORDER BY x) FROM unnest(s.srvoptions) x WHERE x ~ '^(host|port|dbname)=')

-- name: reader_mapping_create
-- on the coordinator: termx_reader's user mapping for server termx_:name, as the storage server's read-only role of
-- reader_settings. termx_reader gets no USAGE on the server, so pg_user_mappings never shows it the options
-- (a mapping's options are shown to its user only with USAGE on the server); no mapping without termx_reader
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'termx_reader') THEN
        EXECUTE format('CREATE USER MAPPING FOR termx_reader SERVER %I OPTIONS (user %L, password %L)',
                       'termx_' || termx._server_name(current_setting('termx.reader_server')),
                       current_setting('termx.reader_role'), current_setting('termx.reader_password'));
    END IF;
END $$

-- name: reader_mapping_password
-- on the coordinator: termx_reader's mapping for server termx_<reader_server>, if it has one, takes the password of
-- reader_settings (a later registration of the same storage database gave their shared read-only role a new one)
DO $$
DECLARE
    srv text := 'termx_' || termx._server_name(current_setting('termx.reader_server'));
BEGIN
    IF EXISTS (SELECT 1 FROM pg_user_mappings WHERE srvname = srv AND usename = 'termx_reader') THEN
        EXECUTE format('ALTER USER MAPPING FOR termx_reader SERVER %I OPTIONS (SET password %L)', srv,
                       current_setting('termx.reader_password'));
    END IF;
END $$

-- name: reader_server
SELECT set_config('termx.reader_server', :name, true)
