"""sql/*.sql and their runner: every file runs, each answers what the library answers, injection stays literal."""

from __future__ import annotations

import uuid
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from termx.cli import app
from termx.defaults import DEFAULT_STORE_MIN_FREQ
from termx.errors import CorpusNotFound, InputError, PatternError
from termx.index.ingest import Document
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.lookup import adaptation, concordance, member, stats
from termx.storage.db import downgrade, get_engine, upgrade
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents
from termx.storage.sqlfiles import list_sql, load_sql, run_sql, sql_dir
from termx.storage.statements import strip_comments as _strip_comments

TEXTS = ["the cat sat on the mat", "the cat ate the rat the end", "a mat, a cat", "the the the"]


@pytest.fixture(scope="module")
def corpus(engine) -> LoadedIndex:  # type: ignore[no-untyped-def]
    name = f"sql-{uuid.uuid4().hex[:8]}"
    # T = 2: every class has a row, which the analyst queries below list (they read termx.class)
    index_documents(engine, name, [Document(f"doc{n}", t) for n, t in enumerate(TEXTS)], Unit.byte, 3,
                    store_min_freq=2)
    return load_index(engine, name)


def test_listings_at_the_default_threshold_hold_the_classes_with_freq_at_least_t(engine) -> None:  # type: ignore[no-untyped-def]
    """At the default T (DEFAULT_STORE_MIN_FREQ) termx.class holds exactly the classes with freq >= T: what
    classes_with_prefix and most_adaptive (min_df >= T) list, as their headers and docs/scale-out.md say."""
    name = f"sql-{uuid.uuid4().hex[:8]}"
    index_documents(engine, name, [Document(f"doc{n}", t) for n, t in enumerate(TEXTS * 8)], Unit.byte, 3)
    index = load_index(engine, name)
    t = DEFAULT_STORE_MIN_FREQ
    assert t > 2
    rows = run_sql(engine, "classes_with_prefix", {"corpus": name, "prefix": "", "limit": "100000"})
    want = [c for c in _classes(index) if c["j"] - c["i"] + 1 >= t]
    assert want and len(want) < len(_classes(index))
    assert sorted((r["i"], r["j"]) for r in rows) == sorted((c["i"], c["j"]) for c in want)
    adaptive = run_sql(engine, "most_adaptive", {"corpus": name, "min_df": str(t), "limit": "100000"})
    assert len(adaptive) == sum(1 for c in _classes(index) if c["df"][0] >= t)


SAMPLES = {"pattern": "the", "prefix": "th", "k": "2", "min_df": "1", "min_len": "1", "max_len": "10", "top": "5",
           "limit": "10", "left": "3", "right": "3"}


def test_every_sql_file_runs(engine, corpus) -> None:  # type: ignore[no-untyped-def]
    files = list_sql()
    assert {"stats", "classes_with_prefix", "most_adaptive", "lcp_distribution", "documents_with_pattern",
            "concordance"} <= {f.name for f in files}
    for query in files:
        assert query.description, f"{query.name}.sql needs a first comment line saying what it does"
        values = {p: corpus.corpus.name if p == "corpus" else SAMPLES.get(p, "1") for p in query.params
                  if p not in query.defaults}  # "1" for other queries' ids and counts
        rows = run_sql(engine, query.name, values)
        assert isinstance(rows, list)


def test_stats_file_is_the_library(engine, corpus) -> None:  # type: ignore[no-untyped-def]
    for pattern in ("the", "the cat", "at", "rat the end", "dog", "a mat, a cat"):
        [row] = run_sql(engine, "stats", {"corpus": corpus.corpus.name, "pattern": pattern})
        want = {**stats(corpus, [pattern])[0], "shards": None}  # a one-shard corpus lists no shards
        assert row.keys() == want.keys()
        assert {k: v for k, v in row.items() if not isinstance(v, float)} == \
            {k: v for k, v in want.items() if not isinstance(v, float)}
        assert [row[k] for k in ("adaptation", "ridf")] == pytest.approx([want[k] for k in ("adaptation", "ridf")])


def _classes(index: LoadedIndex) -> list[dict]:  # type: ignore[type-arg]
    return [{"longest": member(index, int(index.cls_i[k]), int(index.cls_sil[k])), "i": int(index.cls_i[k]),
             "j": int(index.cls_j[k]), "sil": int(index.cls_sil[k]), "df": index.cls_df[k].tolist()}
            for k in range(len(index.cls_i))]


