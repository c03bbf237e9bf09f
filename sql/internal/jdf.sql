-- jdf: the statements of termx/jdf/sketch_store.py (sketch sets, related classes), run by
-- termx.storage.statements.run_internal("jdf.<name>", ...). The sketch partitions' life cycle is
-- termx/storage/partitions.py (sql/internal/partitions.sql).

-- name: shard_texts
SELECT text FROM termx.document WHERE shard_id = :s ORDER BY doc_no

-- name: insert_sketch_set
INSERT INTO termx.sketch_set (shard_id, k, threshold, seed, classes, doc_hash, seconds)
 VALUES (:shard_id, :k, :threshold, :seed, :classes, :doc_hash, :seconds)

-- name: copy_related_class
COPY termx.related_class (shard_id, n, i, j, df, tau, term, docs) FROM STDIN

-- name: copy_related_doc
COPY termx.related_doc (shard_id, doc, classes) FROM STDIN

-- name: delete_sketch_set
DELETE FROM termx.sketch_set WHERE shard_id = :shard_id

-- name: related_classes
SELECT i, j, df, tau, term FROM termx.related_class WHERE shard_id = :s ORDER BY n

-- name: related_docs
SELECT doc, classes FROM termx.related_doc WHERE shard_id = :s ORDER BY doc

-- name: sketch_params
SELECT k, threshold, seed FROM termx.sketch_set WHERE shard_id = :s
