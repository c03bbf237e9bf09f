-- tbl: the statements of termx/tbl/model_store.py (stored TBL models and their rules), run by
-- termx.storage.statements.run_internal("tbl.<name>", ...).

-- name: lock_model
SELECT id FROM termx.tbl_model WHERE name = :name FOR UPDATE

-- name: delete_model
DELETE FROM termx.tbl_model WHERE id = :id

-- name: insert_model
INSERT INTO termx.tbl_model (name, params, n_positions, accuracy_before, accuracy_after, n_rules, corpus_id)
 VALUES (:name, :params, :n_positions, :accuracy_before, :accuracy_after, :n_rules, :corpus_id) RETURNING id

-- name: insert_rule
INSERT INTO termx.tbl_rule (model_id, ord, template, from_tag, to_tag, args, score, good, bad, readable)
 VALUES (:model_id, :ord, :template, :from_tag, :to_tag, CAST(:args AS bigint[]), :score, :good, :bad, :readable)

-- name: model
SELECT id, params, n_positions, accuracy_before, accuracy_after FROM termx.tbl_model WHERE name = :name

-- name: model_names
SELECT name FROM termx.tbl_model ORDER BY name

-- name: rules
SELECT template, from_tag, to_tag, args, score, good, bad FROM termx.tbl_rule WHERE model_id = :id ORDER BY ord

-- name: models
SELECT name, n_rules, n_positions, accuracy_before, accuracy_after, created_at FROM termx.tbl_model ORDER BY name
