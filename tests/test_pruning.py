"""Every look-up touches one corpus's class partition: sql/*.sql by EXPLAIN ANALYZE (which partitions ran), the
(i, j) look-up by its generic plan, and the SQL functions by the partitions' scan counters (issue 11, item 10)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from termx.index.ingest import Document
from termx.storage import corpora as corpus_rows
from termx.storage.indexer import index_documents
from termx.storage.sqlfiles import list_sql

TEXTS = ["alpha beta gamma alpha beta delta", "beta gamma alpha beta alpha", "gamma delta alpha beta gamma"]


@pytest.fixture(scope="module")
def corpora(engine: Engine) -> Iterator[dict[str, int]]:
    """Three corpora; the tests read the first and check the others' partitions are never scanned."""
    names = [f"p{uuid.uuid4().hex[:8]}" for _ in range(3)]
    for k, name in enumerate(names):
        index_documents(engine, name, [Document(f"d{n}", t * (k + 1)) for n, t in enumerate(TEXTS)])
    with engine.connect() as conn:
        shards = dict(conn.execute(sa.text("SELECT c.name, s.id FROM termx.shard s JOIN termx.corpus c"
                                           " ON c.id = s.corpus_id WHERE c.name = ANY(:n)"), {"n": names}).all())
    yield {n: shards[n] for n in names}
    for n in names:
        corpus_rows.drop_corpus(engine, n)


def _executed(plan: dict[str, Any]) -> set[str]:
    """Tables of the plan's nodes that actually ran (pruned partitions show no loops)."""
    found = set()
    if plan.get("Relation Name") and plan.get("Actual Loops", 0) > 0:
        found.add(plan["Relation Name"])
    for child in plan.get("Plans", []):
        found |= _executed(child)
    return found


def _class_scans(conn: sa.Connection, shards: dict[str, int]) -> dict[str, int]:
    conn.execute(sa.text("SELECT pg_stat_clear_snapshot()"))
    rows = conn.execute(sa.text("SELECT relname, coalesce(seq_scan, 0) + coalesce(idx_scan, 0)"
                                " FROM pg_stat_user_tables WHERE schemaname = 'termx' AND relname = ANY(:r)"),
                        {"r": [f"class_{s}" for s in shards.values()]}).all()
    return dict(rows)  # type: ignore[arg-type]


@pytest.mark.parametrize("query", [q for q in list_sql() if "corpus" in q.params], ids=lambda q: q.name)
def test_every_sql_query_reads_one_corpus_partition(engine: Engine, corpora: dict[str, int], query: Any) -> None:
    name, other, _ = corpora
    values = {**query.defaults, "corpus": name, "prefix": "al", "pattern": "alpha", "reference": other}
    values = {p: values[p] for p in query.params}
    with engine.connect() as conn:
        plan = conn.execute(sa.text("EXPLAIN (ANALYZE, FORMAT JSON) " + query.statement), values).scalar_one()
    ran = {t for t in _executed(plan[0]["Plan"]) if t.startswith("class_")}
    assert ran <= {f"class_{corpora[name]}"}, ran
    if query.name in ("classes_with_prefix", "most_adaptive", "lcp_distribution"):
        assert ran == {f"class_{corpora[name]}"}  # they do read the classes, from that partition only


def test_i_j_lookup_is_an_index_probe_of_one_partition(engine: Engine, corpora: dict[str, int]) -> None:
    """The look-up termx._find makes for a non-trivial class, as its generic (parameterised) plan."""
    name = next(iter(corpora))
    shard = corpora[name]
    with engine.connect() as conn:
        i, j = conn.execute(sa.text(f"SELECT i, j FROM termx.class_{int(shard)} ORDER BY j - i DESC LIMIT 1")).one()
        conn.execute(sa.text("SET plan_cache_mode = force_generic_plan"))
        conn.execute(sa.text("SET enable_seqscan = off"))  # these partitions are tiny; big ones use the index
        conn.execute(sa.text("PREPARE ij(integer, integer, integer) AS SELECT k.freq FROM termx.class k"
                             " WHERE k.shard_id = $1 AND k.i = $2 AND k.j = $3"))
        plan = conn.execute(sa.text(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ij({int(shard)}, {int(i)},"
                                    f" {int(j)})")).scalar_one()
        conn.execute(sa.text("DEALLOCATE ij"))
    assert _executed(plan[0]["Plan"]) == {f"class_{shard}"}
    text = json.dumps(plan)
    assert f'"Index Name": "class_{shard}_i_j_idx"' in text


def test_sql_functions_scan_only_their_corpus_partition(engine: Engine, corpora: dict[str, int]) -> None:
    name = next(iter(corpora))
    patterns = ["alpha", "alpha beta", "gamma alpha", "zzz", "beta gamma alpha beta alpha"]
    engine.dispose()  # earlier sessions flush their pending scan counts as they exit
    time.sleep(1.0)
    with engine.connect() as conn:
        before = _class_scans(conn, corpora)
        conn.commit()
        for _ in range(8):  # past plpgsql's switch to generic plans
            conn.execute(sa.text("SELECT * FROM termx.stats(:c, CAST(:p AS text[]))"), {"c": name, "p": patterns})
            conn.execute(sa.text("SELECT * FROM termx.concordance(:c, 'alpha')"), {"c": name})
        conn.execute(sa.text("SELECT pg_stat_force_next_flush()"))
        conn.commit()
        after = _class_scans(conn, corpora)
    changed = {t for t in after if after[t] != before.get(t, 0)}
    assert changed == {f"class_{corpora[name]}"}


def test_stats_of_an_array_keeps_null_elements(engine: Engine, corpora: dict[str, int]) -> None:
    name = next(iter(corpora))
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT pattern, freq FROM termx.stats(:c, ARRAY['alpha', NULL, 'beta'])"),
                            {"c": name}).all()
    assert [r[0] for r in rows] == ["alpha", None, "beta"]
    assert rows[0][1] > 0 and rows[1][1] is None and rows[2][1] > 0
