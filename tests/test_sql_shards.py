"""SQL look-ups and the sql/ analyst queries on corpora of several shards: per-string answers equal the one-shard
corpus and brute force, lines merge in the library's global order, per-shard notions are shown per shard."""

from __future__ import annotations

import json
import uuid
from collections import Counter

import numpy as np
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from termx.cli import app
from termx.index.ingest import Document
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.lookup import concordance, find_class, stats
from termx.storage.executors import pool_runner
from termx.storage.index_loader import load_shards
from termx.storage.shards import save_shards
from termx.storage.sqlfiles import run_sql

from .oracle import df_k, substring_occurrences, token_lists
from .test_lookup import as_pattern

KMAX = 3
IN_PROCESS = pool_runner(1)
ALPHABETS = {Unit.byte: "ab_é", Unit.char: "日本ab", Unit.word: ["the", "cat", "a", ".", "mat"]}


def _build(engine: Engine, groups: list[list[Document]], unit: Unit, min_freq: int = 2) -> str:
    name = f"q-{uuid.uuid4().hex[:12]}"
    save_shards(engine, name, groups, unit, KMAX, runner=IN_PROCESS, min_freq=min_freq)
    return name


def _rows(engine: Engine, query: str, **params: object) -> list[dict[str, object]]:
    with engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(sa.text(query), params)]


def _texts(unit: Unit, min_docs: int = 2) -> st.SearchStrategy[list[str]]:
    if unit is Unit.word:
        doc = st.lists(st.sampled_from(ALPHABETS[unit]), min_size=1, max_size=8).map(" ".join)
    else:
        doc = st.text(alphabet=ALPHABETS[unit], min_size=1, max_size=10)  # type: ignore[arg-type]
    return st.lists(doc, min_size=min_docs, max_size=7)


def _check(engine: Engine, texts: list[str], cuts: list[int], unit: Unit, min_freq: int = 2) -> None:
    """Per-string answers on one shard and on several, with class rows for freq >= `min_freq` only, against brute
    force and the library; the per-shard listings of the class table too when it holds every class."""
    docs = [Document(f"d{n}", t) for n, t in enumerate(texts)]
    points = sorted({c for c in cuts if 0 < c < len(docs)}) or [1]
    bounds = [0, *points, len(docs)]
    one = _build(engine, [docs], unit, min_freq)
    many = _build(engine, [docs[a:b] for a, b in zip(bounds, bounds[1:], strict=False)], unit, min_freq)
    sharded = load_shards(engine, many)
    occurrences = substring_occurrences(token_lists(texts, unit))
    subs = [s for s in occurrences if as_pattern(s, unit) is not None]
    frequent = sorted(subs, key=lambda s: (-len(occurrences[s]), repr(s)))[:6]
    cold = [s for s in subs if 2 <= len(occurrences[s]) < min_freq][:4]
    for sub in frequent + cold + [s for s in subs if len(occurrences[s]) == 1][:2]:
        pattern = as_pattern(sub, unit)
        assert pattern is not None
        occ = sorted(occurrences[sub])
        got = _rows(engine, "SELECT rank, doc_no, doc, doc_offset, shard_no FROM termx.occurrences(:c, :p)",
                    c=many, p=pattern)
        assert [(r["doc_no"], r["doc_offset"]) for r in got] == occ, (pattern, points)
        lines = concordance(sharded, pattern, 2, 3, limit=None)
        assert [(r["rank"], r["doc_no"], r["doc"], r["doc_offset"], r["shard_no"]) for r in got] == \
            [(x["rank"], x["doc_no"], x["doc"], x["offset"], x["shard_no"]) for x in lines]
        assert sorted((r["doc_no"], r["doc_offset"]) for r in _rows(
            engine, "SELECT * FROM termx.occurrences(:c, :p)", c=one, p=pattern)) == occ
        kwic = _rows(engine, "SELECT * FROM termx.concordance(:c, :p, 2, 3, 1000)", c=many, p=pattern)
        assert [(r["rank"], r["doc"], r["doc_offset"], r["left_context"], r["match"], r["right_context"],
                 r["shard_no"]) for r in kwic] == \
            [(x["rank"], x["doc"], x["offset"], x["left"], x["match"], x["right"], x["shard_no"]) for x in lines]
        first = _rows(engine, "SELECT doc_no, doc_offset FROM termx.occurrences(:c, :p, 2)", c=many, p=pattern)
        assert [(r["doc_no"], r["doc_offset"]) for r in first] == occ[:2]
        want = df_k(occ, KMAX)
        for k in (1, 2):
            per_doc = run_sql(engine, "documents_with_pattern", {"corpus": many, "pattern": pattern, "k": str(k)})
            assert len(per_doc) == want[k - 1]
            assert {r["doc_no"]: r["occurrences"] for r in per_doc} == \
                {d: c for d, c in Counter(d for d, _ in occ).items() if c >= k}
        [row] = run_sql(engine, "stats", {"corpus": many, "pattern": pattern})
        library = stats(sharded, [pattern])[0]
        assert (row["freq"], row["df"]) == (library["freq"], library["df"]) == (len(occ), want)
        assert row["shards"] == library["shards"]
        assert [(r["freq"], r["df"]) for r in run_sql(engine, "stats", {"corpus": one, "pattern": pattern})] == \
            [(len(occ), want)]
        per_shard = _rows(engine, "SELECT * FROM termx.find_class_shards(:c, :p) WHERE freq > 0", c=many, p=pattern)
        fields = ("i", "j", "freq", "df", "lbl", "sil", "shortest", "longest")
        assert [{k: r[k] for k in fields} for r in per_shard] == \
            [{k: x[k] for k in fields} for x in library["shards"]], pattern
    if min_freq == 2:
        _check_per_shard_queries(engine, many, sharded)


