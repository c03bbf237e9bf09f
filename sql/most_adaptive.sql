-- most_adaptive: the classes that adapt most (df_2 / df_1) among those in at least :min_df documents.
--
-- adaptation = Pr(k >= 2 | k >= 1) = df_2 / df_1. Next to it, the adaptation a Poisson null predicts for the
-- same freq spread over the D documents (lambda = freq / D): 1 - lambda e^-lambda / (1 - e^-lambda), and RIDF.
-- Good terms adapt far more than the null predicts; random fragments do not. All members of a class share
-- these numbers, so one row per class, shown by its longest member.
-- A class exists per shard only: on a corpus of several shards each row is one shard's class (shard_no), with that
-- shard's freq, df and adaptation, and D its documents; termx.stats sums a string over the shards.
-- Complete when min_df >= the corpus's store_min_freq T (default 16): df_1 <= freq, so every class with df_1 >= T has
-- a row; with a lower min_df on a corpus built with --store-min-freq T > 2, the classes with freq < T are missing.
-- :corpus   corpus name
-- :min_df   smallest df_1, complete from the default store_min_freq up (default 16)
-- :min_len  smallest length of the longest member, in tokens (default 1)
-- :limit    rows to return (default 20)
SELECT k.rep AS longest, k.freq, k.df,
       termx.adaptation(k.df) AS adaptation,
       termx.poisson_adaptation(k.freq, s.documents) AS poisson_adaptation,
       termx.ridf(k.df[1], k.freq, s.documents) AS ridf,
       k.lbl, k.sil, s.shard_no
FROM termx.corpus c
JOIN termx.shard s ON s.corpus_id = c.id
CROSS JOIN LATERAL (  -- one partition per shard (the shard id is a parameter the planner prunes on)
    SELECT k.* FROM termx.class k
    WHERE k.shard_id = s.id
      AND k.df[1] >= CAST(:min_df AS integer)
      AND k.sil >= CAST(:min_len AS integer)
    OFFSET 0
) k
WHERE c.name = CAST(:corpus AS text)
ORDER BY adaptation DESC NULLS LAST, k.df[1] DESC, k.rep, k.sil, s.shard_no
LIMIT CAST(:limit AS integer);
