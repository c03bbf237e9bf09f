"""Corpora of several shards: statistics summed over shards equal the one-shard build and brute force, for every
distinct substring, whatever the cut points; --append in steps equals one build; a failed worker leaves nothing."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from termx.errors import BuildFailed, InputError
from termx.index.ingest import Document
from termx.index.sharding import cut_shards, parse_size
from termx.index.units import Unit
from termx.lookup import concordance, find_in_shards, stats
from termx.storage.executors import pool_runner
from termx.storage.index_loader import load_shards
from termx.storage.shards import save_shards

from .oracle import df_k, documents, substring_occurrences, token_lists

KMAX = 3
IN_PROCESS = pool_runner(1)


def _name() -> str:
    return f"s-{uuid.uuid4().hex[:12]}"


def _docs(texts: list[str]) -> list[Document]:
    return [Document(f"d{n}", t) for n, t in enumerate(texts)]


def _groups(docs: list[Document], cuts: list[int]) -> list[list[Document]]:
    """Documents cut before each position in `cuts` (positions outside 1..len-1 and repeats are ignored)."""
    points = sorted({c for c in cuts if 0 < c < len(docs)})
    bounds = [0, *points, len(docs)]
    return [docs[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def _pattern(sub: tuple[object, ...], unit: Unit) -> str:
    if unit is Unit.byte:
        return bytes(sub).decode("utf-8")  # type: ignore[arg-type]
    return (" " if unit is Unit.word else "").join(str(t) for t in sub)


def _sql_stats(engine: Engine, corpus: str, pattern: str) -> tuple[int, list[int]]:
    with engine.connect() as conn:
        row = conn.execute(sa.text("SELECT freq, df FROM termx.stats(:c, :p)"), {"c": corpus, "p": pattern}).one()
    return row[0], list(row[1])


def _check(engine: Engine, texts: list[str], cuts: list[int], unit: Unit) -> None:
    docs = _docs(texts)
    one, many = _name(), _name()
    save_shards(engine, one, [docs], unit, KMAX, runner=IN_PROCESS)
    groups = _groups(docs, cuts)
    save_shards(engine, many, groups, unit, KMAX, runner=IN_PROCESS)
    single, sharded = load_shards(engine, one), load_shards(engine, many)
    assert len(single) == 1 and len(sharded) == len(groups)
    occurrences = substring_occurrences(token_lists(texts, unit))
    for n, (sub, occ) in enumerate(occurrences.items()):
        pattern = _pattern(sub, unit)
        want = (len(occ), df_k(occ, KMAX))
        assert find_in_shards(sharded, pattern)[:2] == want, (pattern, groups)
        assert find_in_shards(single, pattern)[:2] == want, pattern
        if n % 7 == 0:  # the SQL function sums over the stored shards the same way
            assert _sql_stats(engine, many, pattern) == want, pattern
    total = sum(len(t) for t in token_lists(texts, unit))
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT tokens FROM termx.corpus WHERE name = :n"), {"n": many}).scalar() == total


cut_points = st.lists(st.integers(min_value=1, max_value=7), min_size=0, max_size=6)
settings_db = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.mark.parametrize("unit", list(Unit))
@settings_db
@given(data=st.data(), cuts=cut_points)
def test_shards_sum_to_brute_force(engine: Engine, unit: Unit, data: st.DataObject, cuts: list[int]) -> None:
    _check(engine, data.draw(documents(unit, max_docs=7)), cuts, unit)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.lists(st.sampled_from(["x", "cat", "b", "!", "mat", "zebra", "ant"]), min_size=1,
                               max_size=6).map(" ".join), min_size=2, max_size=7), cuts=cut_points,
       unit=st.sampled_from(list(Unit)))
def test_append_in_steps_equals_one_build(engine: Engine, texts: list[str], cuts: list[int], unit: Unit) -> None:
    """Each step adds one group as new shards; appended tokens get new ids, and every statistic still matches."""
    docs = _docs(texts)
    groups = _groups(docs, cuts)
    one, grown = _name(), _name()
    save_shards(engine, one, [docs], unit, KMAX, runner=IN_PROCESS)
    save_shards(engine, grown, [groups[0]], unit, KMAX, runner=IN_PROCESS)
    for steps, group in enumerate(groups[1:], 2):
        save_shards(engine, grown, [group], unit, KMAX, append=True, runner=IN_PROCESS)
        assert len(load_shards(engine, grown)) == steps  # a reader that loaded the last version gets the new one
    single, sharded = load_shards(engine, one), load_shards(engine, grown)
    assert len(sharded) == len(groups)
    for sub, occ in substring_occurrences(token_lists(texts, unit)).items():
        pattern = _pattern(sub, unit)
        assert find_in_shards(sharded, pattern)[:2] == find_in_shards(single, pattern)[:2] == (len(occ),
                                                                                                df_k(occ, KMAX))
    word = texts[-1].split()[0]
    lines = [(r["doc_no"], r["offset"], r["doc"]) for r in concordance(sharded, word, limit=None)]
    want = sorted((r["doc_no"], r["offset"], r["doc"]) for r in concordance(single, word, limit=None))
    assert (lines if len(sharded) > 1 else sorted(lines)) == want


def test_append_rejects_a_given_duplicate_id_and_renames_a_derived_name(engine: Engine) -> None:
    name = _name()
    save_shards(engine, name, [_docs(["ab ab", "b"])], Unit.byte, KMAX, runner=IN_PROCESS)
    with pytest.raises(InputError, match="'d1'"):
        save_shards(engine, name, [[Document("d1", "zz", given=True)]], Unit.byte, KMAX, append=True,
                    runner=IN_PROCESS)
    assert stats(load_shards(engine, name), ["ab"])[0]["freq"] == 2
    assert len(load_shards(engine, name)) == 1
    save_shards(engine, name, [[Document("d1", "ab"), Document("d1#2", "c")]], Unit.byte, KMAX, append=True,
                runner=IN_PROCESS)
    shards = load_shards(engine, name)
    assert [n for s in shards for n in s.doc_names] == ["d0", "d1", "d1#2", "d1#2#2"]
    assert stats(shards, ["ab"])[0]["freq"] == 3


def test_stats_json_of_several_shards_lists_classes_per_shard(engine: Engine) -> None:
    name = _name()
    save_shards(engine, name, [_docs(["Hi_Ho", "Hi"]), [Document("x", "Hi_Ho_Hi_Ho")]], Unit.byte, KMAX,
                runner=IN_PROCESS)
    row = stats(load_shards(engine, name), ["Hi_Ho"])[0]
    assert (row["freq"], row["df"], row["i"], row["lbl"]) == (3, [2, 1, 0], None, None)
    assert [(s["shard_no"], s["freq"]) for s in row["shards"]] == [(0, 1), (1, 2)]
    lines = concordance(load_shards(engine, name), "Hi", limit=None)
    assert [(r["doc_no"], r["offset"]) for r in lines] == [(0, 0), (1, 0), (2, 0), (2, 6)]


def test_cut_shards_and_sizes() -> None:
    docs = _docs(["aaaa", "bb", "c", "dddddddd", "e"])
    assert [[d.text for d in g] for g in cut_shards(docs, 6)] == [["aaaa", "bb"], ["c"], ["dddddddd"], ["e"]]
    assert cut_shards(docs, None) == [docs]
    assert [parse_size(s) for s in ("1kB", "64MB", "2GB", "5000", "1.5kB")] == [1000, 64_000_000, 2_000_000_000,
                                                                                 5000, 1500]
    with pytest.raises(InputError):
        parse_size("lots")


def _table_counts(engine: Engine) -> dict[str, object]:
    with engine.connect() as conn:
        counts: dict[str, object] = {t: conn.execute(sa.text(f"SELECT count(*) FROM termx.{t}")).scalar()
                                     for t in ("corpus", "shard", "document", "vocab", "index_array")}
        counts["tables"] = sorted(r[0] for r in conn.execute(sa.text(
            "SELECT relname FROM pg_class WHERE relnamespace = 'termx'::regnamespace AND relkind = 'r'")))
    return counts


def _termx(url: str, home: Path, *args: str, fault: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TERMX_DATABASE_URL": url, "TERMX_HOME": str(home)}
    env.pop("TERMX_FAULT", None)
    if fault:
        env["TERMX_FAULT"] = fault
    return subprocess.run([sys.executable, "-m", "termx", *args], env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def test_parallel_workers_store_the_same_and_a_killed_worker_leaves_nothing(
        engine: Engine, database_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    texts = ["the cat sat on the mat", "a cat", "mat mat", "the end", "sat on a mat", "cat the"] * 5
    for n, t in enumerate(texts):
        (folder / f"d{n:02}.txt").write_text(t, encoding="utf-8")
    home = tmp_path / "home"
    one, par = _name(), _name()
    assert _termx(database_url, home, "index", str(folder), "-c", one, "--unit", "word", "--quiet").returncode == 0
    r = _termx(database_url, home, "index", str(folder), "-c", par, "--unit", "word", "--shard-size", "100",
               "--workers", "2", "--quiet")
    assert r.returncode == 0, r.stderr
    listed = json.loads(_termx(database_url, home, "corpora", par, "--format", "json").stdout)
    assert listed[0]["shards"] >= 2
    for pattern in ("cat", "the cat", "mat mat", "on a", "sat"):
        assert find_in_shards(load_shards(engine, par), pattern)[:2] == \
            find_in_shards(load_shards(engine, one), pattern)[:2] == _sql_stats(engine, par, pattern)
    before = _table_counts(engine)
    for fault in ("kill:copy_classes", "kill:create_index"):
        r = _termx(database_url, home, "index", str(folder), "-c", par, "--unit", "word", "--shard-size", "100",
                   "--workers", "2", "--replace", fault=fault)
        assert r.returncode == 1
        assert r.stderr.strip().startswith("Error: a shard worker died") and len(r.stderr.strip().splitlines()) == 1
        assert _table_counts(engine) == before
        r = _termx(database_url, home, "index", str(folder), "-c", par, "--unit", "word", "--shard-size", "100",
                   "--workers", "2", "--append", fault=fault)
        assert r.returncode == 1 and _table_counts(engine) == before
    assert find_in_shards(load_shards(engine, par), "the cat")[:2] == _sql_stats(engine, one, "the cat")


@pytest.fixture
def dask_tmp(tmp_path: Path) -> Iterator[None]:
    """Dask's scratch files (its lock files, spilled data) under the test's tmp_path, not /tmp/dask-scratch-space."""
    dask = pytest.importorskip("dask")
    with dask.config.set({"temporary-directory": str(tmp_path)}):
        yield


@pytest.mark.usefixtures("dask_tmp")
def test_dask_local_cluster_stores_what_one_worker_stores(engine: Engine) -> None:
    distributed = pytest.importorskip("dask.distributed")
    from termx.storage.executors import dask_runner

    texts = ["the cat sat", "a cat", "mat mat mat", "the end of the cat"] * 3
    docs = _docs(texts)
    groups = [docs[:5], docs[5:7], docs[7:8], docs[8:9], docs[9:11], docs[11:]]  # more than the 2 tasks a worker gets
    one, on_dask = _name(), _name()
    save_shards(engine, one, groups, Unit.word, KMAX, runner=IN_PROCESS)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        save_shards(engine, on_dask, groups, Unit.word, KMAX, runner=dask_runner(cluster.scheduler_address))
    with engine.connect() as conn:
        rows = [conn.execute(sa.text(
            "SELECT s.shard_no, k.i, k.j, k.lbl, k.sil, k.freq, k.df, k.rep FROM termx.class k"
            " JOIN termx.shard s ON s.id = k.shard_id JOIN termx.corpus c ON c.id = s.corpus_id"
            " WHERE c.name = :n ORDER BY 1, 2, 3"), {"n": n}).all() for n in (one, on_dask)]
    assert rows[0] == rows[1] and len(rows[0]) > 0
    for pattern in ("cat", "mat mat", "the"):
        assert find_in_shards(load_shards(engine, on_dask), pattern)[:2] == _sql_stats(engine, one, pattern)


@pytest.mark.usefixtures("dask_tmp")
def test_a_failed_dask_task_fails_the_build_and_leaves_nothing(engine: Engine,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A task that raises (here while COPYing its class rows) ends the build with one BuildFailed line, and the
    database is as before: the replaced corpus stays whole, the staged rows and tables are gone."""
    distributed = pytest.importorskip("dask.distributed")
    from termx.storage.executors import dask_runner

    docs = _docs(["the cat sat", "a cat", "mat mat mat", "the end of the cat"] * 3)
    groups = [docs[:5], docs[5:9], docs[9:]]
    name = _name()
    save_shards(engine, name, groups, Unit.word, KMAX, runner=IN_PROCESS)
    before = _table_counts(engine)
    monkeypatch.setenv("TERMX_FAULT", "fail:copy_classes")  # the cluster's workers are threads of this process
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        for append in (False, True):
            with pytest.raises(BuildFailed) as failed:
                save_shards(engine, name, groups, Unit.word, KMAX, replace=not append, append=append,
                            runner=dask_runner(cluster.scheduler_address))
            assert str(failed.value).startswith("a Dask shard task failed, so the build was abandoned: fault "
                                                "injected at copy_classes")
            assert "\n" not in str(failed.value)
            assert _table_counts(engine) == before
    assert find_in_shards(load_shards(engine, name), "cat")[:2] == _sql_stats(engine, name, "cat") == (9, [9, 0, 0])


