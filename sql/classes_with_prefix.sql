-- classes_with_prefix: the classes whose longest member starts with a prefix, with their statistics.
--
-- If the prefix occurs at least twice, its own class comes first and the classes nested in it follow: longest
-- members (termx.class.rep, cut at the corpus's rep_cap tokens) sort in C collation, each class before the
-- classes that extend it. The prefix is compared as text, also in word corpora (where rep joins words with
-- single spaces), so 'nuclear' also finds 'nuclears'.
-- A class <i,j> exists per shard only: on a corpus of several shards each row is one shard's class (shard_no), with
-- that shard's freq and df; the same longest member may appear once per shard (termx.stats sums a string's
-- statistics over the shards).
-- On a corpus built with --store-min-freq T > 2 (termx.corpus.params ->> 'store_min_freq') the table holds only the
-- classes with freq >= T, so only those are listed; termx.classes(corpus, prefix) computes every class under a
-- prefix from the arrays (the prefix's tokens; its cost grows with the prefix's occurrences).
-- :corpus  corpus name
-- :prefix  text the longest member starts with
-- :limit   rows to return (default 100)
-- Each shard's classes are read from its own partition of termx.class only: the LATERAL subquery (kept apart
-- from the join by OFFSET 0) gets the shard id as a parameter, and PostgreSQL prunes the other partitions.
SELECT k.rep AS longest, k.freq, k.df, termx.adaptation(k.df) AS adaptation, k.i, k.j, k.lbl, k.sil, s.shard_no
FROM termx.corpus c
JOIN termx.shard s ON s.corpus_id = c.id
CROSS JOIN LATERAL (
    SELECT k.* FROM termx.class k
    WHERE k.shard_id = s.id
      AND k.rep >= CAST(:prefix AS text) COLLATE "C"
      AND k.rep < (CAST(:prefix AS text) || chr(1114111)) COLLATE "C"   -- the index range of the prefix
      AND starts_with(k.rep, CAST(:prefix AS text))
    ORDER BY k.rep, k.sil
    LIMIT CAST(:limit AS integer) OFFSET 0
) k
WHERE c.name = CAST(:corpus AS text)
ORDER BY k.rep, k.sil, s.shard_no
LIMIT CAST(:limit AS integer);
