-- Joint document frequency in SQL: termx.jdf (exact, from the documents of two suffix-array intervals) and
-- the measure and overlap helpers that termx.related (sql/functions/related.sql, migration 0018_related) uses.
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

-- Global numbers of the documents holding a pattern (any string), over every shard of the corpus: the shards'
-- suffix-array intervals (termx._related_docs, related.sql; plpgsql resolves it when it runs).
CREATE OR REPLACE FUNCTION termx._jdf_docs(corpus text, pattern text) RETURNS integer[]
LANGUAGE plpgsql STABLE AS $fn$
BEGIN
    RETURN termx._related_docs(corpus, (termx._corpus(corpus)).corpus_id, pattern);
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
    d integer := (termx._corpus(corpus)).documents;
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
