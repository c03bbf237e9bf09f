-- Joint document frequency in SQL: termx.jdf (exact, from the documents of two suffix-array intervals) and
-- termx.related (candidates from the bottom-k sketches in termx.sketch, final scores from exact jdf).
-- Applied by migration 0013_jdf; every statement is CREATE OR REPLACE. docs/jdf.md describes the measures.

-- Complementary error function (Numerical Recipes' erfcc, relative error < 1.2e-7): the p-value of G² is
-- erfc(sqrt(G² / 2)), the upper tail of chi-squared with one degree of freedom.
CREATE OR REPLACE FUNCTION termx._erfc(x double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT CASE WHEN abs(x) > 26 THEN CASE WHEN x > 0 THEN 0 ELSE 2 END  -- exp() would underflow
                WHEN x >= 0 THEN r ELSE 2 - r END
    FROM (SELECT t * exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418
                 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587
                 + t * (-0.82215223 + t * 0.17087277))))))))) AS r
          FROM (SELECT least(abs(x), 26) AS z, 1 / (1 + 0.5 * least(abs(x), 26)) AS t) a) b
$fn$;

-- PMI, Dice, lift, G² and its p-value of the 2×2 document table with margins df_x, df_y, joint count a, D.
CREATE OR REPLACE FUNCTION termx._jdf_measures(df_x double precision, df_y double precision,
    a double precision, documents double precision,
    OUT pmi double precision, OUT dice double precision, OUT lift double precision, OUT g2 double precision,
    OUT p_value double precision)
LANGUAGE plpgsql IMMUTABLE AS $fn$
DECLARE
    o double precision[] := ARRAY[a, df_x - a, df_y - a, documents - df_x - df_y + a];
    e double precision[] := ARRAY[df_x * df_y, df_x * (documents - df_y), (documents - df_x) * df_y,
                                  (documents - df_x) * (documents - df_y)];
    s double precision := 0;
BEGIN
    IF df_x <= 0 OR df_y <= 0 OR documents <= 0 THEN
        RETURN;
    END IF;
    pmi := CASE WHEN a > 0 THEN log(2::numeric, (a * documents / (df_x * df_y))::numeric)::float8 END;
    dice := 2 * a / (df_x + df_y);
    lift := a * documents / (df_x * df_y);
    FOR c IN 1..4 LOOP
        IF o[c] > 0 AND e[c] > 0 THEN
            s := s + o[c] * ln(o[c] / (e[c] / documents));
        END IF;
    END LOOP;
    g2 := greatest(2 * s, 0);
    p_value := least(1, termx._erfc(sqrt(g2 / 2)));
END
$fn$;

-- Distinct document numbers of the suffixes at ranks i..j of a shard (positions from the stored suffix array,
-- documents by binary search in the sorted array of document starts).
CREATE OR REPLACE FUNCTION termx._interval_docs(shard integer, i integer, j integer, starts bigint[])
RETURNS integer[]
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    w integer;
    chunk bigint;
    b bytea;
BEGIN
    IF i IS NULL OR j < i THEN
        RETURN '{}';
    END IF;
    SELECT right(a.dtype, 1)::integer, octet_length(a.data) INTO w, chunk
    FROM termx.index_array a WHERE a.shard_id = shard AND a.name = 'sa' AND a.chunk = 0;
    b := termx._bytes(shard, 'sa', chunk, i::bigint * w, (j - i + 1)::bigint * w);
    RETURN ARRAY(SELECT DISTINCT width_bucket(termx._int(b, g.k * w, w), starts) - 1
                 FROM generate_series(0, j - i) AS g(k) ORDER BY 1);
END
$fn$;

