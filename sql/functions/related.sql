-- termx.related in SQL: the same candidates, estimates and exact scores as termx.jdf.related (docs/jdf.md,
-- "Related strings"), read from termx.related_class / termx.related_doc, on corpora of any number of shards.
-- Applied by migration 0018_related (after its tables); every statement is CREATE OR REPLACE.

-- Global numbers of the documents holding a string in one shard: the stored documents when the string is (the
-- surface form of) a related class there or its class is one, else from the shard's suffix-array interval
-- (termx._find_each, termx._interval_docs).
CREATE OR REPLACE FUNCTION termx._related_shard_docs(corpus text, shard integer, shard_no integer, first_doc integer,
                                                     pattern text)
RETURNS integer[]
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    f record;
    stored integer[];
BEGIN
    SELECT rc.docs INTO stored FROM termx.related_class rc WHERE rc.shard_id = shard AND rc.term = pattern LIMIT 1;
    IF FOUND THEN
        RETURN stored;
    END IF;
    SELECT * INTO f FROM termx._find_each(corpus, pattern, shard_no, false);
    IF coalesce(f.freq, 0) = 0 THEN
        RETURN '{}';
    END IF;
    SELECT rc.docs INTO stored FROM termx.related_class rc WHERE rc.shard_id = shard AND rc.i = f.i AND rc.j = f.j;
    IF FOUND THEN
        RETURN stored;
    END IF;
    RETURN ARRAY(SELECT x + first_doc FROM unnest(termx._interval_docs(shard, f.i, f.j,
        ARRAY(SELECT d.start FROM termx.shard z JOIN termx.document d ON d.corpus_id = z.corpus_id
              AND d.doc_no >= z.first_doc AND d.doc_no < z.first_doc + z.documents  -- the primary key's range
              WHERE z.id = shard ORDER BY d.doc_no))) x);
END
$fn$;

-- Global numbers of the documents holding a string, over every shard of the corpus, ascending.
CREATE OR REPLACE FUNCTION termx._related_docs(corpus text, corpus_id integer, pattern text) RETURNS integer[]
LANGUAGE sql STABLE AS $fn$
    SELECT coalesce(array_agg(x ORDER BY x), '{}')
    FROM termx.shard z CROSS JOIN LATERAL unnest(termx._related_shard_docs(corpus, z.id, z.shard_no, z.first_doc,
                                                                            pattern)) x
    WHERE z.corpus_id = _related_docs.corpus_id
$fn$;

-- 1. probe: the term's 32 documents with the smallest hashes; 2. every related class whose sketch holds one of
-- them (termx.related_doc) is a candidate, its jdf estimated as shared · df(term) / c, c = the probe's hashes up
-- to the class's tau; candidates merge by text over shards (df and estimates summed); 3. in order of the measure
-- on the estimate, skipping strings that overlap the term, the best 10 × n are scored from exact jdf; 4. in order
-- of the exact score, a string overlapping a better one (3+ characters) is skipped.
CREATE OR REPLACE FUNCTION termx.related(corpus text, pattern text, n integer DEFAULT 20, measure text DEFAULT 'g2',
                                         min_df integer DEFAULT 5)
RETURNS TABLE (rank integer, term text, df integer, jdf integer, score double precision)
LANGUAGE plpgsql STABLE AS $fn$
#variable_conflict use_variable
DECLARE
    c record;
    shards integer[];
    docs integer[];
    probe bigint[];
    probe_docs integer[];
    dt integer;
    d integer;
    r record;
    picked text[] := '{}';
    kept text[] := '{}';
    out_rank integer := 0;
