-- analyst: the statements termx/storage/sqlfiles.py runs around an analyst query (termx sql, the explorer's SQL
-- box), run by termx.storage.statements.run_internal("analyst.<name>", ...).

-- name: statement_timeout
-- the server cancels the analyst's statement after :timeout (e.g. '5000ms'); local to its read-only transaction
SELECT set_config('statement_timeout', :timeout, true)
