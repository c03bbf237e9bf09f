-- corpora: the statements of termx/storage/corpora.py (corpus and shard rows, the swap's renames, listings, index
-- arrays), run by termx.storage.statements.run_internal("corpora.<name>", ...). Shard class tables and their COPY
-- stay with the partition life cycle (termx/storage/transactions.py), which names them from the shard id.

-- name: corpus_id
SELECT id FROM termx.corpus WHERE name = :name

-- name: insert_corpus
-- a nameless corpus row: the swap names it
INSERT INTO termx.corpus (name, unit, max_k, tokens, documents, classes, rep_cap, params)
 VALUES (NULL, :unit, :max_k, :tokens, :documents, :classes, :rep_cap, :params) RETURNING id

-- name: insert_shard
INSERT INTO termx.shard (corpus_id, shard_no, tokens, documents, first_doc, classes, seconds)
 VALUES (:corpus_id, 0, :tokens, :documents, 0, :classes, :seconds) RETURNING id

-- name: retire_corpus
-- the corpus loses its name: readers that started earlier finish on it, then it is purged
UPDATE termx.corpus SET name = NULL WHERE id = :id

-- name: name_corpus
UPDATE termx.corpus SET name = :name, timings = :timings WHERE id = :id

-- name: shards
-- the shards of corpus :n (of every corpus when :n is NULL)
SELECT c.name, s.shard_no, s.documents, s.tokens, s.classes, s.built_at, s.seconds
 FROM termx.shard s JOIN termx.corpus c ON c.id = s.corpus_id
 WHERE c.name IS NOT NULL AND (CAST(:n AS text) IS NULL OR c.name = :n)
 ORDER BY c.name, s.shard_no

-- name: corpora
-- the columns of termx.storage.corpora.CorpusInfo, as in `corpus`
SELECT id, name, unit, max_k, tokens, documents, classes, rep_cap, params, timings, created_at,
 (SELECT count(*) FROM termx.shard s WHERE s.corpus_id = termx.corpus.id) FROM termx.corpus WHERE name IS NOT NULL
 ORDER BY name

-- name: corpus
SELECT id, name, unit, max_k, tokens, documents, classes, rep_cap, params, timings, created_at,
 (SELECT count(*) FROM termx.shard s WHERE s.corpus_id = termx.corpus.id) FROM termx.corpus WHERE name = :n

-- name: corpus_bytes
-- Bytes of each corpus in the database: its shards' own class and sketch tables whole (table, indexes, TOAST), and
-- its rows of the shared tables that grow with it (documents, vocabulary; index arrays and stored models by their
-- data, as stored, read without being fetched from TOAST).
SELECT c.id,
       COALESCE((SELECT sum(COALESCE(pg_total_relation_size(to_regclass('termx.class_' || s.id)), 0)
                            + COALESCE(pg_total_relation_size(to_regclass('termx.sketch_' || s.id)), 0)
                            + (SELECT COALESCE(sum(pg_column_size(a.data)), 0) FROM termx.index_array a
                               WHERE a.shard_id = s.id))
                 FROM termx.shard s WHERE s.corpus_id = c.id), 0)
       + (SELECT COALESCE(sum(pg_column_size(d.*)), 0) FROM termx.document d WHERE d.corpus_id = c.id)
       + (SELECT COALESCE(sum(pg_column_size(v.*)), 0) FROM termx.vocab v WHERE v.corpus_id = c.id)
       + (SELECT COALESCE(sum(pg_column_size(ma.data)), 0) FROM termx.segment_model m
          JOIN termx.segment_model_array ma ON ma.model_id = m.id WHERE m.corpus_id = c.id)
FROM termx.corpus c WHERE c.name IS NOT NULL AND (CAST(:n AS text) IS NULL OR c.name = :n)

-- name: corpus_names
SELECT name FROM termx.corpus WHERE name IS NOT NULL

-- name: index_array
-- one stored index array of a shard, in its chunks
SELECT dtype, length, data FROM termx.index_array WHERE shard_id = :s AND name = :n ORDER BY chunk

-- name: dependents
-- what dropping or replacing corpus :id deletes besides its index (termx.storage.corpora.DEPENDENTS, in order)
SELECT (SELECT count(*) FROM termx.term_list WHERE corpus_id = :id),
       (SELECT count(*) FROM termx.seg_run WHERE corpus_id = :id),
       (SELECT count(*) FROM termx.tbl_model WHERE corpus_id = :id)

-- name: shard_layout
SELECT id, shard_no, first_doc, documents FROM termx.shard WHERE corpus_id = :c ORDER BY shard_no

-- name: shard_documents
SELECT name, length FROM termx.document WHERE corpus_id = :c AND shard_id = :s ORDER BY doc_no

-- name: vocab
-- the corpus's tokens in token id order (ids 1, 2, ...)
SELECT token FROM termx.vocab WHERE corpus_id = :c ORDER BY token_id
