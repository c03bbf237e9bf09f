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
