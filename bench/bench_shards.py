"""Sharded builds on Reuters + man pages (byte unit): 1 shard vs 4/8/16 shards with 1 and 2 workers, same run.

For each configuration: the end-to-end `termx index --shard-size S --workers W` wall time into the local server,
the peak RSS of the largest process (coordinator or worker; RUSAGE_CHILDREN of a fresh wrapper process), and the
build-without-DB ratio: seconds of build_shard summed over the shards / seconds of raw pydivsufsort.divsufsort +
kasai on the same shards' token arrays (wall clock, and CPU time: `build_ratio_cpu`). Then termx.stats p50/p99
on the 16-shard corpus vs the 1-shard corpus.
With each (shards, workers) also the build without the database in a pool of `workers` processes started (and
their kernels loaded) before the clock starts: wall seconds of all shards' build_shard, against raw single-threaded
divsufsort + kasai of the whole text in the same run.
With --load: one shard's class rows stored by termx (store._copy_classes over store.STORE_CONNECTIONS connections,
as a one-shard build does, and over one, as a shard worker does) vs a plain `COPY ... FROM STDIN (FORMAT binary)`
of the same bytes (class_rows, written to a file first) into an identical unindexed table, alternating, best of 2;
and the floor of a one-shard end-to-end rate: the in-memory build plus PostgreSQL's plain COPY and CREATE INDEX of
those rows (no termx code in the database part), against one real `termx index` in the same run.
With --terms: `terms --top 1000` on the 16-shard vs the 1-shard build (first call, which computes, sums and
stores the candidates, and the warm query), and the overlap of the two top-1,000 lists.
With --growth MB [MB ...]: synthetic corpora of those sizes (documents drawn from the real ones with a seed, their
words shuffled, so the text compresses like text; generated here, never stored), each built with a fixed
--growth-shard-size and 2 workers: wall time per token, the build-without-DB time per token, and the peak RSS of
every worker, against the first (smallest) size; and the same documents through `termx index` of a JSON-lines file
(wall time, and the peak RSS of the coordinating process, which holds the whole input).

    python bench/bench_shards.py --db postgresql://postgres@127.0.0.1:5432/termx_bench [--mb 23.5] [--shards 1 4 8 16]
    python bench/bench_shards.py --db ... --terms
    python bench/bench_shards.py --db ... --load [--mb 23.5]
    python bench/bench_shards.py --db ... --growth 20 200 [--growth-shard-size 20]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import psycopg
import pydivsufsort
import sqlalchemy as sa
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import random_patterns  # noqa: E402
from bench_index import load_documents  # noqa: E402

from termx.index.build import build_shard  # noqa: E402
from termx.index.sharding import cut_shards  # noqa: E402
from termx.index.units import Unit, tokenize  # noqa: E402

WRAPPER = ("import resource, subprocess, sys, time; t = time.perf_counter(); r = subprocess.run(sys.argv[1:]);"
           " print(r.returncode, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def build_ratio(groups: list) -> tuple[float, float, float, float]:  # type: ignore[type-arg]
    """(seconds of build_shard over every shard, of its n-gram filter stage, of raw divsufsort + kasai over the
    same token arrays, and the CPU-time ratio of the two; CPU time counts no wait for a core on a shared machine
    (both are single-threaded, so it is the same work))."""
    build = filt = raw = build_cpu = raw_cpu = 0.0
    for group in groups:
        t0, c0 = time.perf_counter(), time.process_time()
        shard = build_shard(group, Unit.byte, ngram_filter=len(groups) > 1)  # as termx index builds it
        build += time.perf_counter() - t0
        build_cpu += time.process_time() - c0
        filt += shard.timings.get("ngram filter", 0.0)
        tokens = shard.tokens.tokens
        del shard
        t0, c0 = time.perf_counter(), time.process_time()
        sa_ = pydivsufsort.divsufsort(tokens)
        pydivsufsort.kasai(tokens, sa_)
        raw += time.perf_counter() - t0
        raw_cpu += time.process_time() - c0
    return build, filt, raw, build_cpu / raw_cpu


def _build_quietly(group: list) -> int:  # type: ignore[type-arg]
    """Pool task: build one shard, return only its class count (the arrays stay in the worker)."""
    return len(build_shard(group, Unit.byte).classes)


def pool_build_wall(groups: list, workers: int) -> float:  # type: ignore[type-arg]
    """Wall seconds of build_shard over every shard in `workers` processes, started and warmed up beforehand."""
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        list(pool.map(_build_quietly, [groups[0][:1]] * workers))  # start the workers, load the kernels
        t0 = time.perf_counter()
        list(pool.map(_build_quietly, groups))
        return time.perf_counter() - t0


def raw_whole(docs: list) -> float:  # type: ignore[type-arg]
    """Seconds of raw single-threaded divsufsort + kasai of the whole text's token array."""
    tokens = tokenize([d.text for d in docs], Unit.byte).tokens
    t0 = time.perf_counter()
    sa_ = pydivsufsort.divsufsort(tokens)
    pydivsufsort.kasai(tokens, sa_)
    return time.perf_counter() - t0