BEGIN
    c := termx._corpus(corpus);
    IF measure NOT IN ('g2', 'pmi', 'dice', 'lift') THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('unknown measure %L', measure), HINT = 'one of g2, pmi, dice, lift';
    END IF;
    IF n < 1 OR min_df < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'n and min_df must be at least 1';
    END IF;
    shards := ARRAY(SELECT z.id FROM termx.shard z WHERE z.corpus_id = c.corpus_id ORDER BY z.shard_no);
    IF EXISTS (SELECT 1 FROM unnest(shards) s WHERE NOT EXISTS (SELECT 1 FROM termx.sketch_set x
                                                                 WHERE x.shard_id = s)) THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_object', MESSAGE = format('corpus %L has no sketches', corpus),
            HINT = 'run termx sketch CORPUS';
    END IF;
    d := c.documents;
    docs := termx._related_docs(corpus, c.corpus_id, pattern);
    dt := cardinality(docs);
    IF dt = 0 THEN
        RETURN;
    END IF;
    SELECT array_agg(p.h ORDER BY p.h), array_agg(p.doc ORDER BY p.h) INTO probe, probe_docs
    FROM (SELECT u.h, u.doc
          FROM (SELECT s.h, (z.first_doc + s.o - 1)::integer AS doc
                FROM termx.shard z JOIN termx.sketch_set x ON x.shard_id = z.id
                CROSS JOIN LATERAL unnest(x.doc_hash) WITH ORDINALITY AS s(h, o)
                WHERE z.corpus_id = c.corpus_id) u
          JOIN unnest(docs) AS t(doc) ON t.doc = u.doc
          ORDER BY u.h LIMIT 32) p;
    FOR r IN
        WITH hits AS (
            SELECT q.shard_id, e.k, count(*) AS shared
            FROM termx.related_doc q CROSS JOIN LATERAL unnest(q.classes) AS e(k)
            WHERE q.shard_id = ANY(shards) AND q.doc = ANY(probe_docs)
            GROUP BY q.shard_id, e.k),
        est AS (
            SELECT rc.term AS t, sum(rc.df) AS cdf,
                   sum(h.shared::float8 * dt / width_bucket(rc.tau, probe)) AS e
            FROM hits h JOIN termx.related_class rc ON rc.shard_id = h.shard_id AND rc.n = h.k
            GROUP BY rc.term)
        SELECT est.t, termx._jdf_score(measure, dt, est.cdf, least(est.e, dt, est.cdf), d) AS sc
        FROM est WHERE est.cdf >= min_df
        ORDER BY sc DESC NULLS LAST, est.t COLLATE "C"
    LOOP
        CONTINUE WHEN termx._overlaps(r.t, pattern, 2);
        picked := picked || r.t;
        EXIT WHEN cardinality(picked) >= 10 * n;
    END LOOP;
    FOR r IN
        WITH cd AS MATERIALIZED (
            SELECT p.t, termx._related_docs(corpus, c.corpus_id, p.t) AS ds FROM unnest(picked) AS p(t)),
        ex AS (  -- |ds ∩ docs|: the smaller set's members looked up by binary search (width_bucket) in the other
            SELECT cd.t, cardinality(cd.ds) AS cdf,
                   CASE WHEN cardinality(cd.ds) <= dt
                        THEN (SELECT count(*) FROM unnest(cd.ds) x WHERE docs[width_bucket(x, docs)] = x)
                        ELSE (SELECT count(*) FROM unnest(docs) x WHERE cd.ds[width_bucket(x, cd.ds)] = x)
                   END::integer AS a
            FROM cd)
        SELECT ex.t, ex.cdf, ex.a, termx._jdf_score(measure, dt, ex.cdf, ex.a, d) AS sc
        FROM ex WHERE ex.a > 0
        ORDER BY sc DESC NULLS LAST, ex.t COLLATE "C"
    LOOP
        CONTINUE WHEN r.sc IS NULL OR EXISTS (SELECT 1 FROM unnest(kept) q WHERE termx._overlaps(q, r.t, 3));
        kept := kept || r.t;
        out_rank := out_rank + 1;
        rank := out_rank;
        term := r.t;
        df := r.cdf;
        jdf := r.a;
        score := r.sc;
        RETURN NEXT;
        EXIT WHEN out_rank >= n;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION termx.related(text, text, integer, text, integer) IS
    'Strings that co-occur with a term in documents more than chance (as termx related): rank, term, df, jdf, score.';
