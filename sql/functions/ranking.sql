-- ranking: the body every term ranking (sql/terms_*.sql) shares: candidates scored by one named measure, the top
-- ones numbered.
--
-- Applied by migration 0025_terms_body (sql/functions/README.md: how these files are managed). It reads
-- termx.term_candidates (terms.sql, 0009), termx.ridf (measures.sql, 0004) and termx.candidate_reference (0007).

-- termx.ranked_terms(measure, ...) keeps termx.term_candidates(corpus, min_df, min_len, max_len), scores each by
-- `measure` (one of the Ranking names: adaptation, df, freq, poisson, ridf, specificity; the formulas are explained
-- in the sql/terms_<measure>.sql that calls it) and returns the `top` best, numbered by rank.
-- Ties: score desc, then freq desc, then term in C collation (then the class, should two spell alike).
-- specificity compares with the corpus `reference` and keeps only candidates counted there (ref_freq, ref_df);
-- the other measures leave `reference` NULL and those two columns NULL.
--
-- The measure is a constant in every ranking, so once this function and term_candidates are inlined the planner
-- folds the CASE to that one score and the reference joins away: each ranking is planned as its own query was.
-- Keep it an SQL function that is neither STRICT nor VOLATILE (tests/test_sql_functions.py checks the plans).
CREATE OR REPLACE FUNCTION termx.ranked_terms(measure text, corpus text, min_df integer, min_len integer,
                                              max_len integer, top integer, reference text DEFAULT NULL)
RETURNS TABLE (rank bigint, term text, score double precision, freq integer, df integer[], len integer,
               ref_freq integer, ref_df integer)
LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
    WITH scored AS (
        SELECT t.term, t.freq, t.df, t.len, t.shard_id, t.i, t.documents, t.tokens, r.ref_freq, r.ref_df,
               ref.tokens AS ref_tokens,
               CAST(t.df[2] AS float8) AS x, CAST(t.df[1] AS float8) AS n, t.df[1] * t.p0 AS e
        FROM termx.term_candidates(ranked_terms.corpus, ranked_terms.min_df,
                                   ranked_terms.min_len, ranked_terms.max_len) t
        LEFT JOIN termx.corpus ref ON ref.name = ranked_terms.reference
        LEFT JOIN termx.candidate_reference r
          ON r.shard_id = t.shard_id AND r.ref_corpus_id = ref.id AND r.i = t.i AND r.j = t.j
        WHERE ranked_terms.reference IS NULL OR r.shard_id IS NOT NULL
    ), ranked AS (
        SELECT s.term, s.freq, s.df, s.len, s.shard_id, s.i, s.ref_freq, s.ref_df,
               CASE ranked_terms.measure
                   WHEN 'adaptation' THEN CAST(s.df[2] + 0.5 AS float8) / (s.df[1] + 1)
                   WHEN 'df' THEN CAST(s.df[1] AS float8)
                   WHEN 'freq' THEN CAST(s.freq AS float8)
                   WHEN 'poisson' THEN
                       sign(s.x - s.e) * 2 * (CASE WHEN s.x > 0 THEN s.x * ln(s.x / s.e) ELSE 0 END
                                              + CASE WHEN s.n > s.x THEN (s.n - s.x) * ln((s.n - s.x) / (s.n - s.e))
                                                     ELSE 0 END)
                   WHEN 'ridf' THEN termx.ridf(s.df[1], s.freq, s.documents)
                   WHEN 'specificity' THEN
                       ln((CAST(s.freq AS float8) / s.tokens) / ((s.ref_freq + 1.0) / s.ref_tokens)) * ln(s.freq)
               END AS score
        FROM scored s
        ORDER BY score DESC, s.freq DESC, s.term, s.shard_id, s.i
        LIMIT ranked_terms.top
    )
    SELECT row_number() OVER (ORDER BY score DESC, freq DESC, term, shard_id, i) AS rank,
           term, score, freq, df, len, ref_freq, ref_df
    FROM ranked
    ORDER BY rank
$fn$;
COMMENT ON FUNCTION termx.ranked_terms(text, text, integer, integer, integer, integer, text) IS
    'The top term candidates of a corpus by one measure, numbered (the body of every sql/terms_*.sql).';