def test_a_dask_address_is_checked_before_anything_is_staged(engine: Engine) -> None:
    pytest.importorskip("dask.distributed")
    from termx.storage.executors import dask_runner

    with pytest.raises(InputError, match="not a scheduler address"):
        dask_runner("scheduler-without-port")
    with socket.socket() as s:  # a port nothing listens on once this socket is closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.perf_counter()
    with pytest.raises(BuildFailed, match=f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}"):
        dask_runner(f"tcp://127.0.0.1:{port}")
    assert time.perf_counter() - t0 < 10  # refused at once, not after the client's retries


def test_readers_during_append_see_the_old_corpus_then_the_new(engine: Engine, database_url: str,
                                                               tmp_path: Path) -> None:
    name = _name()
    save_shards(engine, name, [_docs(["ab ab", "b a"])], Unit.byte, KMAX, runner=IN_PROCESS)
    folder = tmp_path / "more"
    folder.mkdir()
    (folder / "new.txt").write_text("ab ab ab", encoding="utf-8")
    mark = tmp_path / "mark"
    env = {**os.environ, "TERMX_DATABASE_URL": database_url, "TERMX_HOME": str(tmp_path / "home"),
           "TERMX_FAULT": "sleep:staged:4", "TERMX_FAULT_MARK": str(mark)}
    proc = subprocess.Popen([sys.executable, "-m", "termx", "index", str(folder), "-c", name, "--append",
                             "--workers", "1", "--quiet"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        while not mark.exists():
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        # every shard is stored, the swap has not run: readers see the old corpus whole
        assert _sql_stats(engine, name, "ab") == (2, [1, 1, 0])
        assert find_in_shards(load_shards(engine, name), "ab")[:2] == (2, [1, 1, 0])
    finally:
        assert proc.wait(timeout=300) == 0
    assert _sql_stats(engine, name, "ab") == (5, [2, 2, 1])
    assert find_in_shards(load_shards(engine, name), "ab")[:2] == (5, [2, 2, 1])
    assert len(load_shards(engine, name)) == 2
