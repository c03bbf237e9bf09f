-- crossval_bins: freq* (mean freq in half 2) of the strings with a given freq in half 1, by df_1 in half 1.
--
-- The bins termx crossval stored (rerun it after a rebuild). The slides' table is :freq = 10: strings seen
-- 10 times in half 1 of the collection come back more often in half 2 when their 10 occurrences came from
-- many documents (freq* depends on doc freq). A bin by freq alone is the n-weighted mean over its df rows:
-- SUM(freq2_sum) / SUM(n).
-- :corpus  corpus name
-- :freq    freq in half 1 (default 10)
SELECT b.freq, b.df, b.freq_star, b.n, b.classes
FROM termx.corpus c
JOIN termx.crossval_bin b ON b.corpus_id = c.id
WHERE c.name = CAST(:corpus AS text)
  AND b.freq = CAST(:freq AS bigint)
ORDER BY b.df DESC;
