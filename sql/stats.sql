-- stats: freq, df_1..df_K, adaptation, its Poisson prediction, RIDF and the class of one pattern.
--
-- The same row `termx stats CORPUS PATTERN --format json` prints (docs/lookup.md): patterns that occur at least
-- twice are found with one index probe on termx.class; the others by binary searches over the stored suffix
-- array, so freq 1 and freq 0 are exact too. termx.stats(corpus, ARRAY[...]) takes several patterns.
-- :corpus   corpus name
-- :pattern  the pattern, read in the corpus's unit (word corpora split it like the indexer)
SELECT *
FROM termx.stats(CAST(:corpus AS text), CAST(:pattern AS text));
