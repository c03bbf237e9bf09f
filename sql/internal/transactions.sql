-- transactions: the statements of termx/storage/transactions.py (advisory locks, purging a nameless corpus, garbage
-- collection), run by termx.storage.statements.run_internal("transactions.<name>", ...).

-- name: lock
SELECT pg_advisory_xact_lock(:ns, :key)

-- name: lock_name
SELECT pg_advisory_xact_lock(:ns, hashtext(:name))

-- name: try_own
SELECT pg_try_advisory_lock(:ns, :key)

-- name: disown
SELECT pg_advisory_unlock(:ns, :key)

-- name: nameless_corpus
-- the corpus row :id if it is nameless (its build time keys its cache folder)
SELECT name, created_at FROM termx.corpus WHERE id = :id

-- name: shard_ids
SELECT id FROM termx.shard WHERE corpus_id = :id ORDER BY shard_no

-- name: delete_nameless_corpus
DELETE FROM termx.corpus WHERE id = :id AND name IS NULL

-- name: nameless_corpora
SELECT id FROM termx.corpus WHERE name IS NULL

-- name: live_corpora
SELECT id, created_at FROM termx.corpus WHERE name IS NOT NULL
