-- jdf: the statements of termx/jdf/sketch_store.py (sketch sets, related classes), run by
-- termx.storage.statements.run_internal("jdf.<name>", ...). The sketch partitions' DDL stays in Python: it names a
-- table made from the shard id.

-- name: shard_texts
SELECT text FROM termx.document WHERE shard_id = :s ORDER BY doc_no

-- name: insert_sketch_set
INSERT INTO termx.sketch_set (shard_id, k, threshold, seed, classes, doc_hash, seconds)
 VALUES (:shard_id, :k, :threshold, :seed, :classes, :doc_hash, :seconds)

-- name: index_memory
-- indexes are built after the load (several times faster than maintaining them row by row)
SET LOCAL maintenance_work_mem = '1GB'

-- name: copy_related_class
COPY termx.related_class (shard_id, n, i, j, df, tau, term, docs) FROM STDIN

-- name: copy_related_doc
COPY termx.related_doc (shard_id, doc, classes) FROM STDIN

-- name: delete_sketch_set
DELETE FROM termx.sketch_set WHERE shard_id = :shard_id

-- name: stale_sketch_partitions
-- the sketch partitions of this shard and of shards whose sketch set is gone (sketch_<shard id>)
SELECT c.relname FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid
 WHERE h.inhparent = 'termx.sketch'::regclass AND (substring(c.relname from 8)::integer = :shard_id
  OR NOT EXISTS (SELECT 1 FROM termx.sketch_set s WHERE s.shard_id = substring(c.relname from 8)::integer))

-- name: related_classes
SELECT i, j, df, tau, term FROM termx.related_class WHERE shard_id = :s ORDER BY n

-- name: related_docs
SELECT doc, classes FROM termx.related_doc WHERE shard_id = :s ORDER BY doc

-- name: sketch_params
SELECT k, threshold, seed FROM termx.sketch_set WHERE shard_id = :s