def load_compare(db: str, docs: list, repeats: int = 2) -> dict[str, float]:  # type: ignore[type-arg]
    """Our class load of one shard (STORE_CONNECTIONS connections, and one) vs a plain binary COPY of the same
    bytes into an identical unindexed table; seconds are the best of `repeats`, alternating. Then the floor of a
    one-shard `termx index`: the in-memory build plus what PostgreSQL alone takes for the class rows (the best
    plain COPY — one stream, or two halves on two connections at once — then CREATE INDEX (rep, sil) and (i, j)
    and ANALYZE, at once on two connections or one after the other, whichever is faster), no termx code in the
    database part; next to it one real `termx index` of the same documents into the same server."""
    from termx.index.units import token_strings
    from termx.storage import partitions, transactions
    from termx.storage.classrows import class_rows
    from termx.storage.corpora import STORE_CONNECTIONS, _copy_classes
    from termx.storage.db import get_engine
    from termx.storage.partitions import CLASSES

    engine = get_engine(db)
    build_shard(docs[:1], Unit.byte)  # compile (or load) the kernels first
    t0 = time.perf_counter()
    shard = build_shard(docs, Unit.byte, ngram_filter=False)  # as a one-shard termx index builds it
    build_s = time.perf_counter() - t0
    c = shard.classes
    shard_id = 2_000_000_000  # a table name no shard has (termx.class_<id>), dropped after each load
    blob, offsets, joiner = token_strings(shard.tokens.unit, shard.tokens.vocab)
    text_mb = sum(len(d.text.encode()) for d in docs) / 1e6
    with tempfile.TemporaryDirectory() as tmp:
        cuts = {"whole": [(0, len(c))], "halves": [(0, len(c) // 2), (len(c) // 2, len(c))]}
        streams: dict[str, list[Path]] = {}
        for how, parts in cuts.items():
            streams[how] = []
            for k, (lo, hi) in enumerate(parts):
                path = Path(tmp) / f"classes.{how}.{k}.copy"
                with path.open("wb") as f:
                    for data, _ in class_rows(shard_id, c.i[lo:hi], c.j[lo:hi], c.lbl[lo:hi], c.sil[lo:hi],
                                              shard.df[lo:hi], shard.sa, shard.tokens.tokens, blob, offsets,
                                              joiner, 100):
                        f.write(data)
                streams[how].append(path)
        best: dict[str, float] = {}
        with contextlib.ExitStack() as stack:
            conns = [stack.enter_context(transactions.connection(engine)) for _ in range(2)]
            part = partitions.table(CLASSES, shard_id)

            def plain(paths: list[Path]) -> None:
                def one(conn: object, path: Path) -> None:
                    with conn.transaction(), path.open("rb") as f, conn.cursor().copy(  # type: ignore[attr-defined]
                            sql.SQL("COPY {} FROM STDIN (FORMAT BINARY)").format(part)) as copy:
                        while data := f.read(8 << 20):
                            copy.write(data)
                partitions.in_parallel(conns, [lambda conn, p=p: one(conn, p) for p in paths])

            indexes = [sql.SQL("CREATE INDEX ON {} (rep, sil)").format(part),
                       sql.SQL("CREATE INDEX ON {} (i, j)").format(part), sql.SQL("ANALYZE {}").format(part)]
            for _ in range(repeats):
                for how in ("plain_copy", "plain_copy_halves", f"termx_{STORE_CONNECTIONS}_connections",
                            "termx_1_connection"):
                    conns[0].execute(sql.SQL("CREATE TABLE {} (LIKE termx.class INCLUDING ALL)").format(part))
                    t0 = time.perf_counter()
                    if how.startswith("plain"):
                        plain(streams["halves" if how.endswith("halves") else "whole"])
                    else:
                        n = STORE_CONNECTIONS if how != "termx_1_connection" else 1
                        _copy_classes(conns[:n], shard_id, shard, 100, lambda _: None)
                    best[how] = min(best.get(how, float("inf")), time.perf_counter() - t0)
                    if how == "plain_copy":  # the indexes on the plain table: both at once, then one by one
                        for label, jobs in (("plain_indexes_at_once", [indexes[:1], indexes[1:]]),
                                            ("plain_indexes_in_turn", [indexes])):
                            for statement in (sql.SQL("DROP INDEX IF EXISTS {}").format(
                                    sql.Identifier("termx", f"class_{shard_id}_{cols}_idx"))
                                    for cols in ("rep_sil", "i_j")):
                                conns[0].execute(statement)
                            t0 = time.perf_counter()
                            partitions.in_parallel(conns, [lambda conn, js=js: [conn.execute(q) for q in js]
                                                    for js in jobs])
                            best[label] = min(best.get(label, float("inf")), time.perf_counter() - t0)
                    conns[0].execute(sql.SQL("DROP TABLE {}").format(part))
    out = {f"{k}_s": round(v, 2) for k, v in best.items()}
    for how in best:
        if how.startswith("termx"):
            out[f"{how}_rate_vs_plain"] = round(best["plain_copy"] / best[how], 3)
    database = min(best["plain_copy"], best["plain_copy_halves"]) + min(best["plain_indexes_at_once"],
                                                                        best["plain_indexes_in_turn"])
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = Path(tmp) / "input.jsonl"
        jsonl.write_text("".join(json.dumps({"id": d.name, "text": d.text}) + "\n" for d in docs), encoding="utf-8")
        wall, _ = index_run(db, jsonl, "bench_shards_load", int(text_mb * 1e6) + 1, 1)
    return {"classes": len(c), "text_mb": round(text_mb, 1), **out, "build_s": round(build_s, 2),
            "floor_s": round(build_s + database, 2), "floor_mb_per_s": round(text_mb / (build_s + database), 2),
            "termx_index_s": round(wall, 2), "termx_index_mb_per_s": round(text_mb / wall, 2),
            "load_average": round(os.getloadavg()[0], 2)}


def index_run(db: str, jsonl: Path, corpus: str, shard_size: int, workers: int) -> tuple[float, int]:
    """(wall seconds, peak RSS bytes of the largest process) of one `termx index --replace`."""
    cmd = [sys.executable, "-c", WRAPPER, sys.executable, "-m", "termx", "index", str(jsonl), "--corpus", corpus,
           "--shard-size", str(shard_size), "--workers", str(workers), "--replace", "--quiet", "--db", db]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "0", f"termx index failed: {out}"
    return float(out[1]), int(out[2]) * 1024


def stats_latency(db: str, runs: list[tuple[str, bool]], patterns: list[str]) -> list[tuple[float, float, float]]:
    """p50, p99 and mean seconds of SQL termx.stats(corpus, pattern) over the patterns for each (corpus, use the shards'
    n-gram filters) of `runs`, one connection each (without filters: SET termx.shard_filter = off). The runs take
    turns pattern by pattern, in alternating order, so a change of the machine's load falls on all of them alike."""
    engine = sa.create_engine(sa.engine.make_url(db).set(drivername="postgresql+psycopg"))
    conns = [engine.connect() for _ in runs]
    times: list[list[float]] = [[] for _ in runs]
    for conn, (_, use) in zip(conns, runs, strict=True):
        conn.execute(sa.text("SELECT set_config('termx.shard_filter', :v, false)"), {"v": "on" if use else "off"})
    for k, p in enumerate(patterns):
        order = list(enumerate(zip(conns, runs, strict=True)))
        for n, (conn, (corpus, _)) in order if k % 2 else order[::-1]:  # the first to read a page pays for it
            t0 = time.perf_counter()
            conn.execute(sa.text("SELECT * FROM termx.stats(:c, :p)"), {"c": corpus, "p": p}).all()
            times[n].append(time.perf_counter() - t0)
    for conn in conns:
        conn.close()
    engine.dispose()
    return [(float(np.percentile(t, 50)), float(np.percentile(t, 99)), float(np.mean(t))) for t in times]


def filter_rates(db: str, corpus: str, patterns: list[str]) -> dict[str, float]:
    """Over (pattern, shard) pairs where the pattern does not occur: the share its filter rules out, and the
    false-positive rate of the filter alone on the patterns of at most NGRAM_MAX bytes (tested by their own key)."""
    from termx.index.ngramfilter import NGRAM_MAX, may_occur
    from termx.storage.corpora import load_array
    from termx.storage.db import get_engine

    engine = get_engine(db)
    with engine.connect() as conn:
        shards = conn.execute(sa.text("SELECT s.id, s.shard_no FROM termx.shard s JOIN termx.corpus c"
                                      " ON c.id = s.corpus_id WHERE c.name = :c ORDER BY s.shard_no"),
                              {"c": corpus}).all()
        filters = {no: load_array(conn, sid, "ngram_filter") for sid, no in shards}
        absent = ruled_out = short_absent = short_passed = 0
        for p in patterns:
            freqs = conn.execute(sa.text("SELECT shard_no, freq FROM termx.find_class_shards(:c, :p)"),
                                 {"c": corpus, "p": p}).all()
            ids = list(p.encode())
            for no, freq in freqs:
                if freq == 0:
                    absent += 1
                    maybe = may_occur(filters[no], ids)
                    ruled_out += not maybe
                    if len(ids) <= NGRAM_MAX:
                        short_absent += 1
                        short_passed += maybe
    engine.dispose()
    return {"absent_pairs": absent, "absent_ruled_out": round(ruled_out / max(absent, 1), 3),
            "false_positive_rate_short": round(short_passed / max(short_absent, 1), 4)}


def worker_memory(db: str, docs: list, sizes_mb: list[float]) -> None:  # type: ignore[type-arg]
    """Peak RSS of each pool worker (its own ru_maxrss, reported with its shard) at several shard sizes."""
    from termx.storage.db import get_engine
    from termx.storage.executors import pool_runner
    from termx.storage.shards import save_shards

    engine = get_engine(db)
    for mb in sizes_mb:
        groups = cut_shards(docs, int(mb * 1e6))
        _, results = save_shards(engine, f"bench_worker_{mb}", groups, Unit.byte, 4, replace=True,
                                 runner=pool_runner(2))
        full = [r for r in results if r.shard_no < len(groups) - 1] or results  # the last shard may be short
        print(json.dumps({"shard_size_mb": mb, "shards": len(groups),
                          "worker_peak_rss_mb": round(max(r.peak_rss_bytes for r in full) / 1e6),
                          "text_mb_per_shard": round(max(sum(len(d.text.encode()) for d in g) for g in groups) / 1e6,
                                                     2)}), flush=True)


def synthetic(docs: list, mb: float, seed: int = 0) -> list:  # type: ignore[type-arg]
    """About `mb` MB of documents drawn from `docs` with their words shuffled (seeded)."""
    from termx.index.ingest import Document

    rng = random.Random(seed)
    out, size = [], 0
    while size < mb * 1e6:
        words = rng.choice(docs).text.split()
        rng.shuffle(words)
        text = " ".join(words)
        out.append(Document(f"syn{len(out)}", text))
        size += len(text.encode())
    return out


def growth(db: str, docs: list, sizes_mb: list[float], shard_mb: float) -> None:  # type: ignore[type-arg]
    """One JSON line per size: ns per token end to end and without the database, peak worker RSS, vs the first."""
    from termx.storage.corpora import drop_corpus
    from termx.storage.db import get_engine
    from termx.storage.executors import pool_runner
    from termx.storage.shards import save_shards

    engine = get_engine(db)
    build_shard(docs[:1], Unit.byte)  # compile (or load) the numba kernels before anything is timed
    first: dict[str, float] = {}
    for mb in sizes_mb:
        corpus = synthetic(docs, mb)
        tokens = sum(len(d.text.encode()) for d in corpus)
        groups = cut_shards(corpus, int(shard_mb * 1e6))
        t0 = time.perf_counter()
        _, results = save_shards(engine, "bench_growth", groups, Unit.byte, 4, replace=True, runner=pool_runner(2))
        wall = time.perf_counter() - t0
        drop_corpus(engine, "bench_growth")  # 200 MB of classes is ~10 GB of tables: not kept
        t0 = time.perf_counter()
        for group in groups[:2]:  # the build alone, on the first two shards (the rest are alike)
            build_shard(group, Unit.byte)
        build_tokens = sum(len(d.text.encode()) for g in groups[:2] for d in g)
        build_ns = (time.perf_counter() - t0) / build_tokens * 1e9
        full = [r for r in results if r.shard_no < len(groups) - 1] or results  # the last shard may be short
        with tempfile.TemporaryDirectory() as tmp:  # the same documents through `termx index` of a JSON-lines file
            jsonl = Path(tmp) / "input.jsonl"
            jsonl.write_text("".join(json.dumps({"id": d.name, "text": d.text}) + "\n" for d in corpus),
                             encoding="utf-8")
            cli_wall, coordinator = coordinator_run(db, jsonl, "bench_growth", int(shard_mb * 1e6), 2)
            drop_corpus(engine, "bench_growth")
        row = {"mb": round(tokens / 1e6, 1), "shards": len(groups), "wall_s": round(wall, 1),
               "ns_per_token": round(wall / tokens * 1e9, 1), "build_ns_per_token": round(build_ns, 1),
               "worker_peak_rss_mb": round(max(r.peak_rss_bytes for r in full) / 1e6),
               "termx_index_wall_s": round(cli_wall, 1), "coordinator_peak_rss_mb": round(coordinator / 1e6)}
        first = first or row
        row |= {"ns_per_token_ratio": round(row["ns_per_token"] / first["ns_per_token"], 2),
                "build_ratio": round(row["build_ns_per_token"] / first["build_ns_per_token"], 2),
                "rss_ratio": round(row["worker_peak_rss_mb"] / first["worker_peak_rss_mb"], 2)}
        print(json.dumps(row), flush=True)


def coordinator_run(db: str, jsonl: Path, corpus: str, shard_size: int, workers: int) -> tuple[float, int]:
    """(wall seconds, peak RSS bytes of the `termx index` process itself, its workers not counted: the high-water
    mark VmHWM in /proc, read every 0.1 s until it exits) of one `termx index --replace`."""
    cmd = [sys.executable, "-m", "termx", "index", str(jsonl), "--corpus", corpus, "--shard-size", str(shard_size),
           "--workers", str(workers), "--replace", "--quiet", "--db", db]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd)
    peak = 0
    status = Path(f"/proc/{proc.pid}/status")
    while proc.poll() is None:
        with contextlib.suppress(OSError):
            hwm = next(line for line in status.read_text().splitlines() if line.startswith("VmHWM:"))
            peak = max(peak, int(hwm.split()[1]) * 1024)
        time.sleep(0.1)
    assert proc.returncode == 0, f"termx index failed: {proc.returncode}"
    return time.perf_counter() - t0, peak


def terms_run(db: str, jsonl: Path, total: int, shards: list[int], repeats: int = 5) -> None:
    """`terms --top 1000` on each k-shard build: the first call (candidates computed, summed and stored; the index
    cache already warm), the warm query (median of `repeats`), and how many of the 1-shard top 1,000 the k-shard
    list holds (the k-shard candidates are the union of the shards', docs/terms.md)."""
    from termx.progress import Timings
    from termx.storage.db import get_engine
    from termx.storage.index_loader import load_shards
    from termx.terms import Ranking, ensure_candidates, extract_terms

    engine = get_engine(db)
    tops: dict[tuple[int, str], list[str]] = {}
    for k in shards:
        name = f"bench_shards_terms_{k}"
        wall, _ = index_run(db, jsonl, name, -(-total // k) + 1, 1)
        load_shards(engine, name)  # fills the index cache, so the first call below measures the candidates only
        timings = Timings()
        t0 = time.perf_counter()
        ensure_candidates(engine, name, timings=timings)
        first = time.perf_counter() - t0
        row: dict[str, object] = {"terms_shards": len(load_shards(engine, name)), "index_wall_s": round(wall, 1),
                                  "first_call_s": round(first, 2),
                                  "first_call_stages_s": {a: round(b, 2) for a, b in timings.items()}}
        with engine.connect() as conn:
            row["candidates"] = conn.execute(sa.text(
                "SELECT count(*) FROM termx.candidate t JOIN termx.shard s ON s.id = t.shard_id"
                " JOIN termx.corpus c ON c.id = s.corpus_id WHERE c.name = :n"), {"n": name}).scalar()
        for rank in (Ranking.adaptation, Ranking.freq, Ranking.ridf):
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                rows = extract_terms(engine, name, rank, top=1000)
                times.append(time.perf_counter() - t0)
            tops[(k, rank.value)] = [r["term"] for r in rows]
            row[f"top1000_{rank.value}_ms"] = round(float(np.median(times)) * 1e3, 1)
            if (1, rank.value) in tops and k != 1:
                row[f"top1000_{rank.value}_shared_with_1_shard"] = len(set(tops[(k, rank.value)])
                                                                       & set(tops[(1, rank.value)]))
        print(json.dumps(row), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--mb", type=float, default=None, help="MB of text (default: all, 23.5 MB)")
    ap.add_argument("--shards", type=int, nargs="+", default=[1, 4, 8, 16])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--partitions", type=int, default=0,
                    help="with --stats-only: also measure with this many other (empty) partitions in termx.class")
    ap.add_argument("--stats-only", action="store_true",
                    help="only time termx.stats on the corpora bench_shards_1 and bench_shards_16 of an earlier run")
    ap.add_argument("--worker-sizes", type=float, nargs="*", default=[],
                    help="only measure the peak RSS of pool workers at these shard sizes (MB), 2 workers")
    ap.add_argument("--terms", action="store_true",
                    help="only measure terms --top 1000 on 1 vs 16 shards (or --shards), first call and warm")
    ap.add_argument("--growth", type=float, nargs="*", default=[],
                    help="only measure growth: synthetic corpora of these sizes (MB), fixed shard size, 2 workers")
    ap.add_argument("--load", action="store_true",
                    help="only compare termx's class load of one shard with a plain binary COPY of the same rows,"
                         " and the one-shard end-to-end rate with its floor (build + plain COPY + CREATE INDEX)")
    ap.add_argument("--growth-shard-size", type=float, default=20.0, help="MB per shard with --growth")
    args = ap.parse_args()
    docs = load_documents(args.mb)
    if args.growth:
        growth(args.db, docs, args.growth, args.growth_shard_size)
        return
    if args.load:
        print(json.dumps(load_compare(args.db, docs)), flush=True)
        return
    if args.worker_sizes:
        worker_memory(args.db, docs, args.worker_sizes)
        return
    total = sum(len(d.text.encode()) for d in docs)
    print(f"{len(docs)} documents, {total / 1e6:.1f} MB", file=sys.stderr)
    if not args.stats_only:
        build_all(args, docs, total)
    if args.queries and (args.stats_only or {1, 16} <= set(args.shards)):
        print(json.dumps(stats_compare(args.db, docs, args.queries, args.partitions)))


def build_all(args: argparse.Namespace, docs: list, total: int) -> None:  # type: ignore[type-arg]
    """One JSON line per (shards, workers): wall time, peak RSS and the build-without-DB ratio to raw."""
    build_shard(docs[:1], Unit.byte)  # compile (or load) the numba kernels before anything is timed
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = Path(tmp) / "input.jsonl"
        jsonl.write_text("".join(json.dumps({"id": d.name, "text": d.text}) + "\n" for d in docs), encoding="utf-8")
        if args.terms:
            terms_run(args.db, jsonl, total, args.shards if args.shards != [1, 4, 8, 16] else [1, 16])
            return
        whole = raw_whole(docs)
        for k in args.shards:
            size = -(-total // k) + 1
            groups = cut_shards(docs, size)
            build, filt, raw, cpu_ratio = build_ratio(groups)
            for w in args.workers:
                wall, peak = index_run(args.db, jsonl, f"bench_shards_{k}", size, w)
                pool_wall = pool_build_wall(groups, w)
                row = {"shards_asked": k, "shards": len(groups), "workers": w, "wall_s": round(wall, 2),
                       "peak_rss_mb": round(peak / 1e6), "build_s": round(build, 2),
                       "raw_divsufsort_kasai_s": round(raw, 2), "build_ratio": round(build / raw, 2),
                       "build_ratio_cpu": round(cpu_ratio, 2),
                       "build_wall_s": round(pool_wall, 2), "raw_whole_text_s": round(whole, 2),
                       "build_wall_vs_raw_whole": round(pool_wall / whole, 2),
                       "mb_per_s": round(total / 1e6 / wall, 2),
                       "filter_s": round(filt, 3), "filter_share_of_build": round(filt / build, 3),
                       "filter_share_of_shard_seconds": round(filt / shard_seconds(args.db, f"bench_shards_{k}"), 3)}
                print(json.dumps(row), flush=True)


def shard_seconds(db: str, corpus: str) -> float:
    """Seconds the workers took over the corpus's shards (build in memory and store: termx.shard.seconds)."""
    engine = sa.create_engine(sa.engine.make_url(db).set(drivername="postgresql+psycopg"))
    with engine.connect() as conn:
        seconds = conn.execute(sa.text("SELECT sum(s.seconds) FROM termx.shard s JOIN termx.corpus c"
                                       " ON c.id = s.corpus_id WHERE c.name = :c"), {"c": corpus}).scalar()
    engine.dispose()
    return float(seconds)


@contextlib.contextmanager
def extra_partitions(db: str, count: int) -> Iterator[None]:
    """`count` empty partitions of termx.class attached for the duration (shard ids no shard has, so any termx
    command run meanwhile would purge them as garbage): a database that holds many other corpora's shards."""
    first = 2_000_000_001
    with psycopg.connect(db, autocommit=True) as conn:
        for sid in range(first, first + count):
            conn.execute(sql.SQL("CREATE TABLE {} (LIKE termx.class INCLUDING ALL, CHECK (shard_id = {}))")
                         .format(sql.Identifier("termx", f"class_{sid}"), sql.Literal(sid)))
            conn.execute(sql.SQL("ALTER TABLE termx.class ATTACH PARTITION {} FOR VALUES IN ({})")
                         .format(sql.Identifier("termx", f"class_{sid}"), sql.Literal(sid)))
        try:
            yield
        finally:
            for sid in range(first, first + count):
                conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier("termx", f"class_{sid}")))


def first_call_ms(db: str, corpus: str, repeats: int = 5) -> float:
    """Median ms of the first termx.stats of a new connection (what every `termx stats` without the daemon, and
    every new psql session, pays: the function's statements are planned then)."""
    times = []
    for _ in range(repeats):
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute("SELECT 1")
            t0 = time.perf_counter()
            conn.execute("SELECT * FROM termx.stats(%s, 'the')", (corpus,)).fetchall()
            times.append(time.perf_counter() - t0)
    return round(float(np.median(times)) * 1e3, 1)


def stats_compare(db: str, docs: list, queries: int, partitions: int = 0) -> dict[str, float]:  # type: ignore[type-arg]
    """termx.stats p50/p99 on the 16-shard and the 1-shard corpus, for random substrings of 2-12 characters, with
    the shards' n-gram filters and without (each ratio against the 1-shard corpus in the same setting), and how
    often the filters rule a shard out; with `partitions`, the same with that many other partitions in
    termx.class, and the first call of a new connection with and without them."""
    if partitions:
        out = stats_compare(db, docs, queries)
        out |= {f"first_call_ms_{k}": first_call_ms(db, f"bench_shards_{k}") for k in (1, 16)}
        with extra_partitions(db, partitions):
            out |= {f"first_call_ms_{k}_with_{partitions}_partitions": first_call_ms(db, f"bench_shards_{k}")
                    for k in (1, 16)}
            inner = stats_compare(db, docs, queries)
        return out | {f"{k}_with_{partitions}_partitions": v for k, v in inner.items()}
    patterns = random_patterns(docs, queries, seed=1)
    runs = [(f"bench_shards_{k}", use) for use in (True, False) for k in (1, 16)]
    stats_latency(db, runs, patterns)  # read both corpora's pages into the server's cache first
    (one, many, one_off, many_off) = stats_latency(db, runs, patterns)
    out: dict[str, float] = {}
    for label, (a, b) in (("", (one, many)), ("_nofilter", (one_off, many_off))):
        out |= {f"stats_p50_ms_1{label}": round(a[0] * 1e3, 2), f"stats_p99_ms_1{label}": round(a[1] * 1e3, 2),
                f"stats_p50_ms_16{label}": round(b[0] * 1e3, 2), f"stats_p99_ms_16{label}": round(b[1] * 1e3, 2),
                f"stats_mean_ms_1{label}": round(a[2] * 1e3, 2), f"stats_mean_ms_16{label}": round(b[2] * 1e3, 2)}
    out["p50_ratio"] = round(out["stats_p50_ms_16"] / out["stats_p50_ms_1"], 2)
    out["p50_ratio_nofilter"] = round(out["stats_p50_ms_16_nofilter"] / out["stats_p50_ms_1_nofilter"], 2)
    out["p99_ratio"] = round(out["stats_p99_ms_16"] / out["stats_p99_ms_1"], 2)
    out["p99_ratio_nofilter"] = round(out["stats_p99_ms_16_nofilter"] / out["stats_p99_ms_1_nofilter"], 2)
    return out | filter_rates(db, "bench_shards_16", patterns) | {"load_average": round(os.getloadavg()[0], 2)}


if __name__ == "__main__":
    main()
