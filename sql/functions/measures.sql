-- measures: the per-pattern statistics every look-up and query reports, as SQL functions of a class's counts.
--
-- Applied by migration 0004_lookup (sql/functions/README.md: how these files are managed). Formulas as in
-- docs/design.md "Definitions": df_k = documents in which the pattern occurs at least k times; D = documents.
-- SQL-language functions are not STRICT so that the planner can inline them (NULL in still gives NULL out).

CREATE OR REPLACE FUNCTION termx.adaptation(df integer[]) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT CASE WHEN cardinality(df) >= 2 AND df[1] > 0 THEN df[2]::float8 / df[1] END
$fn$;
COMMENT ON FUNCTION termx.adaptation(integer[]) IS 'df_2 / df_1 = Pr(k >= 2 | k >= 1); NULL when df_1 = 0.';

CREATE OR REPLACE FUNCTION termx.poisson_adaptation(freq bigint, documents bigint) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT CASE WHEN freq > 0 AND documents > 0 THEN
        1 - (freq::float8 / documents) * exp(-freq::float8 / documents) / (1 - exp(-freq::float8 / documents)) END
$fn$;
COMMENT ON FUNCTION termx.poisson_adaptation(bigint, bigint) IS
    'Pr(k >= 2 | k >= 1) under a Poisson with rate freq / documents per document; NULL when freq = 0.';

CREATE OR REPLACE FUNCTION termx.ridf(df1 bigint, freq bigint, documents bigint) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT CASE WHEN df1 > 0 AND documents > 0 THEN
        (ln(documents::float8 / df1) + ln(1 - exp(-freq::float8 / documents))) / ln(2::float8) END
$fn$;
COMMENT ON FUNCTION termx.ridf(bigint, bigint, bigint) IS
    'Residual IDF: -log2(df1 / D) + log2(1 - exp(-freq / D)) (observed minus Poisson-predicted IDF).';
