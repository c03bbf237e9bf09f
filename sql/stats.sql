-- stats: freq, df_1..df_K, adaptation, its Poisson prediction, RIDF and the class of one pattern.
--
-- The same row `termx stats CORPUS PATTERN --format json` prints (docs/lookup.md): patterns that occur at least
-- twice are found with one index probe on termx.class; the others by binary searches over the stored suffix
-- array, so freq 1 and freq 0 are exact too. termx.stats(corpus, ARRAY[...]) takes several patterns.
-- On a corpus of several shards freq and df_k are the sums over the shards; a class <i,j>, LBL, SIL and the
-- members exist per shard only, so those columns are NULL and `shards` lists them for each shard where the pattern
-- occurs (termx.find_class_shards), as the JSON of termx stats does; on a one-shard corpus `shards` is NULL.
-- :corpus   corpus name
-- :pattern  the pattern, read in the corpus's unit (word corpora split it like the indexer)
SELECT t.*,
       CASE WHEN (SELECT count(*) FROM termx.shard z JOIN termx.corpus c ON c.id = z.corpus_id
                  WHERE c.name = CAST(:corpus AS text)) > 1 THEN
           (SELECT coalesce(jsonb_agg(jsonb_build_object('shard_no', f.shard_no, 'freq', f.freq, 'df', f.df,
                                                         'i', f.i, 'j', f.j, 'lbl', f.lbl, 'sil', f.sil,
                                                         'shortest', f.shortest, 'longest', f.longest)
                                      ORDER BY f.shard_no), '[]'::jsonb)
            FROM termx.find_class_shards(CAST(:corpus AS text), CAST(:pattern AS text)) f WHERE f.freq > 0)
       END AS shards
FROM termx.stats(CAST(:corpus AS text), CAST(:pattern AS text)) t;
