-- terms: the statements of termx/terms/candidate_store.py and termx/terms/reference.py (candidates, reference counts, term
-- lists), run by termx.storage.statements.run_internal("terms.<name>", ...).

-- name: candidates_stale
-- each shard of a corpus with the rules and shard count its candidates were computed under (NULL: none)
SELECT c.rules, coalesce((c.params->>'shards')::integer, 1) FROM termx.shard s
 LEFT JOIN termx.candidate_set c ON c.shard_id = s.id WHERE s.corpus_id = :corpus_id

-- name: shard_texts
SELECT text FROM termx.document WHERE corpus_id = :c AND shard_id = :s ORDER BY doc_no

-- name: delete_candidate_sets
DELETE FROM termx.candidate_set WHERE shard_id = ANY(:ids)

-- name: insert_candidate_set
INSERT INTO termx.candidate_set (shard_id, rules, spaced, candidates, params)
 VALUES (:shard_id, :rules, :spaced, :candidates, :params)

-- name: analyze_candidates
ANALYZE termx.candidate

-- name: reference_stored
SELECT 1 FROM termx.reference_set WHERE shard_id = :shard_id AND ref_corpus_id = :ref_id

-- name: insert_reference_set
INSERT INTO termx.reference_set (shard_id, ref_corpus_id) VALUES (:shard_id, :ref_id)

-- name: analyze_reference
ANALYZE termx.candidate_reference

-- name: lock_term_list
SELECT id FROM termx.term_list WHERE name = :name FOR UPDATE

-- name: delete_term_list
DELETE FROM termx.term_list WHERE id = :id

-- name: insert_term_list
INSERT INTO termx.term_list (name, corpus_id, params) VALUES (:name, :corpus_id, :params) RETURNING id

-- name: shards_without_reference
-- the corpus's shards whose candidates have no counts in the reference corpus :r yet
SELECT s.id FROM termx.shard s LEFT JOIN termx.reference_set r ON r.shard_id = s.id
 AND r.ref_corpus_id = :r WHERE s.corpus_id = :c AND r.shard_id IS NULL ORDER BY s.id

-- name: shard_candidates
SELECT i, j, term FROM termx.candidate WHERE shard_id = :s ORDER BY i, j
