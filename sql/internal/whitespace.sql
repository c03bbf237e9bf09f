-- whitespace: the statements of termx/experiments/whitespace/run_store.py (white space experiment runs), run by
-- termx.storage.statements.run_internal("whitespace.<name>", ...).

-- name: insert_run
INSERT INTO termx.seg_run (corpus_id, params) VALUES (:corpus_id, :params) RETURNING id
