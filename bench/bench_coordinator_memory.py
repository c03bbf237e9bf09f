"""The coordinator's memory in a build of several shards (issue 30, docs/scale-out.md "Memory per worker"): how far
the `termx index` process's resident set rises while the shards are built and stored, local shards against shards
bound for a storage server (whose workers return the index arrays for the coordinator to write).

Two throwaway servers (tests/pgcluster.py: the coordinator and storage server s1). Each build runs in a fresh
process: the first --mb MB of Reuters, byte unit, cut into shards of --shard-mb MB, built by a local pool of 2
workers; a thread samples the process's VmRSS every 5 ms from the start of the build to its end (ru_maxrss would
include reading the input). Local and `--server s1` builds take turns, --rounds times. Run:
  .venv/bin/python bench/bench_coordinator_memory.py --mb 8 --shard-mb 2 --rounds 2
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _data import reuters_documents  # noqa: E402
from pgcluster import pg_servers  # noqa: E402

from termx.index.ingest import Document  # noqa: E402


def _rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))


def _groups(mb: float, shard_mb: float) -> list[list[Document]]:
    """The first `mb` MB of Reuters in groups of about `shard_mb` MB."""
    groups: list[list[Document]] = [[]]
    size = shard = 0
    for d in reuters_documents():
        if size >= mb * 1e6:
            break
        if shard >= shard_mb * 1e6:
            groups.append([])
            shard = 0
        groups[-1].append(d)
        n = len(d.text.encode())
        size, shard = size + n, shard + n
    return groups


def child(coord: str, server: str | None, mb: float, shard_mb: float) -> dict[str, object]:
    """One build in this process: its VmRSS before and its highest during the build."""
    from termx.index.units import Unit
    from termx.storage.corpora import drop_corpus
    from termx.storage.db import get_engine
    from termx.storage.executors import pool_runner
    from termx.storage.shards import save_shards

    groups = _groups(mb, shard_mb)
    engine = get_engine(coord)
    gc.collect()
    before = high = _rss_kb()
    done = threading.Event()

    def sample() -> None:
        nonlocal high
        while not done.is_set():
            high = max(high, _rss_kb())
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    name = f"mem-{uuid.uuid4().hex[:6]}"
    t0 = time.perf_counter()
    info, results = save_shards(engine, name, groups, Unit.byte, 8, runner=pool_runner(2), server=server)
    seconds = time.perf_counter() - t0
    done.set()
    sampler.join()
    drop_corpus(engine, name)
    return {"server": server, "shards": len(groups), "tokens": info.tokens, "rss_before_mb": round(before / 1024, 1),
            "rise_mb": round((high - before) / 1024, 1), "build_s": round(seconds, 2),
            "worker_peak_mb": round(max(r.peak_rss_bytes for r in results) / 2**20, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=8.0)
    parser.add_argument("--shard-mb", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", nargs=2, metavar=("COORD", "SERVER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1] or None, args.mb, args.shard_mb)))
        return
    with tempfile.TemporaryDirectory(prefix="termx-coordmem-") as tmp, pg_servers(Path(tmp) / "pg", 2) as servers:
        from termx.database import Database

        for s in servers:
            s.create_database("termx")
        coord = servers[0].url("termx")
        db = Database(coord)
        db.add_server("s1", servers[1].url("termx"))
        db.close()
        env = {**os.environ, "TERMX_HOME": str(Path(tmp) / "home")}
        for _ in range(args.rounds):
            for server in ("", "s1"):
                load = os.getloadavg()[0]
                out = subprocess.run([sys.executable, __file__, "--mb", str(args.mb), "--shard-mb", str(args.shard_mb),
                                      "--child", coord, server], capture_output=True, text=True, env=env, check=True)
                print(json.dumps({**json.loads(out.stdout), "load": round(load, 2)}), flush=True)


if __name__ == "__main__":
    main()
