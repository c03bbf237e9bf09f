-- lcp_distribution: how many adjacent suffixes share exactly h tokens (the slides' "distribution of LCPs").
--
-- In the slides' 1989 AP News the distribution peaks near 10 bytes (about a word bigram); boilerplate and
-- duplicate documents show up as a long tail of large h. LCPs are clipped at document ends.
-- Exact from the class table alone: the ranks w with LCP[w] >= h form runs, one per class with LBL < h <= SIL,
-- each of freq - 1 positions; so for h >= 1
--     #{w : LCP[w] = h} = sum(freq - 1 | SIL = h) - sum(freq - 1 | LBL = h)
-- and the remaining positions (of N, the shard's tokens) have LCP 0.
-- A suffix array and its LCP exist per shard only: a corpus of several shards gets one distribution per shard
-- (shard_no), each over that shard's N.
-- Columns: shard_no; lcp = h; positions = #{w : LCP[w] = h}; share = positions / N; classes = classes with SIL = h.
-- Exact on corpora built with every repeated class stored (--store-min-freq 2; the default is 16); on a corpus built with
-- T > 2 the classes with freq < T have no row, so the positions with small counts are missing from the sums (the
-- library's LoadedIndex.lcp has the exact array).
-- :corpus  corpus name
WITH shard AS (
    SELECT s.id, s.shard_no, s.tokens
    FROM termx.corpus c JOIN termx.shard s ON s.corpus_id = c.id
    WHERE c.name = CAST(:corpus AS text)
), cls AS (  -- one partition per shard (the shard id is a parameter the planner prunes on)
    SELECT s.shard_no, k.lbl, k.sil, k.freq
    FROM shard s
    CROSS JOIN LATERAL (SELECT k.lbl, k.sil, k.freq FROM termx.class k WHERE k.shard_id = s.id OFFSET 0) k
), by_sil AS (
    SELECT shard_no, sil AS h, sum(freq - 1) AS ends, count(*) AS classes FROM cls GROUP BY shard_no, sil
), by_lbl AS (
    SELECT shard_no, lbl AS h, sum(freq - 1) AS starts FROM cls WHERE lbl > 0 GROUP BY shard_no, lbl
), positive AS (
    SELECT shard_no, h, coalesce(ends, 0) - coalesce(starts, 0) AS positions, coalesce(classes, 0) AS classes
    FROM by_sil FULL JOIN by_lbl USING (shard_no, h)
), lcp AS (
    SELECT s.shard_no, 0 AS h,
           s.tokens - coalesce((SELECT sum(p.positions) FROM positive p WHERE p.shard_no = s.shard_no), 0)
               AS positions,
           0::bigint AS classes
    FROM shard s
    UNION ALL
    SELECT shard_no, h, positions, classes FROM positive WHERE positions > 0 OR classes > 0
)
SELECT l.shard_no, l.h AS lcp, l.positions::bigint AS positions,
       round(l.positions / nullif(s.tokens, 0)::numeric, 6)::float8 AS share,
       l.classes
FROM lcp l JOIN shard s USING (shard_no)
ORDER BY l.shard_no, l.h;
