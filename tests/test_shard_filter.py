"""The shards' n-gram filters (termx.index.ngramfilter, sql/functions/ngram_filter.sql): SQL hashes as Python
does, a filter never rules out a string its shard holds, and termx.stats on many shards stays exact with them
(brute force; the same answers with the filters ignored) for every unit, with patterns that straddle documents,
one-token patterns, patterns longer than any document and patterns longer than NGRAM_MAX tokens."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from termx.index import ngramfilter
from termx.index.build import build_shard
from termx.index.ingest import Document
from termx.index.suffix import permuted_lcp, rank_scan, suffix_array
from termx.index.units import Unit, split_words, tokenize
from termx.storage.executors import pool_runner
from termx.storage.indexer import index_documents
from termx.storage.shards import save_shards

from .oracle import df_k, substring_occurrences, token_lists
from .test_lookup import as_pattern

KMAX = 3
ALPHABETS = {Unit.byte: "ab_é", Unit.char: "日本ab", Unit.word: ["the", "cat", "a", ".", "mat"]}
settings_db = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _texts(unit: Unit, max_docs: int = 6) -> st.SearchStrategy[list[str]]:
    """Documents long enough to hold runs of more than NGRAM_MAX tokens, over few symbols."""
    if unit is Unit.word:
        doc = st.lists(st.sampled_from(ALPHABETS[unit]), min_size=1, max_size=14).map(" ".join)
    else:
        doc = st.text(alphabet=ALPHABETS[unit], min_size=1, max_size=14)  # type: ignore[arg-type]
    return st.lists(doc, min_size=1, max_size=max_docs)


def _tokens(pattern: str, unit: Unit) -> tuple[object, ...]:
    """A pattern as the oracle's token tuple."""
    if unit is Unit.byte:
        return tuple(pattern.encode())
    return tuple(pattern) if unit is Unit.char else tuple(split_words(pattern))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ids=st.lists(st.one_of(st.integers(1, 255), st.integers(1, 2**31 - 2)), min_size=1, max_size=40))
def test_sql_hashes_as_python(engine: Engine, ids: list[int]) -> None:
    with engine.connect() as conn:
        hashes, masks = conn.execute(sa.text("SELECT hashes, masks FROM termx._ngram_keys(CAST(:ids AS bigint[]))"),
                                     {"ids": ids}).one()
    keys = ngramfilter.pattern_keys(ids)
    assert hashes == [h for h, _ in keys]
    assert [m % 2**64 for m in masks] == [m for _, m in keys]  # SQL's bigint is signed
    assert len(keys) == (1 if len(ids) <= ngramfilter.NGRAM_MAX else
                         len({w * (len(ids) - ngramfilter.NGRAM_MAX) // (ngramfilter.MAX_WINDOWS - 1)
                              for w in range(ngramfilter.MAX_WINDOWS)}))