-- The hashes of a stored sketch (termx.sketch.hashes: int64 little-endian) as bigint[]. (plpgsql functions here:
-- their bodies call migration 0004_lookup's functions and are only resolved when they run.)
CREATE OR REPLACE FUNCTION termx._sketch_hashes(b bytea) RETURNS bigint[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
BEGIN
    RETURN ARRAY(SELECT termx._int(b, g.k * 8, 8) FROM generate_series(0, octet_length(b) / 8 - 1) AS g(k)
                 ORDER BY g.k);
END
$fn$;

-- Documents holding a pattern (any string: its interval from termx.find_class).
CREATE OR REPLACE FUNCTION termx._jdf_docs(corpus text, pattern text) RETURNS integer[]
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    c record;
    f record;
BEGIN
    c := termx._corpus_info(corpus);
    SELECT * INTO f FROM termx.find_class(corpus, pattern);
    IF coalesce(f.freq, 0) = 0 THEN
        RETURN '{}';
    END IF;
    RETURN termx._interval_docs(c.shard_id, f.i, f.j,
        ARRAY(SELECT x.start FROM termx.document x WHERE x.corpus_id = c.corpus_id ORDER BY x.doc_no));
END
$fn$;

CREATE OR REPLACE FUNCTION termx.jdf(corpus text, x_text text, y_text text)
RETURNS TABLE (x text, y text, df_x integer, df_y integer, jdf integer, documents integer, x_and_y integer,
               x_only integer, y_only integer, neither integer, pmi double precision, dice double precision,
               lift double precision, g2 double precision, p_value double precision, method text)
LANGUAGE plpgsql STABLE AS $fn$
#variable_conflict use_variable
DECLARE
    dx integer[] := termx._jdf_docs(corpus, x_text);
    dy integer[] := termx._jdf_docs(corpus, y_text);
    d integer := (termx._corpus_info(corpus)).documents;
    a integer;
    m record;
BEGIN
    a := cardinality(ARRAY(SELECT unnest(dx) INTERSECT SELECT unnest(dy)));
    m := termx._jdf_measures(cardinality(dx), cardinality(dy), a, d);
    RETURN QUERY SELECT x_text, y_text, cardinality(dx), cardinality(dy), a, d, a, cardinality(dx) - a, cardinality(dy) - a,
        d - cardinality(dx) - cardinality(dy) + a, m.pmi, m.dice, m.lift, m.g2, m.p_value, 'exact'::text;
END
$fn$;
COMMENT ON FUNCTION termx.jdf(text, text, text) IS
    'Exact joint document frequency of two strings with the 2x2 document table, PMI, Dice, lift, G2, p-value.';

-- The chosen measure of a 2×2 document table (an SQL function the planner inlines into related's candidate query).
CREATE OR REPLACE FUNCTION termx._jdf_score(measure text, dx double precision, dy double precision,
                                           a double precision, d double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT CASE measure
        WHEN 'pmi' THEN CASE WHEN a > 0 THEN ln(a * d / (dx * dy)) / ln(2) END
        WHEN 'dice' THEN 2 * a / (dx + dy)
        WHEN 'lift' THEN a * d / (dx * dy)
        ELSE 2 * (CASE WHEN a > 0 THEN a * ln(a * d / (dx * dy)) ELSE 0 END
                  + CASE WHEN dx - a > 0 THEN (dx - a) * ln((dx - a) * d / (dx * (d - dy))) ELSE 0 END
                  + CASE WHEN dy - a > 0 THEN (dy - a) * ln((dy - a) * d / ((d - dx) * dy)) ELSE 0 END
                  + CASE WHEN d - dx - dy + a > 0
                         THEN (d - dx - dy + a) * ln((d - dx - dy + a) * d / ((d - dx) * (d - dy))) ELSE 0 END)
    END
$fn$;

-- True when the texts overlap at an end by at least `m` characters (a suffix of one is a prefix of the other),
-- or one contains the other: fragments of the same string.
CREATE OR REPLACE FUNCTION termx._overlaps(a text, b text, m integer) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT strpos(a, b) > 0 OR strpos(b, a) > 0
        OR EXISTS (SELECT 1 FROM generate_series(least(m, char_length(a), char_length(b)),
                                                  least(char_length(a), char_length(b)) - 1) AS g(n)
                   WHERE right(a, g.n) = left(b, g.n) OR right(b, g.n) = left(a, g.n))
$fn$;

-- Candidates: sketched classes whose 8 smallest hashes (column first) meet the term's 32 smallest (a GIN
-- probe) at least twice (or at all, for classes with at most 8 documents); each is scored on an estimate of jdf
-- (the share of its 8 smallest documents that hold the term, times its df); the best 3 × n are scored again
-- from their exact documents. Strings that overlap the term (contain it, are contained in it, or share an end
-- of 2+ characters), and strings overlapping a better one by 3+ characters, are skipped, as termx related does.
CREATE OR REPLACE FUNCTION termx.related(corpus text, pattern text, n integer DEFAULT 20, measure text DEFAULT 'g2',
                                         min_df integer DEFAULT 5)
RETURNS TABLE (rank integer, term text, df integer, jdf integer, score double precision)
LANGUAGE plpgsql STABLE AS $fn$
#variable_conflict use_variable
DECLARE
    c record;
    ss record;
    f record;
    starts bigint[];
    docs integer[];
    th bigint[];
    d integer;
    dt integer;
    r record;
    sa_w integer;
    sa_chunk bigint;
    tok_w integer;
    tok_chunk bigint;
    kept text[] := '{}';
    out_rank integer := 0;
BEGIN
    c := termx._corpus_info(corpus);
    IF measure NOT IN ('g2', 'pmi', 'dice', 'lift') THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('unknown measure %L', measure), HINT = 'one of g2, pmi, dice, lift';
    END IF;
    SELECT * INTO ss FROM termx.sketch_set s WHERE s.shard_id = c.shard_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_object', MESSAGE = format('corpus %L has no sketches', corpus),
            HINT = 'run termx sketch CORPUS';
    END IF;
    d := c.documents;
    starts := ARRAY(SELECT x.start FROM termx.document x WHERE x.corpus_id = c.corpus_id ORDER BY x.doc_no);
    SELECT * INTO f FROM termx.find_class(corpus, pattern);
    docs := termx._interval_docs(c.shard_id, f.i, f.j, starts);
    dt := cardinality(docs);
    IF dt = 0 THEN
        RETURN;
    END IF;
    th := ARRAY(SELECT ss.doc_hash[x + 1] FROM unnest(docs) x ORDER BY 1 LIMIT 32);
    SELECT right(a.dtype, 1)::integer, octet_length(a.data) INTO sa_w, sa_chunk
    FROM termx.index_array a WHERE a.shard_id = c.shard_id AND a.name = 'sa' AND a.chunk = 0;
    SELECT right(a.dtype, 1)::integer, octet_length(a.data) INTO tok_w, tok_chunk
    FROM termx.index_array a WHERE a.shard_id = c.shard_id AND a.name = 'tokens' AND a.chunk = 0;
    FOR r IN
        WITH cand AS (
            SELECT s.i, s.j, s.sil, s.df,
                   cardinality(ARRAY(SELECT unnest(s.first) INTERSECT SELECT unnest(th))) AS shared
            FROM termx.sketch s
            WHERE s.shard_id = c.shard_id AND s.first && th AND s.df >= min_df),
        best AS (
            SELECT cand.* FROM cand
            WHERE cand.shared >= 2 OR cand.df <= 8
            ORDER BY termx._jdf_score(measure, dt, cand.df,
                                      least(dt, cand.df, cand.df * cand.shared / least(8, cand.df)::float8), d)
                     DESC NULLS LAST
            LIMIT 3 * n),
        exact AS (
            SELECT b.*, z.text AS txt,
                   cardinality(ARRAY(SELECT unnest(termx._interval_docs(c.shard_id, b.i, b.j, starts))
                                     INTERSECT SELECT unnest(docs))) AS a
            FROM best b
            CROSS JOIN LATERAL (  -- the longest member, cut as the stored rep is
                SELECT btrim(termx._text(c.corpus_id, c.unit, c.shard_id, tok_chunk, tok_w,
                                         termx._int(termx._bytes(c.shard_id, 'sa', sa_chunk, b.i::bigint * sa_w, sa_w),
                                                    0, sa_w),
                                         least(b.sil, c.rep_cap), 1000), E' \n\t\r') AS text) z)
        SELECT e.txt, e.df, e.a, termx._jdf_score(measure, dt, e.df, e.a, d) AS sc
        FROM exact e
        WHERE e.a > 0 AND e.txt <> '' AND NOT termx._overlaps(e.txt, pattern, 2)
        ORDER BY sc DESC NULLS LAST
    LOOP
        CONTINUE WHEN r.sc IS NULL OR EXISTS (SELECT 1 FROM unnest(kept) q WHERE termx._overlaps(q, r.txt, 3));
        kept := kept || r.txt;
        out_rank := out_rank + 1;
        rank := out_rank;
        term := r.txt;
        df := r.df;
        jdf := r.a;
        score := r.sc;
        RETURN NEXT;
        EXIT WHEN out_rank >= n;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION termx.related(text, text, integer, text, integer) IS
    'Strings that co-occur with a term in documents more than chance (as termx related): rank, term, df, jdf, score.';
