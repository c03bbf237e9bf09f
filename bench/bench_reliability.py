"""Availability under rebuilds: look-ups on corpus A while a big corpus B is replaced, and 8 concurrent clients.

Measures, for the termx on PYTHONPATH (or on --code DIR, e.g. a checkout of an older main, to compare):
1. latency of `termx.stats(A, pattern)` (one client, back to back): alone, and during `termx index B --replace`;
2. 8 clients x --calls `termx.stats` calls through the SQL function: throughput, p99 and errors, alone and while
   B's replace is storing (started when the replace's first COPY appears in pg_stat_activity).

B is Reuters-21578 + the man pages (byte unit, ~13 M classes) from ../shared/data/en (or TERMX_DATA / --data).
Each run uses its own database (--db, created if missing): the schema is the one that code migrates to.

    python bench/bench_reliability.py --db postgresql://postgres@127.0.0.1:5432/bench_after
    python bench/bench_reliability.py --db postgresql://postgres@127.0.0.1:5432/bench_before --code ../wt-base
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg

PATTERNS = ["the", "of the", "said", "company", "share", "billion", "mln dlrs", "system call", "file descriptor",
            "interest rates", "Reuter", "oil", "year", "a", "pct", "net profit", "trade", "the company said"]


def data_dir(arg: str | None) -> Path:
    """The shared data directory: --data, TERMX_DATA, or ../shared/data next to the repository."""
    root = Path(arg or os.environ.get("TERMX_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
    return root / "en"


def termx(code: str | None, db: str, *args: str) -> subprocess.Popen[str]:
    """`python -m termx ARGS` with `code` first on the path (the termx to measure)."""
    root = Path(code).resolve() if code else Path(__file__).resolve().parents[1]
    env = {**os.environ, "TERMX_DATABASE_URL": db, "PYTHONPATH": str(root)}
    # `python -m` puts the working directory first on sys.path: run from the code measured
    return subprocess.Popen([sys.executable, "-m", "termx", *args, "--quiet"], env=env, text=True,
                            stderr=subprocess.PIPE, cwd=root)


def run(code: str | None, db: str, *args: str) -> float:
    t0 = time.perf_counter()
    proc = termx(code, db, *args)
    _, err = proc.communicate()
    if proc.returncode:
        raise SystemExit(f"termx {' '.join(args)} failed: {err.strip()}")
    return time.perf_counter() - t0


def ensure_database(url: str) -> None:
    info = psycopg.conninfo.conninfo_to_dict(url)
    admin = psycopg.conninfo.make_conninfo(url, dbname="postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (info["dbname"],)).fetchone():
            conn.execute(f'CREATE DATABASE "{info["dbname"]}"')


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def summary(lat: list[float], seconds: float | None = None, errors: int = 0) -> dict[str, float]:
    out = {"calls": len(lat), "p50_ms": round(1000 * percentile(lat, 0.5), 2),
           "p99_ms": round(1000 * percentile(lat, 0.99), 2), "max_ms": round(1000 * max(lat, default=0), 2),
           "errors": errors}
    if seconds:
        out["calls_per_s"] = round(len(lat) / seconds, 1)
    return out


class Reader(threading.Thread):
    """One client calling termx.stats(corpus, pattern) back to back until stopped (or `calls` are done)."""

    def __init__(self, db: str, corpus: str, calls: int | None = None, seed: int = 0) -> None:
        super().__init__(daemon=True)
        self.db, self.corpus, self.calls = db, corpus, calls
        self.rng = random.Random(seed)
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        with psycopg.connect(self.db, autocommit=True) as conn:
            while not self.stop.is_set() and (self.calls is None or len(self.latencies) < self.calls):
                t0 = time.perf_counter()
                try:
                    conn.execute("SELECT freq FROM termx.stats(%s, %s)",
                                 (self.corpus, self.rng.choice(PATTERNS))).fetchall()
                except psycopg.Error as exc:
                    self.errors.append(str(exc).splitlines()[0])
                self.latencies.append(time.perf_counter() - t0)


def clients(db: str, corpus: str, n: int, calls: int) -> dict[str, float]:
    readers = [Reader(db, corpus, calls, seed=k) for k in range(n)]
    t0 = time.perf_counter()
    for r in readers:
        r.start()
    for r in readers:
        r.join()
    seconds = time.perf_counter() - t0
    return summary([x for r in readers for x in r.latencies], seconds, sum(len(r.errors) for r in readers))


def wait_for_copy(db: str, proc: subprocess.Popen[str]) -> bool:
    """Until the replace's first COPY runs (the store stage, where the old code locked termx.class)."""
    with psycopg.connect(db, autocommit=True) as conn:
        while proc.poll() is None:
            if conn.execute("SELECT 1 FROM pg_stat_activity WHERE datname = current_database()"
                            " AND query ILIKE 'COPY%'").fetchone():
                return True
            time.sleep(0.05)
    return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="database URL for this run (created if missing)")
    ap.add_argument("--code", help="directory to put first on PYTHONPATH for the termx commands")
    ap.add_argument("--data", help="the shared data directory (default ../shared/data)")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--alone-seconds", type=float, default=10.0)
    args = ap.parse_args()
    en = data_dir(args.data)
    reuters, man = en / "reuters21578.jsonl", en / "manpages.jsonl"
    if not reuters.exists():
        raise SystemExit(f"no data in {en} (set --data or TERMX_DATA)")
    ensure_database(args.db)
    small = Path(os.environ.get("TMPDIR", "/tmp")) / "bench_reliability_a.jsonl"
    with reuters.open(encoding="utf-8") as f:
        small.write_text("".join(line for _, line in zip(range(2000), f, strict=False)), encoding="utf-8")
    out: dict[str, object] = {"code": args.code or "PYTHONPATH", "uptime": os.getloadavg()}
    out["index_A_s"] = round(run(args.code, args.db, "index", str(small), "--corpus", "bench_a", "--replace"), 1)
    out["index_B_s"] = round(run(args.code, args.db, "index", str(reuters), str(man), "--corpus", "bench_b",
                                 "--replace"), 1)
    with psycopg.connect(args.db) as conn:
        out["B_classes"] = conn.execute("SELECT classes FROM termx.corpus WHERE name = 'bench_b'").fetchone()[0]  # type: ignore[index]

    # 1. one reader on A: alone, then for the whole of B's replace
    reader = Reader(args.db, "bench_a")
    reader.start()
    time.sleep(args.alone_seconds)
    reader.stop.set()
    reader.join()
    out["A_alone"] = summary(reader.latencies, args.alone_seconds, len(reader.errors))
    reader = Reader(args.db, "bench_a")
    reader.start()
    t0 = time.perf_counter()
    proc = termx(args.code, args.db, "index", str(reuters), str(man), "--corpus", "bench_b", "--replace")
    _, err = proc.communicate()
    seconds = time.perf_counter() - t0
    reader.stop.set()
    reader.join()
    out["replace_B_s"] = round(seconds, 1)
    out["replace_B_ok"] = proc.returncode == 0 or err.strip()
    out["A_during_replace"] = summary(reader.latencies, seconds, len(reader.errors))

    # 2. N clients x calls on A: alone, then starting when B's replace starts storing
    out["clients_alone"] = clients(args.db, "bench_a", args.clients, args.calls)
    proc = termx(args.code, args.db, "index", str(reuters), str(man), "--corpus", "bench_b", "--replace")
    storing = wait_for_copy(args.db, proc)
    during = clients(args.db, "bench_a", args.clients, args.calls)
    during["replace_was_storing"] = storing
    during["replace_still_running_after"] = proc.poll() is None
    _, err = proc.communicate()
    out["clients_during_replace"] = during
    out["replace2_B_ok"] = proc.returncode == 0 or err.strip()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