def _check_per_shard_queries(engine: Engine, name: str, shards: list[LoadedIndex]) -> None:
    """lcp_distribution, classes_with_prefix and most_adaptive answer per shard, each shard as its own build."""
    rows = run_sql(engine, "lcp_distribution", {"corpus": name})
    for s in shards:
        counts = np.bincount(np.asarray(s.lcp))
        assert {r["lcp"]: r["positions"] for r in rows if r["shard_no"] == s.shard_no and r["positions"]} == \
            {h: int(c) for h, c in enumerate(counts) if c}
        assert {r["lcp"]: r["classes"] for r in rows if r["shard_no"] == s.shard_no and r["classes"]} == \
            dict(Counter(int(x) for x in s.cls_sil))
    classes = sorted((s.shard_no, int(s.cls_i[k]), int(s.cls_sil[k]), s.cls_df[k].tolist())
                     for s in shards for k in range(len(s.cls_i)))
    got = run_sql(engine, "classes_with_prefix", {"corpus": name, "prefix": "", "limit": "100000"})
    assert sorted((r["shard_no"], r["i"], r["sil"], r["df"]) for r in got) == classes
    order = [(r["longest"].encode(), r["sil"], r["shard_no"]) for r in got]
    assert order == sorted(order)  # one order over all shards: longest member, SIL, shard
    adaptive = run_sql(engine, "most_adaptive", {"corpus": name, "min_df": "1", "limit": "100000"})
    assert sorted((r["shard_no"], r["lbl"], r["sil"], r["df"]) for r in adaptive) == \
        sorted((s.shard_no, int(s.cls_lbl[k]), int(s.cls_sil[k]), s.cls_df[k].tolist()) for s in shards
               for k in range(len(s.cls_i)))


cut_points = st.lists(st.integers(min_value=1, max_value=6), min_size=1, max_size=5)
settings_db = settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@settings_db
@given(data=st.data(), unit=st.sampled_from(list(Unit)), cuts=cut_points)
def test_sql_on_shards_is_the_one_shard_corpus_and_brute_force(engine: Engine, data: st.DataObject, unit: Unit,
                                                               cuts: list[int]) -> None:
    _check(engine, data.draw(_texts(unit)), cuts, unit)


@settings_db
@given(data=st.data(), unit=st.sampled_from(list(Unit)), cuts=cut_points, min_freq=st.sampled_from([3, 5]))
def test_sql_on_shards_with_cold_classes(engine: Engine, data: st.DataObject, unit: Unit, cuts: list[int],
                                         min_freq: int) -> None:
    """Classes rarer than `min_freq` have no row, and every answer is the same."""
    _check(engine, data.draw(_texts(unit)), cuts, unit, min_freq)


def test_worked_example_across_shards(engine: Engine) -> None:
    """docs/design.md's three documents, the third in a shard of its own: H (7; 3,2,1) in SQL, lines by document."""
    name = _build(engine, [[Document("a", "Hi_Ho_Hi_Ho"), Document("b", "Hi_Ho")], [Document("c", "Hi")]],
                  Unit.byte)
    [row] = _rows(engine, "SELECT freq, df, i, lbl FROM termx.stats(:c, 'H')", c=name)
    assert (row["freq"], row["df"], row["i"], row["lbl"]) == (7, [3, 2, 1], None, None)
    per_shard = _rows(engine, "SELECT shard_no, freq, df, i, j FROM termx.find_class_shards(:c, 'Hi_Ho')", c=name)
    assert [(r["shard_no"], r["freq"], r["df"]) for r in per_shard] == [(0, 3, [2, 1, 0]), (1, 0, [0, 0, 0])]
    lines = _rows(engine, "SELECT doc, doc_offset, match, right_context, shard_no "
                          "FROM termx.concordance(:c, 'Hi', 0, 2, 10)", c=name)
    assert [(r["doc"], r["doc_offset"], r["right_context"], r["shard_no"]) for r in lines] == \
        [("a", 0, "_H", 0), ("a", 6, "_H", 0), ("b", 0, "_H", 0), ("c", 0, "", 1)]


def test_class_command_shows_the_class_per_shard(engine: Engine, db_env: str) -> None:
    name = _build(engine, [[Document("a", "Hi_Ho_Hi_Ho"), Document("b", "Hi_Ho")], [Document("c", "Hi_Hi")]],
                  Unit.byte)
    r = CliRunner().invoke(app, ["class", name, "Hi", "--members", "--format", "json"])
    assert r.exit_code == 0, r.output
    shards = load_shards(engine, name)
    want = [find_class(s, "Hi") for s in shards]
    got = json.loads(r.stdout)
    assert [(c["shard_no"], c["i"], c["j"], c["freq"], c["lbl"], c["sil"]) for c in got] == \
        [(s.shard_no, m.i, m.j, m.freq, m.lbl, m.sil) for s, m in zip(shards, want, strict=True)]
    assert got[1]["members"] == ["H", "Hi"] and got[0]["members"] == ["Hi", "Hi_", "Hi_H", "Hi_Ho"]
    r = CliRunner().invoke(app, ["class", name, "Ho"])
    assert r.exit_code == 0 and "shard_no" in r.stdout  # only shard 0 holds it: one row
    assert len(json.loads(CliRunner().invoke(app, ["class", name, "Ho", "--format", "json"]).stdout)) == 1
