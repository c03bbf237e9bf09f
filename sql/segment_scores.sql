-- segment_scores: boundary and word precision/recall/F1 of every scorer of one white space recovery run.
--
-- The overall figures `termx whitespace` prints, recomputed from the per-document counts in termx.seg_score
-- (docs/segment.md): counts are pooled over the run's evaluation documents, then turned into ratios. With
-- nothing to find and nothing found a ratio is 1, with only one of them zero it is 0 (as termx.evaluation).
-- :run  the run id (termx.seg_run.id; `termx whitespace` reports it as run_id)
WITH pooled AS (
    SELECT scorer, kind, count(*) AS documents,
           sum(b_tp) AS b_tp, sum(b_fp) AS b_fp, sum(b_fn) AS b_fn,
           sum(w_tp) AS w_tp, sum(w_fp) AS w_fp, sum(w_fn) AS w_fn
    FROM termx.seg_score
    WHERE run_id = CAST(:run AS integer)
    GROUP BY scorer, kind
), ratios AS (
    SELECT scorer, kind, documents,
           CASE WHEN b_tp + b_fp > 0 THEN b_tp::float8 / (b_tp + b_fp) WHEN b_tp + b_fn = 0 THEN 1 ELSE 0 END AS bp,
           CASE WHEN b_tp + b_fn > 0 THEN b_tp::float8 / (b_tp + b_fn) WHEN b_tp + b_fp = 0 THEN 1 ELSE 0 END AS br,
           CASE WHEN w_tp + w_fp > 0 THEN w_tp::float8 / (w_tp + w_fp) WHEN w_tp + w_fn = 0 THEN 1 ELSE 0 END AS wp,
           CASE WHEN w_tp + w_fn > 0 THEN w_tp::float8 / (w_tp + w_fn) WHEN w_tp + w_fp = 0 THEN 1 ELSE 0 END AS wr
    FROM pooled
)
SELECT scorer, kind, documents,
       bp AS boundary_p, br AS boundary_r,
       CASE WHEN bp + br > 0 THEN 2 * bp * br / (bp + br) ELSE 0 END AS boundary_f1,
       wp AS word_p, wr AS word_r,
       CASE WHEN wp + wr > 0 THEN 2 * wp * wr / (wp + wr) ELSE 0 END AS word_f1
FROM ratios
ORDER BY kind DESC, boundary_f1 DESC, scorer