def test_classes_with_prefix(engine, corpus) -> None:  # type: ignore[no-untyped-def]
    for prefix in ("th", "the ", "a", "zz", "t"):
        rows = run_sql(engine, "classes_with_prefix", {"corpus": corpus.corpus.name, "prefix": prefix,
                                                       "limit": "1000"})
        want = sorted((c for c in _classes(corpus) if c["longest"].startswith(prefix)),
                      key=lambda c: (c["longest"].encode(), c["sil"]))
        assert [(r["i"], r["j"]) for r in rows] == [(c["i"], c["j"]) for c in want]
        if rows and stats(corpus, [prefix])[0]["freq"] >= 2:  # the prefix's own class comes first
            assert (rows[0]["i"], rows[0]["j"]) == (stats(corpus, [prefix])[0]["i"], stats(corpus, [prefix])[0]["j"])
    assert len(run_sql(engine, "classes_with_prefix", {"corpus": corpus.corpus.name, "prefix": "t"})) <= 100


def test_most_adaptive(engine, corpus) -> None:  # type: ignore[no-untyped-def]
    rows = run_sql(engine, "most_adaptive", {"corpus": corpus.corpus.name, "min_df": "2", "limit": "1000"})
    want = [c for c in _classes(corpus) if c["df"][0] >= 2]
    assert len(rows) == len(want)
    got = [r["adaptation"] for r in rows]
    assert got == sorted(got, reverse=True)
    assert sorted(got) == pytest.approx(sorted(adaptation(c["df"]) for c in want))
    assert all(r["df"][0] >= 2 and 0 <= r["poisson_adaptation"] <= 1 for r in rows)


def test_lcp_distribution_is_exact(engine, corpus) -> None:  # type: ignore[no-untyped-def]
    rows = run_sql(engine, "lcp_distribution", {"corpus": corpus.corpus.name})
    counts = np.bincount(np.asarray(corpus.lcp))
    assert {r["lcp"]: r["positions"] for r in rows if r["positions"]} == \
        {h: int(c) for h, c in enumerate(counts) if c}
    assert sum(r["positions"] for r in rows) == corpus.n
    sils = Counter(int(s) for s in corpus.cls_sil)
    assert {r["lcp"]: r["classes"] for r in rows if r["classes"]} == dict(sils)
    assert sum(r["share"] for r in rows) == pytest.approx(1, abs=1e-5)
    assert run_sql(engine, "lcp_distribution", {"corpus": "no such corpus"}) == []


def test_documents_with_pattern_counts_df_k(engine, corpus) -> None:  # type: ignore[no-untyped-def]
    for pattern in ("the", "at", "the the", "a", "dog"):
        per_doc = Counter(r["doc_no"] for r in concordance(corpus, pattern))
        row = stats(corpus, [pattern])[0]
        for k in (1, 2, 3):
            rows = run_sql(engine, "documents_with_pattern", {"corpus": corpus.corpus.name, "pattern": pattern,
                                                              "k": str(k)})
            assert {r["doc_no"]: r["occurrences"] for r in rows} == {d: c for d, c in per_doc.items() if c >= k}
            assert len(rows) == row["df"][k - 1]
            assert all(r["doc"] == f"doc{r['doc_no']}" for r in rows)


def test_documents_with_many_occurrences(engine) -> None:  # type: ignore[no-untyped-def]
    name = f"sql-many-{uuid.uuid4().hex[:8]}"
    texts = ["ab" * 700, "b a " * 300, "bbb", "a"]
    index_documents(engine, name, [Document(f"m{n}", t) for n, t in enumerate(texts)], Unit.byte, 2)
    index = load_index(engine, name)
    assert stats(index, ["a"])[0]["freq"] == 1001  # past 1000 rows the documents come from a binary search
    for k in (1, 2, 500):
        rows = run_sql(engine, "documents_with_pattern", {"corpus": name, "pattern": "a", "k": str(k)})
        want = {d: c for d, c in Counter(r["doc_no"] for r in concordance(index, "a")).items() if c >= k}
        assert {r["doc_no"]: r["occurrences"] for r in rows} == want
    with engine.connect() as conn:
        first = conn.execute(sa.text("SELECT rank, doc, doc_offset FROM termx.occurrences(:c, 'a', 3)"),
                             {"c": name}).all()
    assert [tuple(r) for r in first] == [(x["rank"], x["doc"], x["offset"]) for x in concordance(index, "a", 0, 0, 3)]


def test_concordance_file(engine, corpus) -> None:  # type: ignore[no-untyped-def]
    rows = run_sql(engine, "concordance", {"corpus": corpus.corpus.name, "pattern": "cat", "left": "4"})
    lines = concordance(corpus, "cat", 4, 40)
    assert [(r["rank"], r["doc"], r["doc_offset"], r["left_context"], r["match"], r["right_context"])
            for r in rows] == [(x["rank"], x["doc"], x["offset"], x["left"], x["match"], x["right"]) for x in lines]


