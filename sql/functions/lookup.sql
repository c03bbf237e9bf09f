-- lookup: termx.stats, termx.find_class, termx.occurrences, termx.concordance and their helpers, in SQL.
--
-- Applied by migration 0004_lookup after measures.sql (sql/functions/README.md: how these files are managed).
-- A pattern's class is found by one index probe on termx.class (rep, sil): the first row whose rep is >= the
-- pattern, if its rep starts with the pattern, is the pattern's class (docs/design.md "find_class in SQL";
-- the class's longest member is a prefix of every nested class's, so it sorts first). Every other pattern
-- (freq <= 1, longer than rep_cap, reps cut at 1000 bytes) is answered exactly by binary searches over the
-- stored suffix array (termx.index_array, read in small slices of the uncompressed chunks), narrowed first to
-- the class of the pattern's longest prefix that occurs twice. Nothing is built from user input: patterns and
-- corpus names are only ever values.
--
-- Markers, a letter between two at signs, are filled in when the file is applied (termx.storage.sqlfiles.
-- apply_function_file): W by the characters of Python's \w and S by those of \s, as PostgreSQL bracket-
-- expression contents, so that split_words tokenizes exactly as the word unit (termx/index/units.py) does;
-- U and L by the characters termx.index.fold folds and their folded forms (translate's two lists).
-- SQL-language functions are not STRICT so that the planner can inline them (NULL in still gives NULL out).

CREATE OR REPLACE FUNCTION termx.split_words(t text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
    SELECT coalesce(array_agg(m[1] ORDER BY n), '{}')
    FROM regexp_matches(t, '([@W@]+|[^@W@@S@])', 'g') WITH ORDINALITY AS r(m, n)
$fn$;
COMMENT ON FUNCTION termx.split_words(text) IS
    'Word tokens of a text exactly as the word unit indexes them (Python''s \w+|[^\w\s]).';

-- One corpus as the look-ups need it; a clear error for a missing name or a multi-shard corpus.
CREATE OR REPLACE FUNCTION termx._corpus_info(corpus_name text,
    OUT corpus_id integer, OUT shard_id integer, OUT unit text, OUT max_k integer, OUT documents integer,
    OUT rep_cap integer, OUT n bigint)
LANGUAGE plpgsql STABLE STRICT AS $fn$
DECLARE
    shards integer;
BEGIN
    SELECT c.id, c.unit, c.max_k, c.documents, c.rep_cap, s.shards, s.shard_id, s.tokens
    INTO corpus_id, unit, max_k, documents, rep_cap, shards, shard_id, n
    FROM termx.corpus c
    CROSS JOIN LATERAL (SELECT count(*) AS shards, min(z.id) AS shard_id, min(z.tokens) AS tokens
                        FROM termx.shard z WHERE z.corpus_id = c.id) s
    WHERE c.name = corpus_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_object', MESSAGE = format('no corpus named %L', corpus_name),
            HINT = 'SELECT name FROM termx.corpus lists them';
    ELSIF shards <> 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
            MESSAGE = format('corpus %L has %s shards; SQL look-ups need exactly one', corpus_name, shards);
    END IF;
END
$fn$;

-- One corpus as the multi-shard look-ups need it (termx._find sums over its shards); a clear error for a missing name.
CREATE OR REPLACE FUNCTION termx._corpus(corpus_name text,
    OUT corpus_id integer, OUT unit text, OUT max_k integer, OUT documents integer, OUT rep_cap integer,
    OUT shards integer)
LANGUAGE plpgsql STABLE STRICT AS $fn$
BEGIN
    SELECT c.id, c.unit, c.max_k, c.documents, c.rep_cap,
           (SELECT count(*) FROM termx.shard z WHERE z.corpus_id = c.id)
    INTO corpus_id, unit, max_k, documents, rep_cap, shards
    FROM termx.corpus c WHERE c.name = corpus_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_object', MESSAGE = format('no corpus named %L', corpus_name),
            HINT = 'SELECT name FROM termx.corpus lists them';
    END IF;
END
$fn$;

-- Little-endian integer of `width` bytes at byte offset `off` of b.
CREATE OR REPLACE FUNCTION termx._int(b bytea, off integer, width integer) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT CASE width
        WHEN 1 THEN get_byte(b, off)::bigint
        WHEN 2 THEN get_byte(b, off) + (get_byte(b, off + 1)::bigint << 8)
        WHEN 4 THEN get_byte(b, off) + (get_byte(b, off + 1)::bigint << 8)
                    + (get_byte(b, off + 2)::bigint << 16) + (get_byte(b, off + 3)::bigint << 24)
        ELSE get_byte(b, off) + (get_byte(b, off + 1)::bigint << 8)
             + (get_byte(b, off + 2)::bigint << 16) + (get_byte(b, off + 3)::bigint << 24)
             + (get_byte(b, off + 4)::bigint << 32) + (get_byte(b, off + 5)::bigint << 40)
             + (get_byte(b, off + 6)::bigint << 48) + (get_byte(b, off + 7)::bigint << 56) END
$fn$;

-- Bytes [off, off + len) of a stored array; the chunks are uncompressed, so only the slice is read.
CREATE OR REPLACE FUNCTION termx._bytes(shard integer, arr text, chunk_bytes bigint, off bigint, len bigint) RETURNS bytea
LANGUAGE plpgsql STABLE STRICT AS $fn$
DECLARE
    c0 integer := off / chunk_bytes;
    c1 integer := (off + greatest(len, 1) - 1) / chunk_bytes;
    r bytea;
BEGIN
    IF c0 = c1 THEN
        SELECT substring(a.data FROM (off - c0 * chunk_bytes + 1)::integer FOR len::integer) INTO r
        FROM termx.index_array a WHERE a.shard_id = shard AND a.name = arr AND a.chunk = c0;
    ELSE
        SELECT string_agg(substring(a.data FROM (greatest(off - a.chunk * chunk_bytes, 0) + 1)::integer
                                    FOR (least(off + len - a.chunk * chunk_bytes, chunk_bytes)
                                         - greatest(off - a.chunk * chunk_bytes, 0))::integer),
                          ''::bytea ORDER BY a.chunk) INTO r
        FROM termx.index_array a WHERE a.shard_id = shard AND a.name = arr AND a.chunk BETWEEN c0 AND c1;
    END IF;
    RETURN coalesce(r, ''::bytea);
END
$fn$;

-- UTF-8 bytes that may end inside a character: that partial character becomes U+FFFD (as Python's
-- decode(errors="replace") shows it).
-- With mark = false the partial character is dropped instead, and so are leading continuation bytes
-- (concordance contexts cut at arbitrary bytes).
CREATE OR REPLACE FUNCTION termx._utf8(b bytea, mark boolean DEFAULT true) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
DECLARE
    n integer := octet_length(b);
    k integer := octet_length(b) - 1;
    lead integer;
    need integer;
    s integer := 0;
BEGIN
    IF NOT mark THEN
        WHILE s < n AND (get_byte(b, s) & 192) = 128 LOOP
            s := s + 1;
        END LOOP;
        b := substring(b FROM s + 1);
        n := n - s;
        k := n - 1;
    END IF;
    WHILE k >= 0 AND n - k <= 4 AND (get_byte(b, k) & 192) = 128 LOOP
        k := k - 1;
    END LOOP;
    IF k >= 0 THEN
        lead := get_byte(b, k);
        need := CASE WHEN lead < 224 THEN 2 WHEN lead < 240 THEN 3 ELSE 4 END;
        IF lead >= 192 AND n - k < need THEN
            RETURN convert_from(substring(b FROM 1 FOR k), 'UTF8') || CASE WHEN mark THEN chr(65533) ELSE '' END;
        END IF;
    END IF;
    RETURN convert_from(b, 'UTF8');
END
$fn$;

-- Text of `len` tokens from token position pos (words joined by single spaces). With max_bytes, cut the
-- way the builder cuts a class's rep: whole tokens while the text fits in max_bytes bytes. `mark`: see _utf8.
CREATE OR REPLACE FUNCTION termx._text(corpus_id integer, unit text, shard integer, chunk_bytes bigint, width integer,
                            pos bigint, len bigint, max_bytes integer DEFAULT NULL, mark boolean DEFAULT true)
RETURNS text
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    b bytea;
    sep text := CASE WHEN unit = 'word' THEN ' ' ELSE '' END;
    r text;
BEGIN
    IF len <= 0 THEN
        RETURN '';
    END IF;
    IF unit = 'byte' THEN
        b := termx._bytes(shard, 'tokens', chunk_bytes, pos, least(len, coalesce(max_bytes, len)));
        RETURN termx._utf8(b, mark);
    END IF;
    b := termx._bytes(shard, 'tokens', chunk_bytes, pos * width, len * width);
    SELECT string_agg(t.token, sep ORDER BY t.k) INTO r
    FROM (SELECT g.k, v.token,
                 sum(octet_length(v.token) + CASE WHEN g.k > 0 THEN octet_length(sep) ELSE 0 END)
                     OVER (ORDER BY g.k) AS upto
          FROM generate_series(0, len - 1) AS g(k)
          JOIN termx.vocab v ON v.corpus_id = _text.corpus_id
                            AND v.token_id = termx._int(b, (g.k * width)::integer, width)) t
    WHERE max_bytes IS NULL OR t.upto <= max_bytes;
    RETURN coalesce(r, '');
END
$fn$;

-- The first m tokens of a pattern as text (a cut UTF-8 character shows as U+FFFD).
CREATE OR REPLACE FUNCTION termx._pattern_prefix(unit text, pattern text, toks text[], m integer) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT CASE unit
        WHEN 'byte' THEN termx._utf8(substring(convert_to(pattern, 'UTF8') FROM 1 FOR m))
        WHEN 'char' THEN left(pattern, m)
        ELSE array_to_string(toks[1:m], ' ') END
$fn$;

-- -1/0/+1: the suffix at text position pos against the pattern (pat: its tokens as stored, ids: as integers),
-- over the pattern's length; 0 ends every document, so a match never runs across documents.
CREATE OR REPLACE FUNCTION termx._compare(shard integer, tok_chunk bigint, width integer, pos bigint, pat bytea, ids bigint[])
RETURNS integer
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    win bytea := termx._bytes(shard, 'tokens', tok_chunk, pos * width, octet_length(pat));
    a bigint;
BEGIN
    IF win = pat THEN
        RETURN 0;
    ELSIF width = 1 THEN
        RETURN CASE WHEN win < pat THEN -1 ELSE 1 END;
    END IF;
    FOR t IN 1 .. cardinality(ids) LOOP
        a := termx._int(win, (t - 1) * width, width);
        IF a <> ids[t] THEN
            RETURN CASE WHEN a < ids[t] THEN -1 ELSE 1 END;
        END IF;
    END LOOP;
    RETURN 0;
END
$fn$;

-- Tokens the suffix at text position pos shares with the pattern (at most its length, never past a document end).
CREATE OR REPLACE FUNCTION termx._shared(shard integer, tok_chunk bigint, width integer, pos bigint, pat bytea) RETURNS integer
LANGUAGE plpgsql STABLE STRICT AS $fn$
DECLARE
    win bytea := termx._bytes(shard, 'tokens', tok_chunk, pos * width, octet_length(pat));
    t integer := 0;
BEGIN
    WHILE (t + 1) * width <= octet_length(win)
          AND substring(win FROM t * width + 1 FOR width) = substring(pat FROM t * width + 1 FOR width) LOOP
        t := t + 1;
    END LOOP;
    RETURN t;
END
$fn$;

-- Text position of the suffix at rank rnk, from sab (the suffix array's ranks base.. already read) when it holds it.
CREATE OR REPLACE FUNCTION termx._pos(shard integer, sa_chunk bigint, sa_width integer, rnk bigint, base bigint, sab bytea)
RETURNS bigint
LANGUAGE sql STABLE AS $fn$
    SELECT CASE WHEN sab IS NOT NULL AND rnk >= base AND (rnk - base + 1) * sa_width <= octet_length(sab)
                THEN termx._int(sab, ((rnk - base) * sa_width)::integer, sa_width)
                ELSE termx._int(termx._bytes(shard, 'sa', sa_chunk, rnk * sa_width, sa_width), 0, sa_width) END
$fn$;

-- The longest common prefix of two texts in whole tokens of the unit (word texts: tokens joined by one space).
CREATE OR REPLACE FUNCTION termx._common_prefix(unit text, a text, b text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
DECLARE
    x text[] := CASE WHEN unit = 'word' THEN string_to_array(a, ' ') ELSE string_to_array(a, NULL) END;
    y text[] := CASE WHEN unit = 'word' THEN string_to_array(b, ' ') ELSE string_to_array(b, NULL) END;
    n integer := 0;
BEGIN
    WHILE n < least(cardinality(x), cardinality(y)) AND x[n + 1] = y[n + 1] LOOP
        n := n + 1;
    END LOOP;
    RETURN array_to_string(x[1:n], CASE WHEN unit = 'word' THEN ' ' ELSE '' END);
END
$fn$;

-- The class of a pattern in one shard (shard_no) of a corpus and the corpus's document count.
CREATE OR REPLACE FUNCTION termx._find_shard(corpus text, shard_no integer, pattern text)
RETURNS TABLE (documents integer, i integer, j integer, freq integer, df integer[], lbl integer, sil integer,
               shortest text, longest text)
LANGUAGE plpgsql STABLE STRICT AS $fn$
#variable_conflict use_column
DECLARE
    c record;
    sid integer;
    sn bigint;
    toks text[];
    n_tok integer;
    key text;
    probe boolean;
    r record;
    near text;
    ids bigint[];
    pat bytea;
    width integer;
    tok_chunk bigint;
    sa_width integer;
    sa_chunk bigint;
    lo bigint := 0;
    hi bigint;
    top bigint;
    base bigint;
    sab bytea;
    mid bigint;
    first_rank bigint;
    last_rank bigint;
    pos bigint;
    d record;
    lbl_ integer;
BEGIN
    c := termx._corpus(corpus);
    -- A corpus indexed with --fold-case holds its text folded (termx/index/fold.py): fold the pattern the same
    -- way, character for character (@U@/@L@: every foldable character and its folded form).
    IF (SELECT (z.params ->> 'fold_case')::boolean FROM termx.corpus z WHERE z.id = c.corpus_id) THEN
        pattern := translate(pattern, '@U@', '@L@');
    END IF;
    SELECT z.id, z.tokens INTO sid, sn FROM termx.shard z WHERE z.corpus_id = c.corpus_id AND z.shard_no = _find_shard.shard_no;
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
    IF probe THEN
        SELECT k.i, k.j, k.freq, k.df, k.lbl, k.sil, k.rep INTO r FROM termx.class k
        WHERE k.shard_id = sid AND k.rep >= key COLLATE "C"
        ORDER BY k.rep, k.sil LIMIT 1;
        IF FOUND AND (r.rep = key OR starts_with(r.rep, CASE WHEN c.unit = 'word' THEN key || ' ' ELSE key END)) THEN
            RETURN QUERY SELECT c.documents, r.i, r.j, r.freq, r.df, r.lbl, r.sil,
                termx._pattern_prefix(c.unit, pattern, toks, r.lbl + 1),
                r.rep || CASE WHEN c.unit = 'byte' AND octet_length(r.rep) < least(r.sil, c.rep_cap, 1000)
                              THEN chr(65533) ELSE '' END;
            RETURN;
        END IF;
    END IF;

    -- Exact path: binary searches over the stored suffix array.
    SELECT right(a.dtype, 1)::integer, octet_length(a.data) INTO width, tok_chunk
    FROM termx.index_array a WHERE a.shard_id = sid AND a.name = 'tokens' AND a.chunk = 0;
    SELECT right(a.dtype, 1)::integer, octet_length(a.data) INTO sa_width, sa_chunk
    FROM termx.index_array a WHERE a.shard_id = sid AND a.name = 'sa' AND a.chunk = 0;
    IF c.unit = 'byte' THEN
        pat := convert_to(pattern, 'UTF8');
    ELSE
        SELECT array_agg(v.token_id::bigint ORDER BY t.n) INTO ids
        FROM unnest(toks) WITH ORDINALITY AS t(tok, n)
        LEFT JOIN termx.vocab v ON v.corpus_id = c.corpus_id AND v.token = t.tok COLLATE "C";
        IF array_position(ids, NULL) IS NULL THEN  -- else a token the corpus never uses: freq 0
            pat := decode(repeat('00', n_tok * width), 'hex');
            FOR t IN 1 .. n_tok LOOP
                FOR x IN 0 .. width - 1 LOOP
                    pat := set_byte(pat, (t - 1) * width + x, ((ids[t] >> (8 * x)) & 255)::integer);
                END LOOP;
            END LOOP;
        END IF;
    END IF;

    IF pat IS NOT NULL THEN
        hi := sn;
        IF probe THEN
            -- The longest prefix of the pattern that occurs twice is shared with a rep, and the rep sharing most
            -- with the pattern is next to it in rep order: r (the first rep >= it) or the last rep before it.
            SELECT k.rep INTO near FROM termx.class k
            WHERE k.shard_id = sid AND k.rep < key COLLATE "C"
            ORDER BY k.rep DESC, k.sil DESC LIMIT 1;
            near := termx._common_prefix(c.unit, key, coalesce(near, ''));
            IF r.rep IS NOT NULL AND char_length(termx._common_prefix(c.unit, key, r.rep)) > char_length(near) THEN
                near := termx._common_prefix(c.unit, key, r.rep);
            END IF;
            IF near <> '' THEN  -- a prefix of a rep occurs twice: its class's interval holds every occurrence
                SELECT k.i, k.j, k.rep INTO r FROM termx.class k
                WHERE k.shard_id = sid AND k.rep >= near COLLATE "C"
                ORDER BY k.rep, k.sil LIMIT 1;
                IF FOUND AND (r.rep = near
                              OR starts_with(r.rep, CASE WHEN c.unit = 'word' THEN near || ' ' ELSE near END)) THEN
                    lo := r.i;
                    hi := r.j + 1;
                END IF;
            END IF;
        END IF;
        top := hi;
        base := lo;
        IF hi - lo <= 65536 THEN  -- read that part of the suffix array once
            sab := termx._bytes(sid, 'sa', sa_chunk, lo * sa_width, (hi - lo) * sa_width);
        END IF;
        WHILE lo < hi LOOP
            mid := (lo + hi) / 2;
            IF termx._compare(sid, tok_chunk, width,
                              termx._pos(sid, sa_chunk, sa_width, mid, base, sab), pat, ids) < 0 THEN
                lo := mid + 1;
            ELSE
                hi := mid;
            END IF;
        END LOOP;
        first_rank := lo;
        IF first_rank < top AND termx._compare(sid, tok_chunk, width,
                                              termx._pos(sid, sa_chunk, sa_width, first_rank, base, sab),
                                              pat, ids) = 0 THEN
            lo := first_rank + 1;
            hi := top;
            WHILE lo < hi LOOP
                mid := (lo + hi) / 2;
                IF termx._compare(sid, tok_chunk, width,
                                  termx._pos(sid, sa_chunk, sa_width, mid, base, sab), pat, ids) <= 0 THEN
                    lo := mid + 1;
                ELSE
                    hi := mid;
                END IF;
            END LOOP;
            last_rank := lo - 1;
        END IF;
    END IF;

    IF last_rank IS NULL THEN
        IF n_tok > (SELECT max(x.length) FROM termx.document x WHERE x.corpus_id = c.corpus_id) THEN
            RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('the pattern has %s %s tokens, more than the longest document', n_tok, c.unit),
                HINT = 'it cannot occur in this corpus';
        END IF;
        RETURN QUERY SELECT c.documents, NULL::integer, NULL::integer, 0, array_fill(0, ARRAY[c.max_k]),
            NULL::integer, NULL::integer, NULL::text, NULL::text;
        RETURN;
    END IF;

    IF last_rank > first_rank THEN  -- a non-trivial class: its row, by primary key
        SELECT k.i, k.j, k.freq, k.df, k.lbl, k.sil, k.rep INTO r FROM termx.class k
        WHERE k.shard_id = sid AND k.i = first_rank AND k.j = last_rank;
        RETURN QUERY SELECT c.documents, r.i, r.j, r.freq, r.df, r.lbl, r.sil,
            termx._pattern_prefix(c.unit, pattern, toks, r.lbl + 1),
            r.rep || CASE WHEN c.unit = 'byte' AND octet_length(r.rep) < least(r.sil, c.rep_cap, 1000)
                          THEN chr(65533) ELSE '' END;
        RETURN;
    END IF;

    -- A trivial class <i,i>: LBL = the most tokens a neighbouring suffix shares with the pattern, SIL = the
    -- suffix's length to its document end.
    pos := termx._pos(sid, sa_chunk, sa_width, first_rank, base, sab);
    lbl_ := greatest(
        CASE WHEN first_rank > 0 THEN termx._shared(sid, tok_chunk, width,
            termx._pos(sid, sa_chunk, sa_width, first_rank - 1, base, sab), pat) ELSE 0 END,
        CASE WHEN first_rank + 1 < sn THEN termx._shared(sid, tok_chunk, width,
            termx._pos(sid, sa_chunk, sa_width, first_rank + 1, base, sab), pat) ELSE 0 END);
    SELECT x.start, x.length INTO d FROM termx.document x
    WHERE x.corpus_id = c.corpus_id AND x.shard_id = sid AND x.start <= pos ORDER BY x.start DESC LIMIT 1;
    RETURN QUERY SELECT c.documents, first_rank::integer, first_rank::integer, 1,
        ARRAY[1] || array_fill(0, ARRAY[c.max_k - 1]), lbl_, (d.start + d.length - pos)::integer,
        termx._pattern_prefix(c.unit, pattern, toks, lbl_ + 1),
        termx._text(c.corpus_id, c.unit, sid, tok_chunk, width, pos, least(d.start + d.length - pos, c.rep_cap),
                    1000);
END
$fn$;

-- The class of a pattern and the corpus's document count: what find_class and stats return. Over several shards
-- freq and df_1..df_K are the sums over the shards (disjoint sets of documents); a class <i,j>, LBL, SIL and the
-- shortest/longest member exist per shard only and are NULL (termx.find_class_shards shows them per shard).
CREATE OR REPLACE FUNCTION termx._find(corpus text, pattern text)
RETURNS TABLE (documents integer, i integer, j integer, freq integer, df integer[], lbl integer, sil integer,
               shortest text, longest text)
LANGUAGE plpgsql STABLE STRICT AS $fn$
#variable_conflict use_column
DECLARE
    c record;
BEGIN
    c := termx._corpus(corpus);
    IF c.shards = 1 THEN
        RETURN QUERY SELECT * FROM termx._find_shard(corpus, (SELECT min(z.shard_no) FROM termx.shard z
                                                              WHERE z.corpus_id = c.corpus_id), pattern);
        RETURN;
    END IF;
    RETURN QUERY
        WITH per AS MATERIALIZED (
            SELECT f.freq AS n, f.df AS d FROM termx.shard z
            CROSS JOIN LATERAL termx._find_shard(corpus, z.shard_no, pattern) f WHERE z.corpus_id = c.corpus_id)
        SELECT c.documents, NULL::integer, NULL::integer, (SELECT sum(per.n)::integer FROM per),
               (SELECT array_agg(t.v ORDER BY t.k) FROM (
                    SELECT e.k, sum(e.v)::integer AS v FROM per CROSS JOIN LATERAL unnest(per.d) WITH ORDINALITY AS e(v, k)
                    GROUP BY e.k) t),
               NULL::integer, NULL::integer, NULL::text, NULL::text;
END
$fn$;

CREATE OR REPLACE FUNCTION termx.find_class_shards(corpus text, pattern text)
RETURNS TABLE (shard_no integer, i integer, j integer, freq integer, df integer[], lbl integer, sil integer,
               shortest text, longest text)
LANGUAGE sql STABLE AS $fn$
    SELECT z.shard_no, f.i, f.j, f.freq, f.df, f.lbl, f.sil, f.shortest, f.longest
    FROM termx.corpus c JOIN termx.shard z ON z.corpus_id = c.id
    CROSS JOIN LATERAL termx._find_shard(corpus, z.shard_no, pattern) f
    WHERE c.name = corpus ORDER BY z.shard_no
$fn$;
COMMENT ON FUNCTION termx.find_class_shards(text, text) IS
    'The class of a pattern in each shard of a corpus: <i,j>, freq, df_1..df_K, LBL, SIL, members (per shard).';

CREATE OR REPLACE FUNCTION termx.find_class(corpus text, pattern text)
RETURNS TABLE (i integer, j integer, freq integer, df integer[], lbl integer, sil integer, shortest text,
               longest text)
LANGUAGE sql STABLE AS $fn$
    SELECT f.i, f.j, f.freq, f.df, f.lbl, f.sil, f.shortest, f.longest FROM termx._find(corpus, pattern) f
$fn$;
COMMENT ON FUNCTION termx.find_class(text, text) IS
    'The class of a pattern: <i,j>, freq, df_1..df_K, LBL, SIL, shortest and longest member (as termx class).';

CREATE OR REPLACE FUNCTION termx.stats(corpus text, pattern_text text)
RETURNS TABLE (pattern text, freq integer, df integer[], adaptation double precision,
               poisson_adaptation double precision, ridf double precision, i integer, j integer, lbl integer,
               sil integer, shortest text, longest text)
LANGUAGE sql STABLE AS $fn$
    SELECT pattern_text, f.freq, f.df, termx.adaptation(f.df), termx.poisson_adaptation(f.freq, f.documents),
           termx.ridf(f.df[1], f.freq, f.documents), f.i, f.j, f.lbl, f.sil, f.shortest, f.longest
    FROM termx._find(corpus, pattern_text) f
$fn$;
COMMENT ON FUNCTION termx.stats(text, text) IS
    'freq, df_1..df_K, adaptation, its Poisson prediction, RIDF and the class of a pattern (as termx stats).';

CREATE OR REPLACE FUNCTION termx.stats(corpus text, patterns text[])
RETURNS TABLE (pattern text, freq integer, df integer[], adaptation double precision,
               poisson_adaptation double precision, ridf double precision, i integer, j integer, lbl integer,
               sil integer, shortest text, longest text)
LANGUAGE sql STABLE AS $fn$
    -- LEFT JOIN: a NULL element (termx._find is STRICT) still gets its row, of NULLs, so rows match elements
    SELECT p.pattern_text, s.freq, s.df, s.adaptation, s.poisson_adaptation, s.ridf, s.i, s.j, s.lbl, s.sil,
           s.shortest, s.longest
    FROM unnest(patterns) WITH ORDINALITY AS p(pattern_text, n)
    LEFT JOIN LATERAL termx.stats(corpus, p.pattern_text) s ON true
    ORDER BY p.n
$fn$;
COMMENT ON FUNCTION termx.stats(text, text[]) IS
    'termx.stats for several patterns, one row each, in order (a NULL pattern gives a row of NULLs).';

CREATE OR REPLACE FUNCTION termx.occurrences(corpus text, pattern text, max_rows integer DEFAULT NULL)
RETURNS TABLE (rank integer, doc_no integer, doc text, doc_offset bigint)
LANGUAGE plpgsql STABLE AS $fn$
#variable_conflict use_column
DECLARE
    c record;
    f record;
    n integer;
    sa_width integer;
    sa_chunk bigint;
    b bytea;
    starts bigint[];
BEGIN
    c := termx._corpus_info(corpus);
    SELECT * INTO f FROM termx.find_class(corpus, pattern);
    n := least(f.freq, coalesce(max_rows, f.freq));
    IF coalesce(n, 0) <= 0 THEN
        RETURN;
    END IF;
    SELECT right(a.dtype, 1)::integer, octet_length(a.data) INTO sa_width, sa_chunk
    FROM termx.index_array a WHERE a.shard_id = c.shard_id AND a.name = 'sa' AND a.chunk = 0;
    b := termx._bytes(c.shard_id, 'sa', sa_chunk, f.i::bigint * sa_width, n::bigint * sa_width);
    IF n <= 1000 THEN  -- a few occurrences: one index probe each for the document
        RETURN QUERY
            SELECT f.i + g.k, x.doc_no, x.name, p.pos - x.start
            FROM generate_series(0, n - 1) AS g(k)
            CROSS JOIN LATERAL (SELECT termx._int(b, g.k * sa_width, sa_width) AS pos) p
            CROSS JOIN LATERAL (SELECT y.doc_no, y.name, y.start FROM termx.document y
                                WHERE y.corpus_id = c.corpus_id AND y.start <= p.pos
                                ORDER BY y.start DESC LIMIT 1) x
            ORDER BY g.k;
        RETURN;
    END IF;
    -- many: one binary search each in the array of document starts
    SELECT array_agg(x.start ORDER BY x.doc_no) INTO starts FROM termx.document x WHERE x.corpus_id = c.corpus_id;
    RETURN QUERY
        SELECT f.i + g.k, x.doc_no, x.name, p.pos - x.start
        FROM generate_series(0, n - 1) AS g(k)
        CROSS JOIN LATERAL (SELECT termx._int(b, g.k * sa_width, sa_width) AS pos) p
        JOIN termx.document x ON x.corpus_id = c.corpus_id AND x.doc_no = width_bucket(p.pos, starts) - 1
        ORDER BY g.k;
END
$fn$;
COMMENT ON FUNCTION termx.occurrences(text, text, integer) IS
    'Occurrences of a pattern in suffix-array order (the first max_rows): rank, document, offset in tokens.';

CREATE OR REPLACE FUNCTION termx.concordance(corpus text, pattern text, left_tokens integer DEFAULT 10,
                                  right_tokens integer DEFAULT 40, max_lines integer DEFAULT 100)
RETURNS TABLE (rank integer, doc text, doc_offset bigint, left_context text, match text, right_context text)
LANGUAGE plpgsql STABLE STRICT AS $fn$
#variable_conflict use_column
DECLARE
    c record;
    width integer;
    tok_chunk bigint;
    o record;
    d record;
    n_tok integer;
    pos bigint;
BEGIN
    c := termx._corpus_info(corpus);
    IF left_tokens < 0 OR right_tokens < 0 OR max_lines < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'context sizes and max_lines must be >= 0';
    END IF;
    SELECT right(a.dtype, 1)::integer, octet_length(a.data) INTO width, tok_chunk
    FROM termx.index_array a WHERE a.shard_id = c.shard_id AND a.name = 'tokens' AND a.chunk = 0;
    n_tok := CASE c.unit WHEN 'byte' THEN octet_length(convert_to(pattern, 'UTF8'))
                         WHEN 'char' THEN char_length(pattern) ELSE cardinality(termx.split_words(pattern)) END;
    FOR o IN SELECT * FROM termx.occurrences(corpus, pattern, max_lines) LOOP
        SELECT x.start, x.length INTO d FROM termx.document x WHERE x.corpus_id = c.corpus_id AND x.doc_no = o.doc_no;
        pos := d.start + o.doc_offset;
        rank := o.rank;
        doc := o.doc;
        doc_offset := o.doc_offset;
        left_context := termx._text(c.corpus_id, c.unit, c.shard_id, tok_chunk, width,
                                    greatest(d.start, pos - left_tokens), pos - greatest(d.start, pos - left_tokens),
                                    NULL, false);
        match := termx._text(c.corpus_id, c.unit, c.shard_id, tok_chunk, width, pos, n_tok);
        right_context := termx._text(c.corpus_id, c.unit, c.shard_id, tok_chunk, width, pos + n_tok,
                                     least(d.start + d.length, pos + n_tok + right_tokens) - pos - n_tok, NULL, false);
        RETURN NEXT;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION termx.concordance(text, text, integer, integer, integer) IS
    'KWIC lines of a pattern in suffix-array order (as termx concordance), contexts in tokens.';
