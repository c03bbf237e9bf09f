-- lcp_distribution: how many adjacent suffixes share exactly h tokens (the slides' "distribution of LCPs").
--
-- In the slides' 1989 AP News the distribution peaks near 10 bytes (about a word bigram); boilerplate and
-- duplicate documents show up as a long tail of large h. LCPs are clipped at document ends.
-- Exact from the class table alone: the ranks w with LCP[w] >= h form runs, one per class with LBL < h <= SIL,
-- each of freq - 1 positions; so for h >= 1
--     #{w : LCP[w] = h} = sum(freq - 1 | SIL = h) - sum(freq - 1 | LBL = h)
-- and the remaining positions (of N, the corpus's tokens) have LCP 0.
-- Columns: lcp = h; positions = #{w : LCP[w] = h}; share = positions / N; classes = classes with SIL = h.
-- :corpus  corpus name
WITH corpus AS (
    SELECT c.id, c.tokens FROM termx.corpus c WHERE c.name = CAST(:corpus AS text)
), cls AS (  -- one partition per shard (the shard id is a parameter the planner prunes on)
    SELECT k.lbl, k.sil, k.freq
    FROM corpus c
    JOIN termx.shard s ON s.corpus_id = c.id
    CROSS JOIN LATERAL (SELECT k.lbl, k.sil, k.freq FROM termx.class k WHERE k.shard_id = s.id OFFSET 0) k
), by_sil AS (
    SELECT sil AS h, sum(freq - 1) AS ends, count(*) AS classes FROM cls GROUP BY sil
), by_lbl AS (
    SELECT lbl AS h, sum(freq - 1) AS starts FROM cls WHERE lbl > 0 GROUP BY lbl
), positive AS (
    SELECT h, coalesce(ends, 0) - coalesce(starts, 0) AS positions, coalesce(classes, 0) AS classes
    FROM by_sil FULL JOIN by_lbl USING (h)
), lcp AS (
    SELECT 0 AS h, (SELECT tokens FROM corpus) - coalesce((SELECT sum(positions) FROM positive), 0) AS positions,
           0::bigint AS classes
    WHERE EXISTS (SELECT 1 FROM corpus)
    UNION ALL
    SELECT h, positions, classes FROM positive WHERE positions > 0 OR classes > 0
)
SELECT h AS lcp, positions::bigint AS positions,
       round(positions / (SELECT tokens FROM corpus)::numeric, 6)::float8 AS share,
       classes
FROM lcp
ORDER BY h;