INJECTIONS = ["x'; DROP TABLE termx.corpus; --", "'); DELETE FROM termx.class; --", "\" OR 1=1 --",
              "$fn$ SELECT 1 $fn$", ":corpus", "%s %(x)s {0}", "\\'; TRUNCATE termx.document; --"]


def _intact(engine) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    with engine.connect() as conn:
        return tuple(conn.execute(sa.text(f"SELECT count(*) FROM termx.{t}")).scalar_one()  # type: ignore[return-value]
                     for t in ("corpus", "class", "document"))


def test_injection_only_looks_up_literals(engine, db_env) -> None:  # type: ignore[no-untyped-def]
    evil = f"evil'); DROP TABLE termx.class; -- {uuid.uuid4().hex[:6]}"
    text = " ".join(INJECTIONS * 2)
    index_documents(engine, evil, [Document("d'; --", text)], Unit.char, 2)
    index = load_index(engine, evil)
    before = _intact(engine)
    for attack in INJECTIONS:
        with pytest.raises(CorpusNotFound):
            run_sql(engine, "stats", {"corpus": attack, "pattern": "x"})
        [row] = run_sql(engine, "stats", {"corpus": evil, "pattern": attack})
        assert row["pattern"] == attack and row["freq"] == 2 and row["df"] == [1, 1]
        assert row["freq"] == stats(index, [attack])[0]["freq"]
        with engine.connect() as conn:
            direct = conn.execute(sa.text("SELECT freq FROM termx.stats(:c, :p)"), {"c": evil, "p": attack}).scalar()
        assert direct == 2
        cli = CliRunner().invoke(app, ["sql", "stats", "-p", f"corpus={evil}", "-p", f"pattern={attack}",
                                       "--format", "json"])
        assert cli.exit_code == 0 and '"freq": 2' in cli.stdout
    assert _intact(engine) == before


def test_runner_binds_and_guards(engine, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    query = load_sql("concordance")
    assert query.params == ["corpus", "pattern", "left", "right", "limit"]
    assert query.defaults == {"left": "10", "right": "40", "limit": "100"}
    assert _strip_comments("SELECT '--not a comment' AS x -- :gone\n, 1") == "SELECT '--not a comment' AS x \n, 1"
    with pytest.raises(InputError, match="needs pattern"):
        run_sql(engine, "stats", {"corpus": corpus.corpus.name})
    with pytest.raises(InputError, match="has no parameter nope"):
        run_sql(engine, "stats", {"corpus": corpus.corpus.name, "pattern": "a", "nope": 1})
    with pytest.raises(PatternError, match="empty pattern"):
        run_sql(engine, "stats", {"corpus": corpus.corpus.name, "pattern": ""})
    with pytest.raises(InputError, match="no query named"):
        run_sql(engine, "../etc/passwd", {})
    writer = tmp_path / "writer.sql"
    writer.write_text("-- tries to write\nDELETE FROM termx.corpus WHERE name = :name\n", encoding="utf-8")
    with pytest.raises(InputError, match="read-only"):
        run_sql(engine, writer, {"name": corpus.corpus.name})
    assert load_index(engine, corpus.corpus.name).corpus.id == corpus.corpus.id
    own = tmp_path / "mine.sql"
    own.write_text("-- mine: a custom query\n-- :n  how many (default 3)\nSELECT g FROM generate_series(1, "
                   "CAST(:n AS integer)) g\n", encoding="utf-8")
    assert run_sql(engine, str(own)) == [{"g": 1}, {"g": 2}, {"g": 3}]
    assert run_sql(engine, own, {"n": 1}) == [{"g": 1}]
    assert load_sql(own).description == "a custom query"
    assert sql_dir().is_dir()


def test_migration_downgrades_and_upgrades(database_url: str) -> None:
    server = sa.engine.make_url(database_url)
    name = f"termx_mig_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        engine = get_engine(server.set(database=name).render_as_string(hide_password=False))

        def functions() -> int:
            with engine.connect() as conn:
                return conn.execute(sa.text("SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = "
                                            "p.pronamespace WHERE n.nspname = 'termx' AND p.proname IN "
                                            "('stats', 'find_class', 'occurrences', 'concordance')")).scalar_one()

        assert functions() == 7  # stats, find_class, concordance: one pattern and an array; occurrences
        downgrade(engine, "0001_core")  # below 0004_lookup and the revisions that re-apply lookup.sql
        assert functions() == 0
        upgrade(engine)
        assert functions() == 7
        engine.dispose()
    finally:
        get_engine.cache_clear()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()
