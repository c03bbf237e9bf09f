-- shards: the statements of a build of several shards (termx/storage/shard_build.py and its worker task,
-- termx/storage/shard_task.py), run by termx.storage.statements.run_internal("shards.<name>", ...).

-- name: shard_built
UPDATE termx.shard SET tokens = :tokens, classes = :classes, built_at = now(), seconds = :seconds WHERE id = :id

-- name: corpus_totals
UPDATE termx.corpus SET tokens = :tokens, classes = :classes WHERE id = :id

-- name: append_target
SELECT id, unit, max_k, rep_cap, documents, coalesce((params ->> 'store_min_freq')::integer, 2)
  FROM termx.corpus WHERE name = :name

-- name: next_shard
SELECT coalesce(max(shard_no) + 1, 0) FROM termx.shard WHERE corpus_id = :c

-- name: taken_names
-- the corpus's document names among :names, or :names with a suffix (:patterns: each name as a LIKE pattern + '#%')
SELECT name FROM termx.document WHERE corpus_id = :c AND (name = ANY(:names) OR name LIKE ANY(:patterns))

-- name: insert_corpus
-- a nameless corpus row the build owns until its swap
INSERT INTO termx.corpus (name, unit, max_k, tokens, documents, classes, rep_cap, params)
 VALUES (NULL, :unit, :max_k, 0, :documents, 0, :rep_cap, :params) RETURNING id

-- name: insert_shard
INSERT INTO termx.shard (corpus_id, shard_no, tokens, documents, first_doc, classes)
 VALUES (:corpus_id, :shard_no, 0, :documents, :first_doc, 0) RETURNING id

-- name: move_shards
-- --append's swap moves the staged shards, documents and tokens under the existing corpus :target
UPDATE termx.shard SET corpus_id = :target WHERE corpus_id = :staged

-- name: move_documents
UPDATE termx.document SET corpus_id = :target WHERE corpus_id = :staged

-- name: move_vocab
UPDATE termx.vocab SET corpus_id = :target WHERE corpus_id = :staged

-- name: append_totals
-- the build time keys caches to the second: a new version must differ from the old
UPDATE termx.corpus SET tokens = tokens + :tokens, documents = documents + :documents, classes = classes + :classes,
 timings = :timings, created_at = greatest(now(), date_trunc('second', created_at) + interval '1 second')
 WHERE id = :target

-- name: delete_staged
DELETE FROM termx.corpus WHERE id = :staged
