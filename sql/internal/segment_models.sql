-- segment_models: the statements of termx/storage/segment_models.py (word-breaking models stored per corpus build),
-- run by termx.storage.statements.run_internal("segment_models.<name>", ...).

-- name: model
SELECT id, meta FROM termx.segment_model WHERE corpus_id = :c AND scorer = :s AND key = :k

-- name: model_arrays
SELECT name, dtype, length, data FROM termx.segment_model_array WHERE model_id = :m ORDER BY name, chunk

-- name: model_exists
SELECT 1 FROM termx.segment_model WHERE corpus_id = :c AND scorer = :s AND key = :k

-- name: corpus_for_share
-- the corpus build stays while its model is stored (NULL: it was rebuilt or dropped meanwhile)
SELECT 1 FROM termx.corpus WHERE id = :c FOR SHARE

-- name: insert_model
-- no row when another process stored the same model first
INSERT INTO termx.segment_model (corpus_id, scorer, key, meta, nodes, bytes, seconds)
 VALUES (:c, :s, :k, :meta, :nodes, :bytes, :seconds) ON CONFLICT DO NOTHING RETURNING id

-- name: models
SELECT scorer, key, nodes, bytes, seconds, created_at FROM termx.segment_model WHERE corpus_id = :c ORDER BY id
