-- terms_poisson: term candidates ranked by how far df_2 departs from a Poisson null.
--
-- Of the n = df_1 documents that contain a candidate, x = df_2 contain it again. Under a Poisson null each
-- does so with probability p0 = Pr(k >= 2 | k >= 1). termx.candidate.p0 is that probability for the
-- candidate's freq under a length-aware null (rate freq * len_d / N in document d, so long documents are
-- expected to repeat more): p0 = sum_d Pr(k_d >= 2) / sum_d Pr(k_d >= 1). A one-rate null (lambda = freq / D
-- in every document, p0 = 1 - lambda e^-lambda / (1 - e^-lambda)) misfits collections whose documents differ
-- in length: strings repeated inside a few long documents then look bursty (docs/terms.md).
--
-- score = sign(x - e) * G2, the signed log-likelihood ratio of x under Binomial(n, p0):
--   e = n * p0,  G2 = 2 * [x ln(x / e) + (n - x) ln((n - x) / (n - e))]   (0 ln 0 = 0)
--   Large and positive: far more repeats than chance, backed by many documents; negative: fewer.
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
FROM termx.ranked_terms('poisson', CAST(:corpus AS text), CAST(:min_df AS integer), CAST(:min_len AS integer),
                        CAST(:max_len AS integer), CAST(:top AS integer));