@settings(max_examples=40, deadline=None)
@given(data=st.data(), unit=st.sampled_from(list(Unit)))
def test_filter_holds_every_substring(data: st.DataObject, unit: Unit) -> None:
    """Every substring of every document (any length) passes its shard's filter; the filter's size follows the
    exact count of distinct runs of 1..NGRAM_MAX tokens."""
    texts = data.draw(_texts(unit))
    shard = build_shard([Document(f"d{n}", t) for n, t in enumerate(texts)], unit, KMAX)
    assert shard.ngram_filter is not None
    vocab = shard.tokens.vocab
    docs = token_lists(texts, unit)
    occurrences = substring_occurrences(docs)
    runs = {s for s in occurrences if len(s) <= ngramfilter.NGRAM_MAX}
    assert len(shard.ngram_filter) == max(1, -(-len(runs) * ngramfilter.BITS_PER_NGRAM // 64))
    for sub in occurrences:
        ids = list(sub) if unit is Unit.byte else [vocab.index(t) + 1 for t in sub]  # type: ignore[union-attr]
        assert ngramfilter.may_occur(shard.ngram_filter, ids), sub


def _filter_of_keys(n_words: int, runs: set[tuple[int, ...]]) -> np.ndarray:
    """The filter by its definition: each run's key (pattern_keys, as SQL tests it) sets its mask in its word."""
    words = np.zeros(n_words, dtype=np.uint64)
    for run in runs:
        ((h, mask),) = ngramfilter.pattern_keys(run)
        words[(h * n_words) >> 31] |= np.uint64(mask)
    return words


@settings(max_examples=40, deadline=None)
@given(data=st.data(), unit=st.sampled_from(list(Unit)), cap=st.sampled_from([None, 0, 1, 2]))
def test_filter_is_the_keys_of_its_runs(data: st.DataObject, unit: Unit, cap: int | None) -> None:
    """The build kernel sets exactly the bits of every distinct run's key, whether its keys wait in their write
    bucket or a full bucket (small `cap`) makes them set at once: filters stored before read the same way."""
    texts = data.draw(_texts(unit))
    ta = tokenize(texts, unit)
    sa_ = suffix_array(ta.tokens, len(texts))
    plcp = permuted_lcp(ta.tokens, sa_)
    words = ngramfilter.build_filter(ta.tokens, plcp, rank_scan(plcp, sa_, ta.doc_start, ta.doc_len).lcp,
                                     ta.doc_len, cap)
    runs = {tuple(int(t) for t in ta.tokens[s: s + n]) for s0, length in zip(ta.doc_start, ta.doc_len, strict=True)
            for s in range(s0, s0 + length) for n in range(1, min(ngramfilter.NGRAM_MAX, s0 + length - s) + 1)}
    assert words.tolist() == _filter_of_keys(len(words), runs).tolist()


def test_filter_of_many_write_buckets() -> None:
    """A filter of several write buckets (REGION_WORDS words each) equals the keys of its runs, with ample and
    with tiny buckets."""
    rng = np.random.default_rng(11)
    texts = ["".join(rng.choice(list("abcdefghij"), int(rng.integers(1000, 4000)))) for _ in range(12)]
    ta = tokenize(texts, Unit.byte)
    sa_ = suffix_array(ta.tokens, len(texts))
    plcp = permuted_lcp(ta.tokens, sa_)
    lcp = rank_scan(plcp, sa_, ta.doc_start, ta.doc_len).lcp
    ample = ngramfilter.build_filter(ta.tokens, plcp, lcp, ta.doc_len)
    assert len(ample) > 3 * ngramfilter.REGION_WORDS
    runs = {bytes(ta.tokens[s: s + n]) for s0, length in zip(ta.doc_start, ta.doc_len, strict=True)
            for s in range(s0, s0 + length) for n in range(1, min(ngramfilter.NGRAM_MAX, s0 + length - s) + 1)}
    want = _filter_of_keys(len(ample), {tuple(r) for r in runs}).tolist()
    assert ample.tolist() == want
    assert ngramfilter.build_filter(ta.tokens, plcp, lcp, ta.doc_len, 5).tolist() == want


def test_filter_rules_out_absent_runs() -> None:
    """A filter is not all ones: of 2,000 random absent runs, most are ruled out (about 1.6 % pass)."""
    rng = np.random.default_rng(7)
    text = "".join(rng.choice(list("abcdefgh"), 20_000))
    shard = build_shard([Document("d", text)], Unit.byte, KMAX)
    assert shard.ngram_filter is not None
    passed = sum(ngramfilter.may_occur(shard.ngram_filter, list(b"xyz" + bytes(rng.choice(list(b"abc"), 4))))
                 for _ in range(2000))
    assert passed < 200


def _build(engine: Engine, docs: list[Document], cuts: list[int], unit: Unit) -> str:
    points = sorted({c for c in cuts if 0 < c < len(docs)})
    bounds = [0, *points, len(docs)]
    name = f"f-{uuid.uuid4().hex[:12]}"
    save_shards(engine, name, [docs[a:b] for a, b in zip(bounds, bounds[1:], strict=False)], unit, KMAX,
                runner=pool_runner(1))
    return name


def _stats(engine: Engine, corpus: str, patterns: list[str], use_filter: bool) -> list[tuple[int, list[int]]]:
    with engine.connect() as conn:
        conn.execute(sa.text("SELECT set_config('termx.shard_filter', :v, false)"),
                     {"v": "on" if use_filter else "off"})
        rows = conn.execute(sa.text("SELECT freq, df FROM termx.stats(:c, CAST(:p AS text[]))"),
                            {"c": corpus, "p": patterns})
        return [(r.freq, r.df) for r in rows]


def _patterns(texts: list[str], unit: Unit, occurrences: dict[tuple[object, ...], list[tuple[int, int]]],
              extra: list[str]) -> list[str]:
    """Every distinct substring, what straddles two neighbouring documents (absent unless it also occurs
    inside one), single tokens of the alphabet and `extra`, as valid pattern texts."""
    joiner = " " if unit is Unit.word else ""
    subs = [p for s in occurrences if (p := as_pattern(s, unit)) is not None]
    straddling = []
    for a, b in zip(texts, texts[1:], strict=False):
        left = split_words(a) if unit is Unit.word else list(a)
        right = split_words(b) if unit is Unit.word else list(b)
        for k in range(1, min(len(left), 4) + 1):
            straddling.append(joiner.join(left[-k:] + right[: 5 - k]))
    singles = [str(t) for t in ALPHABETS[unit]]
    return list(dict.fromkeys(subs + straddling + singles + extra))


@settings_db
@given(data=st.data(), unit=st.sampled_from(list(Unit)),
       cuts=st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=5))
def test_stats_on_filtered_shards_are_exact(engine: Engine, data: st.DataObject, unit: Unit,
                                            cuts: list[int]) -> None:
    texts = data.draw(_texts(unit))
    extra = data.draw(st.lists(_texts(unit, 1).map(lambda t: t[0]), max_size=6))  # random, mostly absent
    docs = [Document(f"d{n}", t) for n, t in enumerate(texts)]
    name = _build(engine, docs, cuts, unit)
    occurrences = substring_occurrences(token_lists(texts, unit))
    longest = max(len(d) for d in token_lists(texts, unit))  # longer patterns are an error (the test below)
    patterns = [p for p in _patterns(texts, unit, occurrences, extra) if 0 < len(_tokens(p, unit)) <= longest]
    want = [(len(occurrences.get(_tokens(p, unit), [])), df_k(occurrences.get(_tokens(p, unit), []), KMAX))
            for p in patterns]
    assert _stats(engine, name, patterns, True) == want
    assert _stats(engine, name, patterns, False) == want


@pytest.mark.parametrize("unit", list(Unit))
def test_a_pattern_longer_than_every_document_is_still_an_error(engine: Engine, unit: Unit) -> None:
    joiner = " " if unit is Unit.word else ""
    words = [str(t) for t in ALPHABETS[unit]]
    docs = [Document("a", joiner.join(words[:2])), Document("b", joiner.join(words[1:3]))]
    name = _build(engine, docs, [1], unit)
    with engine.connect() as conn, pytest.raises(sa.exc.DBAPIError, match="more than the longest document"):
        conn.execute(sa.text("SELECT * FROM termx.stats(:c, :p)"), {"c": name, "p": joiner.join(words * 3)})


def test_filters_are_stored_and_rule_shards_out(engine: Engine) -> None:
    """Each shard stores its filter; a run only one shard holds is ruled out in the others, and a shard without a
    filter (built before it existed) is searched as before, with the same answer."""
    docs = [Document("a", "the cat sat on the mat"), Document("b", "a dog ran in the fog"),
            Document("c", "la plume de ma tante")]
    name = _build(engine, docs, [1, 2], Unit.byte)
    ids = list(b"dog ran")
    hashes = [h for h, _ in ngramfilter.pattern_keys(ids)]
    masks = [m - 2**64 if m >= 2**63 else m for _, m in ngramfilter.pattern_keys(ids)]
    query = sa.text("SELECT s.shard_no, f.maybe FROM termx.shard s JOIN termx.corpus c ON c.id = s.corpus_id"
                    " CROSS JOIN LATERAL termx._ngram_maybe(s.id, CAST(:h AS bigint[]), CAST(:m AS bigint[])) f"
                    " WHERE c.name = :c ORDER BY s.shard_no")
    with engine.begin() as conn:
        assert [tuple(r) for r in conn.execute(query, {"c": name, "h": hashes, "m": masks})] == \
            [(0, False), (1, True), (2, False)]
        conn.execute(sa.text("DELETE FROM termx.index_array a USING termx.shard s, termx.corpus c"
                             " WHERE a.shard_id = s.id AND s.corpus_id = c.id AND c.name = :c AND s.shard_no = 0"
                             " AND a.name = :n"), {"c": name, "n": ngramfilter.ARRAY})
        assert [tuple(r) for r in conn.execute(query, {"c": name, "h": hashes, "m": masks})] == \
            [(0, True), (1, True), (2, False)]
    occurrences = substring_occurrences(token_lists([d.text for d in docs], Unit.byte))
    patterns = ["dog ran", "the", "zebra", "a", "mat"]
    want = [(len(occ), df_k(occ, KMAX)) for occ in (occurrences.get(tuple(p.encode()), []) for p in patterns)]
    assert _stats(engine, name, patterns, True) == _stats(engine, name, patterns, False) == want
    with engine.begin() as conn:  # a filter of zeros rules everything out: termx.stats does consult the filters
        conn.execute(sa.text("UPDATE termx.index_array a SET data = decode(repeat('00', octet_length(a.data)), 'hex')"
                             " FROM termx.shard s, termx.corpus c WHERE a.shard_id = s.id AND s.corpus_id = c.id"
                             " AND c.name = :c AND a.name = :n"), {"c": name, "n": ngramfilter.ARRAY})
    assert _stats(engine, name, ["dog ran"], True) == [(0, [0, 0, 0])]
    assert _stats(engine, name, ["dog ran"], False) == want[:1]



def test_filters_in_many_chunks(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """A filter stored in chunks of 16 bytes (two words) is read from the chunk holding each word: same answers."""
    monkeypatch.setattr("termx.storage.corpora.FILTER_CHUNK_BYTES", 16)
    rng = np.random.default_rng(3)
    texts = ["".join(rng.choice(list("abcé_"), int(rng.integers(5, 40)))) for _ in range(12)]
    name = _build(engine, [Document(f"d{n}", t) for n, t in enumerate(texts)], [4, 8], Unit.char)
    with engine.connect() as conn:
        chunks = conn.execute(sa.text("SELECT max(a.chunk) FROM termx.index_array a JOIN termx.shard s"
                                      " ON s.id = a.shard_id JOIN termx.corpus c ON c.id = s.corpus_id"
                                      " WHERE c.name = :c AND a.name = :n"),
                              {"c": name, "n": ngramfilter.ARRAY}).scalar()
    assert chunks > 2
    occurrences = substring_occurrences(token_lists(texts, Unit.char))
    extra = ["".join(rng.choice(list("abcé_"), int(rng.integers(1, 12)))) for _ in range(200)]
    patterns = _patterns(texts, Unit.char, occurrences, extra)
    want = [(len(occ), df_k(occ, KMAX)) for occ in (occurrences.get(tuple(p), []) for p in patterns)]
    assert _stats(engine, name, patterns, True) == _stats(engine, name, patterns, False) == want


def test_a_one_shard_corpus_has_no_filter_and_appending_to_it_stays_exact(engine: Engine) -> None:
    """Only a corpus of several shards reads filters, so a one-shard build skips it; shards appended later get
    theirs, and the first shard (none) is searched: the stats equal brute force."""
    first = [Document("a", "the cat sat on the mat"), Document("b", "a dog ran in the fog")]
    more = [Document("c", "la plume de ma tante"), Document("d", "the dog sat")]
    name = f"f-{uuid.uuid4().hex[:12]}"
    index_documents(engine, name, first, Unit.byte, KMAX)
    index_documents(engine, name, more, Unit.byte, KMAX, append=True, shard_size=1 << 20, runner=pool_runner(1))
    with engine.connect() as conn:
        stored = conn.execute(sa.text("SELECT s.shard_no, count(a.shard_id) > 0 FROM termx.shard s"
                                      " JOIN termx.corpus c ON c.id = s.corpus_id LEFT JOIN termx.index_array a"
                                      " ON a.shard_id = s.id AND a.name = :n WHERE c.name = :c"
                                      " GROUP BY s.shard_no ORDER BY s.shard_no"),
                              {"c": name, "n": ngramfilter.ARRAY}).all()
    assert [tuple(r) for r in stored] == [(0, False), (1, True)]
    texts = [d.text for d in first + more]
    occurrences = substring_occurrences(token_lists(texts, Unit.byte))
    patterns = ["dog", "the", "cat sat", "plume", "zebra", "sat"]
    want = [(len(occ), df_k(occ, KMAX)) for occ in (occurrences.get(tuple(p.encode()), []) for p in patterns)]
    assert _stats(engine, name, patterns, True) == _stats(engine, name, patterns, False) == want
