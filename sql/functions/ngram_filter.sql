-- ngram_filter: the shards' "does not occur" filters, as termx._find_each (shards.sql) tests them.
--
-- Applied by migration 0021_shard_filter (sql/functions/README.md: how these files are managed). Each shard built
-- since then stores a blocked Bloom filter over every run of 1..@NMAX@ tokens of its documents as its index array
-- '@ARRAY@' (termx/index/ngramfilter.py builds it and says why). A pattern whose tested run is not in a shard's
-- filter occurs nowhere in that shard, so the shard's suffix array is never searched for it. The markers are
-- termx.index.ngramfilter's constants (its sql_markers(), filled in by apply_function_file): this file and the
-- build hash alike, and tests/test_shard_filter.py checks that they do.

-- The keys a pattern is tested by, from its token ids (bytes 1..255, or the corpus's token ids): per tested run
-- of min(n, @NMAX@) tokens (the first, the last and evenly between, at most @WINDOWS@), its polynomial hash h spread
-- (xor-shift-multiply), which picks its word, and the mask of the @K@ bits it sets there (Knuth's multiplicative
-- hash of h picks them).
CREATE OR REPLACE FUNCTION termx._ngram_keys(ids bigint[], OUT hashes bigint[], OUT masks bigint[])
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
DECLARE
    n integer := cardinality(ids);
    width integer := least(cardinality(ids), @NMAX@);
    s integer;
    prev integer := -1;
    h bigint;
    m bigint;
    mask bigint;
BEGIN
    hashes := '{}';
    masks := '{}';
    FOR w IN 0 .. @WINDOWS@ - 1 LOOP
        s := w * (n - width) / (@WINDOWS@ - 1);
        CONTINUE WHEN s = prev;
        prev := s;
        h := 0;
        FOR t IN s + 1 .. s + width LOOP
            h := (h * @BASE@ + ids[t] + 1) % @PRIME@;
        END LOOP;
        m := (h * @MIX@) & 4294967295;
        h := h # (h >> 16);  -- spread(h) picks the word: runs that differ in one token only have close h
        h := (h * @SPREAD@) & 2147483647;
        h := h # (h >> 16);
        h := (h * @SPREAD@) & 2147483647;
        h := h # (h >> 16);
        mask := 0;
        FOR b IN 0 .. @K@ - 1 LOOP
            mask := mask | (1::bigint << (((m >> 26) + b * (((m >> 20) & 63) | 1)) & 63)::integer);
        END LOOP;
        hashes := hashes || h;
        masks := masks || mask;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION termx._ngram_keys(bigint[]) IS
    'The keys (hash, bit mask) of the runs of a pattern''s token ids that a shard''s n-gram filter is tested by.';

-- Whether a pattern may occur in a shard, by its keys: false only when one of its tested runs is not in the shard's
-- filter; true when the shard has no filter (built before 0021_shard_filter). Key h picks word h * words >> 31;
-- a word is read as an 8-byte slice of the chunk holding it (chunks are uncompressed, a multiple of 8 bytes long).
CREATE OR REPLACE FUNCTION termx._ngram_maybe(shard integer, hashes bigint[], masks bigint[])
RETURNS TABLE (maybe boolean)
LANGUAGE sql STABLE AS $fn$
    SELECT coalesce(bool_and((termx._int(w.word, 0, 8) & w.mask) = w.mask), true)
    FROM (SELECT substring(CASE WHEN o.at < octet_length(f.data) THEN f.data
                                ELSE (SELECT x.data FROM termx.index_array x
                                      WHERE x.shard_id = shard AND x.name = '@ARRAY@'
                                        AND x.chunk = o.at / octet_length(f.data)) END
                           FROM (o.at % octet_length(f.data))::integer + 1 FOR 8) AS word, k.mask
          FROM termx.index_array f
          CROSS JOIN LATERAL unnest(hashes, masks) AS k(h, mask)
          CROSS JOIN LATERAL (SELECT ((k.h * f.length) >> 31) * 8 AS at) o
          WHERE f.shard_id = shard AND f.name = '@ARRAY@' AND f.chunk = 0
          OFFSET 0) w  -- read once: _int, inlined, names its argument eight times
$fn$;
COMMENT ON FUNCTION termx._ngram_maybe(integer, bigint[], bigint[]) IS
    'False when a shard''s n-gram filter rules a pattern out (it does not occur there), by the pattern''s keys.';
