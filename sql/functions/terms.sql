-- terms: the candidate filter every term ranking (sql/terms_*.sql) extends.
--
-- Applied by migration 0009_terms_candidates (sql/functions/README.md: how these files are managed), which first
-- creates the row type termx.term_candidate. It reads termx.candidate (migration 0005_terms), so it must not be
-- applied before that table exists.

-- termx.candidate holds one candidate per left-maximal class: its longest member that holds nothing breaking
-- and begins and ends like a term (docs/terms.md); `termx terms` builds it on first use of a corpus. This keeps
-- the candidates of one corpus (every shard) that occur in at least min_df documents and are min_len to
-- max_len tokens long, with the corpus's documents (D) and text tokens (N) that some scores need.
--
-- An SQL function that is neither STRICT nor VOLATILE is inlined by the planner: a ranking that selects from it
-- is planned as if it had joined termx.corpus, termx.shard and termx.candidate itself. Its row type
-- termx.term_candidate (migration 0009) keeps `term` in the C collation, which the rankings' tie-break relies
-- on. Keep both so: tests/test_sql_functions.py checks the plans and the collation.
CREATE OR REPLACE FUNCTION termx.term_candidates(corpus text, min_df integer, min_len integer, max_len integer)
RETURNS SETOF termx.term_candidate
LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
    SELECT t.shard_id, t.i, t.j, t.term, t.len, t.freq, t.df, t.p0, c.documents, c.tokens
    FROM termx.corpus c
    JOIN termx.shard s ON s.corpus_id = c.id
    JOIN termx.candidate t ON t.shard_id = s.id
    WHERE c.name = term_candidates.corpus
      AND t.df[1] >= term_candidates.min_df
      AND t.len BETWEEN term_candidates.min_len AND term_candidates.max_len
$fn$;
COMMENT ON FUNCTION termx.term_candidates(text, integer, integer, integer) IS
    'Term candidates of a corpus in at least min_df documents, min_len..max_len tokens long (sql/terms_*.sql).';
