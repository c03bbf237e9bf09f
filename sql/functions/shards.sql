-- shards: the per-shard look-ups behind termx._find, termx.find_class_shards, termx.occurrences and termx.concordance.
--
-- Applied by migration 0017_sql_shards after lookup.sql (sql/functions/README.md: how these files are managed).
-- A corpus of several shards (disjoint runs of whole documents) answers a per-string statistic as the sum over its
-- shards; a class <i,j>, LBL and SIL exist per shard only. termx._find_each prepares a pattern once per corpus
-- (case folding, tokens, token ids: the vocabulary is the corpus's) and then finds its class in each shard: the
-- index probe on that shard's partition of termx.class, or binary searches over its stored suffix array. The
-- helpers it calls (termx._bytes, _compare, _shared, _pos, _text, ...) are in lookup.sql. Markers: as lookup.sql.
-- A corpus built with --store-min-freq T (its params' store_min_freq, 2 when absent) holds class rows only for the
-- classes with freq >= T: the ancestors of a stored class are stored too (they occur at least as often), so a probe
-- that misses proves freq < T, and such a "cold" class is computed from the arrays: its at most T - 1 suffixes,
-- their documents, and the tokens of the suffixes at and beside the interval's ends (the same record a row gives).

-- The class of a pattern in every shard of a corpus (only_shard: in that shard alone), in shard order, with the
-- corpus's document count. classes = false: the caller sums freq and df over several shards, so LBL, SIL and the
-- members of a trivial class <i,i> are not computed (left NULL); a one-shard corpus always gets them (its class is
-- the corpus's).
CREATE OR REPLACE FUNCTION termx._find_each(corpus text, pattern text, only_shard integer, classes boolean)
RETURNS TABLE (shard_no integer, documents integer, i integer, j integer, freq integer, df integer[], lbl integer,
               sil integer, shortest text, longest text)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan SET enable_bitmapscan = off AS $fn$
#variable_conflict use_column
DECLARE
    c record;
    z record;
    toks text[];
    n_tok integer;
    key text;
    probe boolean;
    r record;
    p record;
    q record;
    before_rep text;
    near text;
    near_p text;
    own boolean;
    ids bigint[];
    pat bytea;
    width integer;
    tok_chunk bigint;
    sa_width integer;
    sa_chunk bigint;
    lo bigint;
    hi bigint;
    top bigint;
    base bigint;
    sab bytea;
    mid bigint;
    first_rank bigint;
    last_rank bigint;
    pos bigint;
    d record;
    hashes bigint[];
    masks bigint[];
    known boolean;
    use_filter boolean;
    occurs boolean := false;
    maybe boolean;
    part text;
    hit boolean;
    prep text;
    key_prefix text;
    min_freq integer;
    fold boolean;
    docs integer[];
    pos_i bigint;
    end_i bigint;
    left_tokens bigint;
    step bigint;
    m bigint;
    wa bytea;
    wb bytea;
BEGIN
    IF corpus IS NULL OR pattern IS NULL THEN
        RETURN;
    END IF;
    c := termx._corpus(corpus);
    classes := coalesce(classes, true) OR c.shards = 1;
    -- A corpus indexed with --fold-case holds its text folded (termx/index/fold.py): fold the pattern the same
    -- way, character for character (@U@/@L@: every foldable character and its folded form).
    SELECT coalesce((x.params ->> 'fold_case')::boolean, false), coalesce((x.params ->> 'store_min_freq')::integer, 2)
    INTO fold, min_freq FROM termx.corpus x WHERE x.id = c.corpus_id;
    IF fold THEN
        pattern := translate(pattern, '@U@', '@L@');
    END IF;
    IF c.unit = 'word' THEN
        toks := termx.split_words(pattern);
        key := array_to_string(toks, ' ');
    ELSIF c.unit = 'char' THEN
        toks := string_to_array(pattern, NULL);
        key := pattern;
    ELSE
        key := pattern;
    END IF;
    n_tok := CASE WHEN c.unit = 'byte' THEN octet_length(convert_to(pattern, 'UTF8')) ELSE cardinality(toks) END;
    IF n_tok = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'empty pattern',
            HINT = 'give at least one token';
    END IF;
    -- Fast path: the first row whose rep (longest member, cut at rep_cap tokens) is >= the pattern; if that rep
    -- starts with the pattern, it is the pattern's class. Byte reps that begin inside a character start with
    -- U+FFFD, so such patterns take the exact path.
    probe := n_tok <= c.rep_cap AND NOT (c.unit = 'byte' AND starts_with(key, chr(65533)));
    key_prefix := CASE WHEN c.unit = 'word' THEN key || ' ' ELSE key END;  -- the class's rep is key or starts so
    IF c.unit <> 'byte' THEN  -- token ids are the corpus's, the same in every shard
        SELECT array_agg(v.token_id::bigint ORDER BY t.n) INTO ids
        FROM unnest(toks) WITH ORDINALITY AS t(tok, n)
        LEFT JOIN termx.vocab v ON v.corpus_id = c.corpus_id AND v.token = t.tok COLLATE "C";
    END IF;
    -- Over several shards, the keys of the shards' "does not occur" filters (ngram_filter.sql), tested where a
    -- shard's probe misses; a token the corpus does not use (not known) means the pattern occurs nowhere. On one
    -- shard the filter would save only a search for a pattern that occurs nowhere. SET termx.shard_filter = off
    -- ignores the filters (bench/bench_shards.py compares; the answers are the same).
    known := c.unit = 'byte' OR array_position(ids, NULL) IS NULL;
    use_filter := c.shards > 1 AND known
                  AND coalesce(current_setting('termx.shard_filter', true), '') <> 'off';
    IF use_filter THEN
        SELECT k.hashes, k.masks INTO hashes, masks
        FROM termx._ngram_keys(CASE WHEN c.unit = 'byte' THEN (
                 SELECT array_agg(get_byte(convert_to(pattern, 'UTF8'), g)::bigint ORDER BY g)
                 FROM generate_series(0, n_tok - 1) AS g) ELSE ids END) k;
    END IF;

    -- The shards, with the widths and chunk sizes of their token and suffix arrays. Per shard, one statement (not
    -- one for all shards: a lateral probe of the partitioned termx.class initialises every partition of the
    -- database at each call, 0.7 ms with 150 partitions) probes the shard's class table for the first rep >= the
    -- pattern (p); where that is not the pattern's class, a second one finds, for the exact path, the class of
    -- the longest prefix of the pattern that occurs twice: that prefix is shared with a rep, and the rep sharing
    -- most with the pattern is next to it in rep order: p or b (the last rep before the pattern). The other
    -- statements are planned once per session (plan_cache_mode, above: generic plans, no re-planning per call).
    -- remote: the shard's class table is a foreign table (a storage server's, servers.sql), where every statement is
    -- a remote scan (DECLARE, FETCH, CLOSE sent to that server): its shard filter is tested before the probe.
    FOR z IN SELECT s.id, s.shard_no, s.tokens, a.width, a.tok_chunk, a.sa_width, a.sa_chunk,
                    coalesce(r.relkind = 'f', false) AS remote
             FROM termx.shard s
             LEFT JOIN pg_class r ON r.relname = 'class_' || s.id AND r.relnamespace = 'termx'::regnamespace
             CROSS JOIN LATERAL (
                 SELECT max(right(x.dtype, 1)::integer) FILTER (WHERE x.name = 'tokens') AS width,
                        max(octet_length(x.data)) FILTER (WHERE x.name = 'tokens') AS tok_chunk,
                        max(right(x.dtype, 1)::integer) FILTER (WHERE x.name = 'sa') AS sa_width,
                        max(octet_length(x.data)) FILTER (WHERE x.name = 'sa') AS sa_chunk
                 FROM termx.index_array x WHERE x.shard_id = s.id AND x.name IN ('tokens', 'sa') AND x.chunk = 0) a
             WHERE s.corpus_id = c.corpus_id AND (only_shard IS NULL OR s.shard_no = only_shard)
             ORDER BY s.shard_no LOOP
        -- Every statement on a shard's classes reads the shard's own table, named from its id (never from input): a
        -- generic plan over the parent termx.class locks each of its partitions at every call and is re-planned
        -- when any of them changes, so with a thousand partitions in the database a call took 30-100x longer;
        -- a statement planned afresh on one table costs about 40 us.
        -- rep is COLLATE "C" (termx.class), so its comparisons with the key are in "C" without saying so; saying it
        -- on the parameter keeps postgres_fdw from shipping the condition and the LIMIT to a foreign shard's
        -- server (docs/scale-out.md, "When one PostgreSQL server is not enough").
        part := format('termx.%I', 'class_' || z.id);
        hit := false;
        prep := NULL;
        -- The filter ruling the pattern out proves it does not occur there (it has no false "no"), so the probe
        -- would miss: on a foreign shard that remote scan is saved; on a local one the probe is cheaper than the
        -- filter when it hits, so the filter waits for a miss.
        maybe := NULL;
        IF z.remote AND NOT known THEN  -- a token the corpus does not use: the pattern occurs nowhere
            maybe := false;
        ELSIF use_filter AND z.remote THEN
            maybe := (SELECT t.maybe FROM termx._ngram_maybe(z.id, hashes, masks) t);
        END IF;
        IF probe AND maybe IS NOT FALSE THEN  -- the statement kept bare: planning it is most of its cost (~30 us)
            EXECUTE 'SELECT k.i, k.j, k.freq, k.df, k.lbl, k.sil, k.rep FROM ' || part
                    || ' k WHERE k.rep >= $1 ORDER BY k.rep, k.sil LIMIT 1' INTO p USING key;
            prep := p.rep;
            hit := p.rep = key OR starts_with(p.rep, key_prefix);
        END IF;
        shard_no := z.shard_no;
        documents := c.documents;
        IF hit IS TRUE THEN
            occurs := true;
            i := p.i; j := p.j; freq := p.freq; df := p.df; lbl := p.lbl; sil := p.sil;
            shortest := NULL;
            longest := NULL;
            IF classes THEN
                shortest := termx._pattern_prefix(c.unit, pattern, toks, p.lbl + 1);
                longest := p.rep || CASE WHEN c.unit = 'byte' AND octet_length(p.rep) < least(p.sil, c.rep_cap, 1000)
                                         THEN chr(65533) ELSE '' END;
            END IF;
            RETURN NEXT;
            CONTINUE;
        END IF;

        -- Exact path: binary searches over the shard's stored suffix array, unless the shard's filter rules the
        -- pattern out (then it does not occur there; a token the corpus does not use: nowhere).
        IF use_filter AND maybe IS NULL THEN
            maybe := (SELECT t.maybe FROM termx._ngram_maybe(z.id, hashes, masks) t);
        END IF;
        IF NOT known OR maybe IS FALSE THEN
            i := NULL; j := NULL; freq := 0; df := array_fill(0, ARRAY[c.max_k]); lbl := NULL; sil := NULL;
            shortest := NULL; longest := NULL;
            RETURN NEXT;
            CONTINUE;
        END IF;
        -- The class of the pattern's longest prefix that occurs twice: two plain statements (never one with the
        -- prefix computed inside it), so postgres_fdw ships each whole to a foreign shard's server. Any class of a
        -- prefix of the pattern holds all its occurrences, so the interval only bounds the binary searches: on a
        -- foreign shard the rep before the pattern (which may share more with it than p) is not fetched, the
        -- prefix p shares with it (near_p) serves, and its class is p's own when it is one of p's members (longer
        -- than p's LBL: no statement at all).
        before_rep := NULL;
        IF probe AND NOT (z.remote AND prep IS NOT NULL) THEN
            EXECUTE 'SELECT k.rep FROM ' || part || ' k WHERE k.rep < $1 ORDER BY k.rep DESC, k.sil DESC LIMIT 1'
                INTO before_rep USING key;
        END IF;
        near_p := termx._common_prefix(c.unit, key, coalesce(prep, ''));
        near := CASE WHEN NOT probe THEN ''
                     WHEN char_length(near_p) > char_length(termx._common_prefix(c.unit, key, coalesce(before_rep, '')))
                     THEN near_p
                     ELSE termx._common_prefix(c.unit, key, coalesce(before_rep, '')) END;
        SELECT near AS near, NULL::integer AS near_i, NULL::integer AS near_j, NULL::text AS near_rep INTO q;
        own := false;
        IF near <> '' AND near = near_p THEN  -- then p is this shard's probe row (prep is not NULL)
            own := p.lbl < CASE WHEN c.unit = 'byte' THEN octet_length(convert_to(near, 'UTF8'))
                                WHEN c.unit = 'char' THEN char_length(near)
                                ELSE cardinality(string_to_array(near, ' ')) END;
        END IF;
        IF own IS TRUE THEN
            SELECT near AS near, p.i AS near_i, p.j AS near_j, p.rep AS near_rep INTO q;
        ELSIF near <> '' THEN
            EXECUTE 'SELECT $1 AS near, k.i AS near_i, k.j AS near_j, k.rep AS near_rep FROM ' || part
                    || ' k WHERE k.rep >= $1 ORDER BY k.rep, k.sil LIMIT 1' INTO q USING near;
        END IF;
        width := z.width; tok_chunk := z.tok_chunk; sa_width := z.sa_width; sa_chunk := z.sa_chunk;
        pat := NULL;
        IF c.unit = 'byte' THEN
            pat := convert_to(pattern, 'UTF8');
        ELSIF array_position(ids, NULL) IS NULL THEN  -- else a token the corpus never uses: freq 0
            pat := decode(repeat('00', n_tok * width), 'hex');
            FOR t IN 1 .. n_tok LOOP
                FOR x IN 0 .. width - 1 LOOP
                    pat := set_byte(pat, (t - 1) * width + x, ((ids[t] >> (8 * x)) & 255)::integer);
                END LOOP;
            END LOOP;
        END IF;

        first_rank := NULL;
        last_rank := NULL;
        IF pat IS NOT NULL THEN
            lo := 0;
            hi := z.tokens;
            IF q.near_rep = q.near OR starts_with(q.near_rep, CASE WHEN c.unit = 'word' THEN q.near || ' '
                                                                     ELSE q.near END) THEN
                lo := q.near_i;  -- a prefix occurs twice: its class's interval holds every occurrence
                hi := q.near_j + 1;
            END IF;
            top := hi;
            base := lo;
            sab := NULL;
            IF hi - lo <= 65536 THEN  -- read that part of the suffix array once
                sab := termx._bytes(z.id, 'sa', sa_chunk, lo * sa_width, (hi - lo) * sa_width);
            END IF;
            WHILE lo < hi LOOP
                mid := (lo + hi) / 2;
                IF termx._compare(z.id, tok_chunk, width,
                                  termx._pos(z.id, sa_chunk, sa_width, mid, base, sab), pat, ids) < 0 THEN
                    lo := mid + 1;
                ELSE
                    hi := mid;
                END IF;
            END LOOP;
            first_rank := lo;
            IF first_rank < top AND termx._compare(z.id, tok_chunk, width,
                                                  termx._pos(z.id, sa_chunk, sa_width, first_rank, base, sab),
                                                  pat, ids) = 0 THEN
                lo := first_rank + 1;
                hi := top;
                IF probe AND octet_length(convert_to(key, 'UTF8')) <= 1000 THEN
                    -- the probe missed, and a pattern of at most 1000 bytes is never cut from a rep: its class is
                    -- not stored, so it occurs fewer than min_freq times (once, when every repeat is stored)
                    hi := least(top, first_rank + min_freq - 1);
                END IF;
                WHILE lo < hi LOOP
                    mid := (lo + hi) / 2;
                    IF termx._compare(z.id, tok_chunk, width,
                                      termx._pos(z.id, sa_chunk, sa_width, mid, base, sab), pat, ids) <= 0 THEN
                        lo := mid + 1;
                    ELSE
                        hi := mid;
                    END IF;
                END LOOP;
                last_rank := lo - 1;
            END IF;
        END IF;

        IF last_rank IS NULL THEN
            i := NULL; j := NULL; freq := 0; df := array_fill(0, ARRAY[c.max_k]); lbl := NULL; sil := NULL;
            shortest := NULL; longest := NULL;
        ELSIF last_rank > first_rank AND last_rank - first_rank + 1 < min_freq THEN
            -- A cold class (2 <= freq < min_freq: no row): df_k from the documents of its suffixes; LBL from the
            -- suffixes beside the interval, as for a trivial class; SIL = the tokens the suffixes at the interval's
            -- two ends share up to the nearer document end (suffixes sorted: the least shared by any two in it).
            occurs := true;
            i := first_rank; j := last_rank; freq := last_rank - first_rank + 1;
            docs := '{}';
            FOR rk IN first_rank .. last_rank LOOP
                pos := termx._pos(z.id, sa_chunk, sa_width, rk, base, sab);
                SELECT x.doc_no, x.start, x.length INTO d FROM termx.document x
                WHERE x.corpus_id = c.corpus_id AND x.shard_id = z.id AND x.start <= pos
                ORDER BY x.start DESC LIMIT 1;
                docs := docs || d.doc_no;
                IF rk = first_rank THEN
                    pos_i := pos;
                    end_i := d.start + d.length;
                END IF;
            END LOOP;  -- pos and d: the suffix at last_rank
            SELECT array_agg((SELECT count(*) FROM (SELECT 1 FROM unnest(docs) AS u(doc) GROUP BY u.doc
                                                    HAVING count(*) >= g.k) h)::integer ORDER BY g.k)
            INTO df FROM generate_series(1, c.max_k) AS g(k);
            lbl := NULL; sil := NULL; shortest := NULL; longest := NULL;
            IF classes THEN
                lbl := greatest(
                    CASE WHEN first_rank > 0 THEN termx._shared(z.id, tok_chunk, width,
                        termx._pos(z.id, sa_chunk, sa_width, first_rank - 1, base, sab), pat) ELSE 0 END,
                    CASE WHEN last_rank + 1 < z.tokens THEN termx._shared(z.id, tok_chunk, width,
                        termx._pos(z.id, sa_chunk, sa_width, last_rank + 1, base, sab), pat) ELSE 0 END);
                sil := n_tok;
                left_tokens := least(end_i - pos_i, d.start + d.length - pos) - n_tok;
                step := 16;
                WHILE left_tokens > 0 LOOP  -- windows of doubling size, then a binary search in the one that differs
                    m := least(step, left_tokens);
                    wa := termx._bytes(z.id, 'tokens', tok_chunk, (pos_i + sil) * width, m * width);
                    wb := termx._bytes(z.id, 'tokens', tok_chunk, (pos + sil) * width, m * width);
                    IF wa = wb THEN
                        sil := sil + m;
                        left_tokens := left_tokens - m;
                        step := step * 2;
                    ELSE
                        lo := 0;
                        hi := m - 1;
                        WHILE lo < hi LOOP
                            mid := (lo + hi + 1) / 2;
                            IF substring(wa FROM 1 FOR (mid * width)::integer)
                               = substring(wb FROM 1 FOR (mid * width)::integer) THEN
                                lo := mid;
                            ELSE
                                hi := mid - 1;
                            END IF;
                        END LOOP;
                        sil := sil + lo;
                        EXIT;
                    END IF;
                END LOOP;
                shortest := termx._pattern_prefix(c.unit, pattern, toks, lbl + 1);
                longest := termx._text(c.corpus_id, c.unit, z.id, tok_chunk, width, pos_i, least(sil, c.rep_cap), 1000);
            END IF;
        ELSIF last_rank > first_rank THEN  -- a non-trivial class: its row, by primary key
            occurs := true;
            EXECUTE format($q$SELECT k.i, k.j, k.freq, k.df, k.lbl, k.sil, k.rep FROM %s k
                              WHERE k.i = $1 AND k.j = $2$q$, part)
            INTO r USING first_rank::integer, last_rank::integer;
            i := r.i; j := r.j; freq := r.freq; df := r.df; lbl := r.lbl; sil := r.sil;
            shortest := termx._pattern_prefix(c.unit, pattern, toks, r.lbl + 1);
            longest := r.rep || CASE WHEN c.unit = 'byte' AND octet_length(r.rep) < least(r.sil, c.rep_cap, 1000)
                                     THEN chr(65533) ELSE '' END;
        ELSE
            occurs := true;
            i := first_rank; j := first_rank; freq := 1; df := ARRAY[1] || array_fill(0, ARRAY[c.max_k - 1]);
            lbl := NULL; sil := NULL; shortest := NULL; longest := NULL;
            IF classes THEN
                -- A trivial class <i,i>: LBL = the most tokens a neighbouring suffix shares with the pattern,
                -- SIL = the suffix's length to its document end.
                pos := termx._pos(z.id, sa_chunk, sa_width, first_rank, base, sab);
                lbl := greatest(
                    CASE WHEN first_rank > 0 THEN termx._shared(z.id, tok_chunk, width,
                        termx._pos(z.id, sa_chunk, sa_width, first_rank - 1, base, sab), pat) ELSE 0 END,
                    CASE WHEN first_rank + 1 < z.tokens THEN termx._shared(z.id, tok_chunk, width,
                        termx._pos(z.id, sa_chunk, sa_width, first_rank + 1, base, sab), pat) ELSE 0 END);
                SELECT x.start, x.length INTO d FROM termx.document x
                WHERE x.corpus_id = c.corpus_id AND x.shard_id = z.id AND x.start <= pos
                ORDER BY x.start DESC LIMIT 1;
                sil := (d.start + d.length - pos)::integer;
                shortest := termx._pattern_prefix(c.unit, pattern, toks, lbl + 1);
                longest := termx._text(c.corpus_id, c.unit, z.id, tok_chunk, width, pos,
                                       least(d.start + d.length - pos, c.rep_cap), 1000);
            END IF;
        END IF;
        RETURN NEXT;
    END LOOP;
    -- A pattern that occurs in no shard may be longer than every document of the corpus: that is an error.
    IF NOT occurs AND n_tok > (SELECT max(x.length) FROM termx.document x WHERE x.corpus_id = c.corpus_id) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('the pattern has %s %s tokens, more than the longest document', n_tok, c.unit),
            HINT = 'it cannot occur in this corpus';
    END IF;
END
$fn$;
COMMENT ON FUNCTION termx._find_each(text, text, integer, boolean) IS
    'The class of a pattern in each shard of a corpus (or one shard): what termx._find sums and find_class_shards shows.';

-- Occurrences n of the suffix-array interval starting at rank i in one shard, in suffix-array order: rank, the
-- document (doc_no corpus-wide) and the offset in tokens from its start.
-- enable_bitmapscan = off (here and on _find_each): the document of a position is the last document starting at or
-- before it, which the generic plan otherwise fetches as a bitmap scan of every earlier document and a sort (0.1 ms
-- per 2,000 documents) instead of one backward step of document_start_idx (0.02 ms).
CREATE OR REPLACE FUNCTION termx._occurrences_shard(corpus_id integer, shard integer, i integer, n integer)
RETURNS TABLE (rank integer, doc_no integer, doc text, doc_offset bigint, shard_no integer)
LANGUAGE plpgsql STABLE STRICT SET enable_bitmapscan = off AS $fn$
#variable_conflict use_column
DECLARE
    z record;
    sa_width integer;
    sa_chunk bigint;
    b bytea;
    starts bigint[];
BEGIN
    IF n <= 0 THEN
        RETURN;
    END IF;
    SELECT s.shard_no, s.first_doc INTO z FROM termx.shard s WHERE s.id = shard;
    SELECT right(a.dtype, 1)::integer, octet_length(a.data) INTO sa_width, sa_chunk
    FROM termx.index_array a WHERE a.shard_id = shard AND a.name = 'sa' AND a.chunk = 0;
    b := termx._bytes(shard, 'sa', sa_chunk, i::bigint * sa_width, n::bigint * sa_width);
    IF n <= 1000 THEN  -- a few occurrences: one index probe each for the document
        RETURN QUERY
            SELECT i + g.k, x.doc_no, x.name, p.pos - x.start, z.shard_no
            FROM generate_series(0, n - 1) AS g(k)
            CROSS JOIN LATERAL (SELECT termx._int(b, g.k * sa_width, sa_width) AS pos) p
            CROSS JOIN LATERAL (SELECT y.doc_no, y.name, y.start FROM termx.document y
                                WHERE y.corpus_id = _occurrences_shard.corpus_id AND y.shard_id = shard
                                  AND y.start <= p.pos
                                ORDER BY y.start DESC LIMIT 1) x
            ORDER BY g.k;
        RETURN;
    END IF;
    -- many: one binary search each in the array of the shard's document starts
    SELECT array_agg(x.start ORDER BY x.doc_no) INTO starts FROM termx.document x
    WHERE x.corpus_id = _occurrences_shard.corpus_id AND x.shard_id = shard;
    RETURN QUERY
        SELECT i + g.k, x.doc_no, x.name, p.pos - x.start, z.shard_no
        FROM generate_series(0, n - 1) AS g(k)
        CROSS JOIN LATERAL (SELECT termx._int(b, g.k * sa_width, sa_width) AS pos) p
        JOIN termx.document x ON x.corpus_id = _occurrences_shard.corpus_id
                             AND x.doc_no = z.first_doc + width_bucket(p.pos, starts) - 1
        ORDER BY g.k;
END
$fn$;
COMMENT ON FUNCTION termx._occurrences_shard(integer, integer, integer, integer) IS
    'Occurrences of one shard''s suffix-array interval, in suffix-array order: rank, document, offset, shard.';
