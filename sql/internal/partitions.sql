-- partitions: the life cycle of one partition of a table partitioned by shard (termx.class, termx.sketch), run by
-- termx/storage/partitions.py. `{part}` (termx.<parent>_<shard id>), `{parent}`, `{key}` (the shard id) and
-- `{index}` are filled with psycopg.sql.Identifier / Literal built from the shard's integer id and the known parent
-- names, never from user input; `:name` parameters are bound as everywhere else.

-- name: create_class
-- a standalone table shaped like termx.class, with the CHECK that lets ATTACH skip its scan
CREATE TABLE {part} (LIKE termx.class INCLUDING ALL, CHECK (shard_id = {key}))

-- name: create_sketch
CREATE TABLE {part} (LIKE termx.sketch INCLUDING DEFAULTS INCLUDING STORAGE, CHECK (shard_id = {key}))

-- name: copy_class
COPY {part} FROM STDIN (FORMAT BINARY)

-- name: copy_sketch
COPY {part} (shard_id, cls, i, j, sil, df, hashes) FROM STDIN (FORMAT BINARY)

-- name: index_class_rep
CREATE INDEX ON {part} (rep, sil)

-- name: index_class_ij
-- the (i, j) look-up; the index name migration 0010 uses
CREATE INDEX {index} ON {part} (i, j)

-- name: analyze
ANALYZE {part}

-- name: index_memory
-- sketch indexes are built after the load (several times faster than maintaining them row by row)
SET LOCAL maintenance_work_mem = '1GB'

-- name: index_sketch
ALTER TABLE {part} ADD PRIMARY KEY (shard_id, i, j)

-- name: swap_lock_timeout
SELECT set_config('lock_timeout', :t, true)

-- name: attach
ALTER TABLE {parent} ATTACH PARTITION {part} FOR VALUES IN ({key})

-- name: table_kind
-- the table's oid and kind ('f': a foreign shard's foreign table); no row when there is none
SELECT c.oid, c.relkind FROM pg_class c WHERE c.oid = to_regclass(:name)

-- name: attached
SELECT 1 FROM pg_inherits WHERE inhrelid = :oid

-- name: statement_timeout
SELECT set_config('statement_timeout', :t, false)

-- name: lock_timeout
SELECT set_config('lock_timeout', :t, false)

-- name: reset_timeouts
RESET statement_timeout;
RESET lock_timeout

-- name: detach
ALTER TABLE {parent} DETACH PARTITION {part} CONCURRENTLY

-- name: drop
DROP TABLE IF EXISTS {part}

-- name: drop_foreign
-- a foreign shard's foreign table (its rows stay on the storage server: termx/storage/foreign.py drops them)
DROP FOREIGN TABLE IF EXISTS {part}

-- name: pending_detaches
-- partitions whose DETACH ... CONCURRENTLY an earlier, interrupted command left pending
SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = to_regclass(:parent) AND i.inhdetachpending

-- name: finalize
ALTER TABLE {parent} DETACH PARTITION {part} FINALIZE

-- name: orphans
-- the shard ids of tables <parent>_<shard id> (attached or not) whose shard no longer exists
SELECT substring(c.relname from length(:parent) + 2)::integer FROM pg_class c
 WHERE c.relnamespace = 'termx'::regnamespace AND c.relkind = 'r' AND c.relname ~ ('^' || :parent || '_[0-9]+$')
  AND NOT EXISTS (SELECT 1 FROM termx.shard s WHERE :parent || '_' || s.id = c.relname)
