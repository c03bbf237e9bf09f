-- terms_freq: the frequency baseline: term candidates ranked by freq.
--
-- score = freq (occurrences in the corpus)
--
-- termx.ranked_terms (sql/functions/ranking.sql: the body every ranking shares) scores and numbers
-- termx.term_candidates (sql/functions/terms.sql), which keeps the corpus's candidates, one per left-maximal class
-- (its longest member that holds nothing breaking and begins and ends like a term, docs/terms.md), that occur in
-- at least min_df documents and are min_len to max_len tokens long; `termx terms` builds them on first use.
-- Ties: score desc, then freq desc, then term in C collation (then the class, should two spell alike).
-- :corpus   corpus name
-- :min_df   smallest df_1, the documents a term must occur in (default 3)
-- :min_len  shortest term, in tokens (default 2)
-- :max_len  longest term, in tokens (default 40)
-- :top      rows to return (default 100)
SELECT rank, term, score, freq, df, len
FROM termx.ranked_terms('freq', CAST(:corpus AS text), CAST(:min_df AS integer), CAST(:min_len AS integer),
                        CAST(:max_len AS integer), CAST(:top AS integer));
