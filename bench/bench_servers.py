"""Foreign shards against local ones (issue 30, docs/scale-out.md "When one PostgreSQL server is not enough"):
build + load wall time and `termx.stats` p50/p99 through postgres_fdw foreign partitions vs the same shards local.

Loopback: the coordinator and --servers storage databases are fresh databases on the one --db server (created and
dropped here; the storage servers are registered with `add_server` as postgres_fdw servers pointing back at it).
The first --mb MB of Reuters + man pages (bench/bench_index.py's prefixes), byte unit, cut into --shards shards:
the first half built, the second half appended; locally, and with each half's class rows on its own storage
server. Then --patterns random substrings of 2-12 bytes are looked up with `SELECT * FROM termx.stats(corpus,
pattern)`, the two corpora taking turns pattern by pattern on two connections (so load changes fall on both
alike); every answer is checked equal. Run:
  .venv/bin/python bench/bench_servers.py --mb 1 --shards 4 --patterns 200
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import numpy as np
import psycopg
from _data import random_patterns
from bench_index import load_documents
from psycopg import sql

from termx.index.ingest import Document
from termx.index.sharding import cut_shards
from termx.index.units import Unit
from termx.storage.db import get_engine, resolve_url
from termx.storage.executors import pool_runner
from termx.storage.servers import add_server
from termx.storage.shards import save_shards

DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/test"
RESULTS = Path(__file__).resolve().parent / "results"


@contextmanager
def database(server_url: str, suffix: str) -> Iterator[str]:
    """A fresh database termx_bench_<pid>_<suffix> on the --db server (dropped afterwards): its URL."""
    plain = resolve_url(server_url).set(drivername="postgresql")
    name = f"termx_bench_{os.getpid()}_{suffix}"
    admin = plain.render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield plain.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def build(url: str, name: str, halves: list[list[list[Document]]], servers: list[str | None]) -> float:
    """Seconds to build the first half's shards and append the second's (on `servers[k]` when given)."""
    engine = get_engine(url)
    t0 = time.perf_counter()
    for k, (groups, server) in enumerate(zip(halves, servers, strict=True)):
        save_shards(engine, name, groups, Unit.byte, 4, runner=pool_runner(2), append=k > 0, server=server)
    return time.perf_counter() - t0


def timed_stats(url: str, corpora: list[str], pats: list[str]) -> dict[str, list[float]]:
    """Milliseconds of each termx.stats call per corpus, the corpora taking turns (order alternating)."""
    times: dict[str, list[float]] = {c: [] for c in corpora}
    with ExitStack() as stack:
        conns = {c: stack.enter_context(psycopg.connect(url, autocommit=True)) for c in corpora}
        for c in corpora:  # warm: plans, the foreign connection, caches
            for p in pats[:10]:
                conns[c].execute("SELECT * FROM termx.stats(%s, %s)", (c, p)).fetchall()
        for n, p in enumerate(pats):
            answers = []
            for c in corpora if n % 2 == 0 else corpora[::-1]:
                t0 = time.perf_counter()
                rows = conns[c].execute("SELECT * FROM termx.stats(%s, %s)", (c, p)).fetchall()
                times[c].append((time.perf_counter() - t0) * 1000)
                answers.append(rows)
            assert answers[0] == answers[1], (p, answers)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=os.environ.get("TERMX_DATABASE_URL", DEFAULT_DB))
    parser.add_argument("--mb", type=float, default=1.0)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--patterns", type=int, default=200)
    args = parser.parse_args()
    docs = load_documents(args.mb)
    size = sum(len(d.text.encode()) for d in docs)
    groups = [list(g) for g in cut_shards(docs, size // args.shards + 1)]
    halves = [groups[: len(groups) // 2], groups[len(groups) // 2:]]
    with database(args.db, "coord") as coord, database(args.db, "s0") as s0, database(args.db, "s1") as s1:
        engine = get_engine(coord)
        for name, url in (("s0", s0), ("s1", s1)):
            add_server(engine, name, url)
        seconds = {"local": build(coord, "local", halves, [None, None]),
                   "foreign": build(coord, "foreign", halves, ["s0", "s1"])}
        pats = random_patterns(docs, args.patterns)
        times = timed_stats(coord, ["local", "foreign"], pats)
        engine.dispose()
    summary = {"mb": round(size / 1e6, 3), "shards": len(groups), "patterns": len(pats),
               "build_seconds": {k: round(v, 2) for k, v in seconds.items()}}
    for corpus, ms in times.items():
        arr = np.array(ms)
        summary[corpus] = {"p50_ms": round(float(np.percentile(arr, 50)), 3),
                           "p99_ms": round(float(np.percentile(arr, 99)), 3), "mean_ms": round(float(arr.mean()), 3)}
    summary["p50_ratio"] = round(summary["foreign"]["p50_ms"] / summary["local"]["p50_ms"], 2)  # type: ignore[index]
    summary["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(summary, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"servers-{time.strftime('%Y%m%dT%H%M%S')}.json").write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
