-- classes: termx.classes lists every class under a prefix computed from the arrays, cold classes too.
--
-- Applied by migration 0026_store_min_freq after shards.sql (sql/functions/README.md: how these files are managed).
-- A corpus built with --store-min-freq T has rows in termx.class only for the classes with freq >= T; this lists
-- the classes whose longest member starts with a prefix (its tokens) at any freq, from the suffix array, documents
-- and tokens PostgreSQL holds (docs/design.md "find_class in SQL"), so it is the same at every T: the prefix's
-- interval <I,J> (termx._find_each), the LCP of each two neighbouring suffixes in it (token comparisons, clipped at
-- document ends), and the classes that LCP makes, found by the usual stack walk over it (docs/design.md "Intervals
-- and classes"). Its cost grows with the prefix's occurrences, so a prefix that occurs more than max_occurrences
-- times in a shard is an error (termx.class lists the hot classes of any prefix: sql/classes_with_prefix.sql).

-- Tokens the suffixes at text positions a and b share from token `from` on, at most up to token `upto`: windows
-- of doubling size are compared, then the one that differs is searched.
CREATE OR REPLACE FUNCTION termx._suffix_lcp(shard integer, tok_chunk bigint, width integer, a bigint, b bigint,
                                             "from" bigint, upto bigint)
RETURNS bigint
LANGUAGE plpgsql STABLE STRICT AS $fn$
DECLARE
    n bigint := "from";
    step bigint := 16;
    m bigint;
    wa bytea;
    wb bytea;
    lo bigint;
    hi bigint;
    mid bigint;
BEGIN
    WHILE n < upto LOOP
        m := least(step, upto - n);
        wa := termx._bytes(shard, 'tokens', tok_chunk, (a + n) * width, m * width);
        wb := termx._bytes(shard, 'tokens', tok_chunk, (b + n) * width, m * width);
        IF wa <> wb THEN
            lo := 0;
            hi := m - 1;
            WHILE lo < hi LOOP
                mid := (lo + hi + 1) / 2;
                IF substring(wa FROM 1 FOR (mid * width)::integer) = substring(wb FROM 1 FOR (mid * width)::integer)
                THEN
                    lo := mid;
                ELSE
                    hi := mid - 1;
                END IF;
            END LOOP;
            RETURN n + lo;
        END IF;
        n := n + m;
        step := step * 2;
    END LOOP;
    RETURN n;
END
$fn$;

CREATE OR REPLACE FUNCTION termx.classes(corpus text, prefix text, min_freq integer DEFAULT 2,
                                         max_occurrences integer DEFAULT 10000)
RETURNS TABLE (shard_no integer, i integer, j integer, freq integer, df integer[], lbl integer, sil integer,
               longest text)
LANGUAGE plpgsql STABLE SET enable_bitmapscan = off AS $fn$
#variable_conflict use_column
DECLARE
    c record;
    f record;
    z record;
    n_tok integer;
    lo bigint;
    hi bigint;
    sab bytea;
    pos bigint[];
    ends bigint[];
    docs integer[];
    lcp bigint[];
    d record;
    st_h bigint[];
    st_lb bigint[];
    sp integer;
    lb bigint;
    h bigint;
    top_lb bigint;
BEGIN
    IF corpus IS NULL OR prefix IS NULL THEN
        RETURN;
    END IF;
    c := termx._corpus(corpus);
    FOR f IN SELECT * FROM termx._find_each(corpus, prefix, NULL, true) e WHERE e.freq >= 2 LOOP
        IF f.freq > max_occurrences THEN
            RAISE EXCEPTION USING ERRCODE = 'program_limit_exceeded',
                MESSAGE = format('the prefix occurs %s times in shard %s, more than max_occurrences (%s)', f.freq,
                                 f.shard_no, max_occurrences),
                HINT = 'give a longer prefix or a larger max_occurrences; termx.class lists the stored classes';
        END IF;
        SELECT s.id, s.tokens, a.width, a.tok_chunk, a.sa_width, a.sa_chunk INTO z
        FROM termx.shard s
        CROSS JOIN LATERAL (
            SELECT max(right(x.dtype, 1)::integer) FILTER (WHERE x.name = 'tokens') AS width,
                   max(octet_length(x.data)) FILTER (WHERE x.name = 'tokens') AS tok_chunk,
                   max(right(x.dtype, 1)::integer) FILTER (WHERE x.name = 'sa') AS sa_width,
                   max(octet_length(x.data)) FILTER (WHERE x.name = 'sa') AS sa_chunk
            FROM termx.index_array x WHERE x.shard_id = s.id AND x.name IN ('tokens', 'sa') AND x.chunk = 0) a
        WHERE s.corpus_id = c.corpus_id AND s.shard_no = f.shard_no;
        n_tok := f.sil;  -- every neighbouring pair inside <I,J> shares at least the prefix's class's SIL tokens
        -- positions and documents of the ranks I-1 .. J+1 (those outside the shard left NULL)
        lo := greatest(f.i - 1, 0);
        hi := least(f.j + 1, z.tokens - 1);
        sab := termx._bytes(z.id, 'sa', z.sa_chunk, lo * z.sa_width, (hi - lo + 1) * z.sa_width);
        pos := '{}'; ends := '{}'; docs := '{}';
        FOR r IN f.i - 1 .. f.j + 1 LOOP
            IF r < lo OR r > hi THEN
                pos := pos || NULL::bigint; ends := ends || NULL::bigint; docs := docs || NULL::integer;
            ELSE
                pos := pos || termx._int(sab, ((r - lo) * z.sa_width)::integer, z.sa_width);
                SELECT x.doc_no, x.start + x.length AS doc_end INTO d FROM termx.document x
                WHERE x.corpus_id = c.corpus_id AND x.shard_id = z.id AND x.start <= pos[cardinality(pos)]
                ORDER BY x.start DESC LIMIT 1;
                ends := ends || d.doc_end; docs := docs || d.doc_no;
            END IF;
        END LOOP;
        -- lcp[k]: tokens shared by the suffixes at ranks I-2+k and I-1+k (k = 1: rank I-1 and I), clipped at document
        -- ends; 0 beyond the shard. Inside <I,J> at least the class's LBL + 1; outside it at most its LBL.
        lcp := '{}';
        FOR k IN 1 .. f.j - f.i + 2 LOOP
            IF pos[k] IS NULL OR pos[k + 1] IS NULL THEN
                lcp := lcp || 0::bigint;
            ELSE
                lcp := lcp || termx._suffix_lcp(z.id, z.tok_chunk, z.width, pos[k], pos[k + 1],
                                                CASE WHEN k = 1 OR k = f.j - f.i + 2 THEN 0 ELSE n_tok END,
                                                least(ends[k] - pos[k], ends[k + 1] - pos[k + 1]));
            END IF;
        END LOOP;
        -- The stack walk: lcp[k] for k = 2 .. J-I+2 (the last one leaves <I,J>) closes every interval deeper than it.
        st_h := ARRAY[-1]; st_lb := ARRAY[f.i]; sp := 1;
        FOR k IN 2 .. f.j - f.i + 2 LOOP
            lb := f.i + k - 2;  -- rank of the suffix before the pair's second
            WHILE lcp[k] < st_h[sp] LOOP
                h := st_h[sp]; top_lb := st_lb[sp]; sp := sp - 1;
                lb := top_lb;
                IF f.i + k - 2 - top_lb + 1 >= min_freq THEN
                    shard_no := f.shard_no;
                    i := top_lb; j := f.i + k - 2; freq := j - i + 1; sil := h;
                    lbl := greatest(lcp[top_lb - f.i + 1], lcp[k]);
                    SELECT array_agg((SELECT count(*) FROM (SELECT 1 FROM unnest(docs[i - f.i + 2 : j - f.i + 2])
                                                            AS u(doc) GROUP BY u.doc HAVING count(*) >= g.k) q)::integer
                                     ORDER BY g.k)
                    INTO df FROM generate_series(1, c.max_k) AS g(k);
                    longest := termx._text(c.corpus_id, c.unit, z.id, z.tok_chunk, z.width, pos[i - f.i + 2],
                                           least(h, c.rep_cap), 1000);
                    RETURN NEXT;
                END IF;
            END LOOP;
            IF lcp[k] > st_h[sp] THEN
                sp := sp + 1;
                st_h[sp] := lcp[k];
                st_lb[sp] := lb;
            END IF;
        END LOOP;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION termx.classes(text, text, integer, integer) IS
    'Every class with freq >= min_freq whose longest member starts with the prefix''s tokens, per shard, computed '
    'from the suffix array (the same whatever --store-min-freq): <i,j>, freq, df, LBL, SIL, longest member; '
    'ORDER BY longest COLLATE "C", sil for the order of classes_with_prefix.';
