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

-- The class of a pattern and the corpus's document count: what find_class and stats return. Over several shards
-- freq and df_1..df_K are the sums over the shards (disjoint sets of documents); a class <i,j>, LBL, SIL and the
-- shortest/longest member exist per shard only and are NULL (termx.find_class_shards shows them per shard).
-- The pattern is prepared once for all shards (termx._find_each).
CREATE OR REPLACE FUNCTION termx._find(corpus text, pattern text)
RETURNS TABLE (documents integer, i integer, j integer, freq integer, df integer[], lbl integer, sil integer,
               shortest text, longest text)
LANGUAGE plpgsql STABLE STRICT AS $fn$
DECLARE
    e record;
    n integer := 0;
BEGIN
    FOR e IN SELECT * FROM termx._find_each(corpus, pattern, NULL, false) LOOP
        n := n + 1;
        IF n = 1 THEN
            documents := e.documents; i := e.i; j := e.j; freq := e.freq; df := e.df; lbl := e.lbl; sil := e.sil;
            shortest := e.shortest; longest := e.longest;
        ELSE
            i := NULL; j := NULL; lbl := NULL; sil := NULL; shortest := NULL; longest := NULL;
            freq := freq + e.freq;
            FOR k IN 1 .. cardinality(df) LOOP
                df[k] := df[k] + e.df[k];
            END LOOP;
        END IF;
    END LOOP;
    IF n > 0 THEN
        RETURN NEXT;
    END IF;
END
$fn$;

CREATE OR REPLACE FUNCTION termx.find_class_shards(corpus text, pattern text)
RETURNS TABLE (shard_no integer, i integer, j integer, freq integer, df integer[], lbl integer, sil integer,
               shortest text, longest text)
LANGUAGE plpgsql STABLE STRICT AS $fn$
BEGIN
    RETURN QUERY SELECT f.shard_no, f.i, f.j, f.freq, f.df, f.lbl, f.sil, f.shortest, f.longest
                 FROM termx._find_each(corpus, pattern, NULL, true) f;
END
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

-- A batch: one bad pattern (empty, longer than every document: SQLSTATE 22023) does not abort the others; its row
-- has NULLs and an `error` naming its 1-based position and the pattern, quoted and cut to 40 characters (the
-- message the CLI and Python give, termx.lookup.pattern_failure). An unknown corpus is still an error of the call.
-- (Each pattern runs in its own subtransaction, the price of catching its error: a few microseconds.)
CREATE OR REPLACE FUNCTION termx.stats(corpus text, patterns text[])
RETURNS TABLE (pattern text, freq integer, df integer[], adaptation double precision,
               poisson_adaptation double precision, ridf double precision, i integer, j integer, lbl integer,
               sil integer, shortest text, longest text, error text)
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
            IF p IS NULL THEN  -- a NULL element still gets its row, of NULLs, so rows match elements
                RETURN QUERY SELECT NULL::text, NULL::integer, NULL::integer[], NULL::float8, NULL::float8,
                                    NULL::float8, NULL::integer, NULL::integer, NULL::integer, NULL::integer,
                                    NULL::text, NULL::text, NULL::text;
            ELSE
                RETURN QUERY SELECT s.*, NULL::text FROM termx.stats(corpus, p) s;
            END IF;
        EXCEPTION WHEN invalid_parameter_value THEN
            GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
            RETURN QUERY SELECT p, NULL::integer, NULL::integer[], NULL::float8, NULL::float8, NULL::float8,
                                NULL::integer, NULL::integer, NULL::integer, NULL::integer, NULL::text, NULL::text,
                                format('pattern %s %s: %s', n,
                                       quote_literal(CASE WHEN char_length(p) <= 40 THEN p
                                                          ELSE left(p, 39) || chr(8230) END),
                                       msg || coalesce(' (' || nullif(hint, '') || ')', ''));
        END;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION termx.stats(text, text[]) IS
    'termx.stats for several patterns, one row each, in order; a bad pattern''s row has NULLs and an error naming '
    'it and its position (a NULL pattern gives a row of NULLs).';

