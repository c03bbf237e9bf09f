-- batches: termx.find_class and termx.concordance for an array of patterns, a bad pattern answered by an error row.
--
-- Applied by migration 0024_pattern_batches (termx.stats(corpus, text[]) lives in lookup.sql). As there, one bad
-- pattern (empty, longer than every document: SQLSTATE 22023) does not abort the others: its row has NULLs and an
-- `error` naming its 1-based position and the pattern; each pattern runs in its own subtransaction to catch it.
-- An unknown corpus is still an error of the call. Patterns are only ever values.

-- The error of a batch's bad pattern: position, the pattern quoted and cut to 40 characters, the message and hint
-- (as termx.lookup.pattern_failure words it, and termx.stats(corpus, text[])).
CREATE OR REPLACE FUNCTION termx._pattern_failure(n integer, pattern text, msg text, hint text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT format('pattern %s %s: %s', n,
                  quote_literal(CASE WHEN char_length(pattern) <= 40 THEN pattern ELSE left(pattern, 39) || chr(8230) END),
                  msg || coalesce(' (' || nullif(hint, '') || ')', ''))
$fn$;

CREATE OR REPLACE FUNCTION termx.find_class(corpus text, patterns text[])
RETURNS TABLE (pattern text, i integer, j integer, freq integer, df integer[], lbl integer, sil integer,
               shortest text, longest text, error text)
LANGUAGE plpgsql STABLE AS $fn$
#variable_conflict use_column
DECLARE
    p text;
    n integer := 0;
    msg text;
    hint text;
BEGIN
    IF corpus IS NULL OR patterns IS NULL THEN
        RETURN;
    END IF;
    PERFORM termx._corpus(corpus);
    FOREACH p IN ARRAY patterns LOOP
        n := n + 1;
        BEGIN
            RETURN QUERY SELECT p, f.*, NULL::text FROM termx.find_class(corpus, p) f;
        EXCEPTION WHEN invalid_parameter_value THEN
            GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
            RETURN QUERY SELECT p, NULL::integer, NULL::integer, NULL::integer, NULL::integer[], NULL::integer,
                                NULL::integer, NULL::text, NULL::text, termx._pattern_failure(n, p, msg, hint);
        END;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION termx.find_class(text, text[]) IS
    'termx.find_class for several patterns, a row each (none for a NULL one), in order; a bad pattern''s row has '
    'NULLs and an error naming it and its position.';

CREATE OR REPLACE FUNCTION termx.concordance(corpus text, patterns text[], left_tokens integer DEFAULT 10,
                                             right_tokens integer DEFAULT 40, max_lines integer DEFAULT 100)
RETURNS TABLE (pattern text, rank integer, doc text, doc_offset bigint, left_context text, match text,
               right_context text, shard_no integer, error text)
LANGUAGE plpgsql STABLE AS $fn$
#variable_conflict use_column
DECLARE
    p text;
    n integer := 0;
    msg text;
    hint text;
BEGIN
    IF corpus IS NULL OR patterns IS NULL THEN
        RETURN;
    END IF;
    PERFORM termx._corpus(corpus);
    IF left_tokens < 0 OR right_tokens < 0 OR max_lines < 0 THEN  -- an error of the call, not of each pattern
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'context sizes and max_lines must be >= 0';
    END IF;
    FOREACH p IN ARRAY patterns LOOP
        n := n + 1;
        BEGIN
            RETURN QUERY SELECT p, c.*, NULL::text
                         FROM termx.concordance(corpus, p, left_tokens, right_tokens, max_lines) c;
        EXCEPTION WHEN invalid_parameter_value THEN
            GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
            RETURN QUERY SELECT p, NULL::integer, NULL::text, NULL::bigint, NULL::text, NULL::text, NULL::text,
                                NULL::integer, termx._pattern_failure(n, p, msg, hint);
        END;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION termx.concordance(text, text[], integer, integer, integer) IS
    'termx.concordance for several patterns: each one''s KWIC lines (at most max_lines) led by the pattern, in '
    'order; a bad pattern gets one row of NULLs with an error naming it and its position.';
