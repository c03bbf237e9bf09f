-- terms_specificity: term candidates ranked by domain specificity against a reference corpus (weirdness x log freq).
--
-- score = ln( (freq / N) / ((ref_freq + 1) / N_ref) ) * ln(freq)
--   freq, N: the candidate's occurrences and the text tokens of the corpus; ref_freq, N_ref: the same string's
--   occurrences and the text tokens of the reference corpus (general text in the same unit, e.g. news).
--   The first factor is the log "weirdness" (Ahmad et al.): how much more often the string is used in this
--   corpus than in general text, add-one smoothed so strings the reference never uses stay finite. The second
--   weights it by the evidence, so a string seen twice cannot outrank a frequent domain term with the same
--   ratio. Strings common in general text (ratio near or below 1) score near 0 or below.
--
-- termx.candidate_reference holds each candidate's counts in the reference corpus; `termx terms --reference`
-- computes them on first use of a (corpus, reference) pair (two binary searches per candidate in the
-- reference's suffix array). termx.ranked_terms (sql/functions/ranking.sql: the body every ranking shares)
-- scores and numbers termx.term_candidates (sql/functions/terms.sql) keeps the corpus's candidates,
-- one per left-maximal class (docs/terms.md), in at least min_df documents and min_len to max_len tokens long.
-- Ties: score desc, then freq desc, then term in C collation (then the class, should two spell alike).
-- :corpus     corpus name
-- :reference  reference corpus name (same unit)
-- :min_df     smallest df_1, the documents a term must occur in (default 3)
-- :min_len    shortest term, in tokens (default 2)
-- :max_len    longest term, in tokens (default 40)
-- :top        rows to return (default 100)
SELECT rank, term, score, freq, df, len, ref_freq, ref_df
FROM termx.ranked_terms('specificity', CAST(:corpus AS text), CAST(:min_df AS integer), CAST(:min_len AS integer),
                        CAST(:max_len AS integer), reference => CAST(:reference AS text),
                        top => CAST(:top AS integer));