-- Over several shards the occurrences are merged in one global order, by document (doc_no) then offset, as the
-- library's concordance; rank is the suffix-array rank within the shard shard_no (a rank exists per shard only).
CREATE OR REPLACE FUNCTION termx.occurrences(corpus text, pattern text, max_rows integer DEFAULT NULL)
RETURNS TABLE (rank integer, doc_no integer, doc text, doc_offset bigint, shard_no integer)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    c record;
BEGIN
    c := termx._corpus(corpus);
    IF c.shards = 1 THEN  -- suffix-array order; only the first max_rows are read
        RETURN QUERY
            SELECT o.* FROM termx._find_each(corpus, pattern, NULL, false) f
            JOIN termx.shard z ON z.corpus_id = c.corpus_id AND z.shard_no = f.shard_no
            CROSS JOIN LATERAL termx._occurrences_shard(c.corpus_id, z.id, f.i,
                                                        least(f.freq, greatest(coalesce(max_rows, f.freq), 0))) o
            ORDER BY o.rank;
        RETURN;
    END IF;
    RETURN QUERY  -- every occurrence of every shard is located before the first max_rows are cut out
        SELECT o.* FROM termx._find_each(corpus, pattern, NULL, false) f
        JOIN termx.shard z ON z.corpus_id = c.corpus_id AND z.shard_no = f.shard_no
        CROSS JOIN LATERAL termx._occurrences_shard(c.corpus_id, z.id, f.i, f.freq) o
        ORDER BY o.doc_no, o.doc_offset
        LIMIT CASE WHEN max_rows < 0 THEN 0 ELSE max_rows END;
END
$fn$;
COMMENT ON FUNCTION termx.occurrences(text, text, integer) IS
    'Occurrences of a pattern (the first max_rows): rank and shard, document, offset in tokens; one shard: in '
    'suffix-array order, several: by document then offset.';

CREATE OR REPLACE FUNCTION termx.concordance(corpus text, pattern text, left_tokens integer DEFAULT 10,
                                  right_tokens integer DEFAULT 40, max_lines integer DEFAULT 100)
RETURNS TABLE (rank integer, doc text, doc_offset bigint, left_context text, match text, right_context text,
               shard_no integer)
LANGUAGE plpgsql STABLE STRICT AS $fn$
#variable_conflict use_column
DECLARE
    c record;
    sid integer;
    width integer;
    tok_chunk bigint;
    o record;
    d record;
    n_tok integer;
    pos bigint;
BEGIN
    c := termx._corpus(corpus);
    IF left_tokens < 0 OR right_tokens < 0 OR max_lines < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'context sizes and max_lines must be >= 0';
    END IF;
    n_tok := CASE c.unit WHEN 'byte' THEN octet_length(convert_to(pattern, 'UTF8'))
                         WHEN 'char' THEN char_length(pattern) ELSE cardinality(termx.split_words(pattern)) END;
    FOR o IN SELECT * FROM termx.occurrences(corpus, pattern, max_lines) LOOP
        IF o.shard_no IS DISTINCT FROM shard_no THEN  -- the token array of the line's shard
            SELECT z.id INTO sid FROM termx.shard z WHERE z.corpus_id = c.corpus_id AND z.shard_no = o.shard_no;
            SELECT right(a.dtype, 1)::integer, octet_length(a.data) INTO width, tok_chunk
            FROM termx.index_array a WHERE a.shard_id = sid AND a.name = 'tokens' AND a.chunk = 0;
        END IF;
        SELECT x.start, x.length INTO d FROM termx.document x WHERE x.corpus_id = c.corpus_id AND x.doc_no = o.doc_no;
        pos := d.start + o.doc_offset;
        rank := o.rank;
        doc := o.doc;
        doc_offset := o.doc_offset;
        shard_no := o.shard_no;
        left_context := termx._text(c.corpus_id, c.unit, sid, tok_chunk, width,
                                    greatest(d.start, pos - left_tokens), pos - greatest(d.start, pos - left_tokens),
                                    NULL, false);
        match := termx._text(c.corpus_id, c.unit, sid, tok_chunk, width, pos, n_tok);
        right_context := termx._text(c.corpus_id, c.unit, sid, tok_chunk, width, pos + n_tok,
                                     least(d.start + d.length, pos + n_tok + right_tokens) - pos - n_tok, NULL, false);
        RETURN NEXT;
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION termx.concordance(text, text, integer, integer, integer) IS
    'KWIC lines of a pattern (as termx concordance), contexts in tokens; one shard: in suffix-array order, '
    'several: by document then offset (rank within shard_no).';
