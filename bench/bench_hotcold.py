"""Store what is hot, compute what is cold (issue 29): bytes per token, build speed and look-up latency by T.

For each T of --thresholds (default 2, 4, 8, 16) the same slice is indexed with `store_min_freq=T` (what
`termx index --store-min-freq T` runs) into a scratch database of its own on the --db server (dropped afterwards):
by default the first --mb MB of reuters21578.jsonl + manpages.jsonl interleaved (bench/bench_index.py's prefixes),
unit byte; with --unit char the SIGHAN 2005 PKU test text in 10-line documents (bench/bench_store.py). Printed, and
written as JSON under bench/results/:

- bytes per token of every termx relation of the database (it holds the one corpus) and of the class table alone;
- the build's wall time (index_documents, in a fresh process) and peak memory per token (the largest stage's rise
  above the memory at its start, as bench/bench_index.py measures it; and the "store classes" stage's), MB/s, and
  its ratio to raw divsufsort + kasai of the same token array, measured once per slice in the same run;
- `SELECT * FROM termx.stats(corpus, pattern)` round trips, p50/p99, for --patterns random patterns (1-20 tokens at
  random text positions), half hot (freq >= T: a stored row) and half cold (freq < T; "computed": 2 <= freq < T,
  the classes that T > 2 stops storing), each answer checked equal to the library's: the client's round trip and
  the server's own time (statement start to the row); and the library's look-up (termx.lookup.stats on the
  loaded index) p50 on the same patterns;
- the machine's load average before and after each build (the machine is shared: read ratios, not seconds).

Run (niced, bounded):
  timeout 1500 nice .venv/bin/python bench/bench_hotcold.py --mb 4
  timeout 1500 nice .venv/bin/python bench/bench_hotcold.py --unit char
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from bench_index import MemoryProgress, load_documents, reference_sa_lcp, reset_peak, rss, scratch_database
from bench_store import percentile, pku_documents, relation_sizes, termx_relations

from termx.index.build import build_shard
from termx.index.ingest import Document
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit, token_strings
from termx.lookup import stats
from termx.storage.classrows import class_rows
from termx.storage.db import connect_or_explain, resolve_url, upgrade
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents
from termx.storage.partitions import CLASSES, table

DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/test"
RESULTS = Path(__file__).resolve().parent / "results"
CORPUS = "bench-hotcold"
COMPARED = ("freq", "df", "i", "j", "lbl", "sil", "shortest", "longest")


def draw_patterns(index: LoadedIndex, n: int, threshold: int, seed: int,
                  tries: int = 400_000) -> dict[str, list[tuple[str, int]]]:
    """Up to n/2 hot (freq >= threshold) and n/2 cold (freq < threshold) patterns as text with their freq: 1-20
    tokens at random text positions (byte patterns that are not valid UTF-8 are skipped)."""
    rng = random.Random(seed)
    out: dict[str, list[tuple[str, int]]] = {"hot": [], "cold": []}
    tokens, total = index.tokens, len(index.tokens)
    for _ in range(tries):
        if min(len(v) for v in out.values()) >= n // 2:
            break
        p = rng.randrange(total)
        ids = tokens[p: p + rng.randint(1, 20)]
        cut = np.flatnonzero(ids == 0)
        ids = ids[: cut[0]] if len(cut) else ids
        if len(ids) == 0:
            continue
        text = index.decode(ids)
        if "\ufffd" in text:  # a byte pattern that cuts a character
            continue
        i, j = index.interval(ids)
        freq = j - i + 1
        kind = "hot" if freq >= threshold else "cold"
        if len(out[kind]) < n // 2:
            out[kind].append((text, freq))
    return out


def sql_latency(url: str, patterns: list[tuple[str, int]], index: LoadedIndex) -> dict[str, Any]:
    """termx.stats per pattern (after one warm-up pass), each row checked against the library: the client's round
    trip and the server's own time (statement_timestamp() to the row: parse, plan, execute), since on a loaded
    machine a backend that runs for a millisecond is often preempted and the round trip measures the queue."""
    with psycopg.connect(url, autocommit=True) as conn:
        query = ("SELECT extract(epoch FROM clock_timestamp() - statement_timestamp()), freq, df, i, j, lbl, sil, "
                 "shortest, longest FROM termx.stats(%s, %s)")
        for text, _ in patterns:  # warm-up: plans, catalog caches, the pages of the arrays
            conn.execute(query, (CORPUS, text), prepare=True)
        wall, server = [], []
        for text, _ in patterns:
            t0 = time.perf_counter()
            row = conn.execute(query, (CORPUS, text), prepare=True).fetchone()
            wall.append(time.perf_counter() - t0)
            assert row is not None
            server.append(float(row[0]))
            want = stats(index, [text])[0]
            assert dict(zip(COMPARED, row[1:], strict=True)) == {k: want[k] for k in COMPARED}, (text, row, want)
    return {"round_trip": summary(wall), "server": summary(server)}


def library_latency(index: LoadedIndex, patterns: list[tuple[str, int]]) -> dict[str, Any]:
    """Seconds of termx.lookup.stats per pattern on the loaded index (after one warm-up pass)."""
    for text, _ in patterns:
        stats(index, [text])
    times = []
    for text, _ in patterns:
        t0 = time.perf_counter()
        stats(index, [text])
        times.append(time.perf_counter() - t0)
    return summary(times)


def summary(times: list[float]) -> dict[str, Any]:
    """Count, p50 and p99 in milliseconds."""
    if not times:
        return {"n": 0, "p50_ms": None, "p99_ms": None}
    return {"n": len(times), "p50_ms": percentile(times, 0.5) * 1e3, "p99_ms": percentile(times, 0.99) * 1e3}


def build_corpus(url: str, docs: list[Document], unit: Unit, threshold: int) -> tuple[Any, float, dict[str, int]]:
    """In a fresh process: index_documents with store_min_freq=threshold; the summary, wall seconds and the peak
    resident memory of each stage above the memory before it (bench/bench_index.py's MemoryProgress), after a
    warm-up that loads the build's and the class rows' kernels."""
    tiny = build_shard(docs[:20], unit, 4)
    blob, offsets, joiner = token_strings(unit, tiny.tokens.vocab)
    c = tiny.classes
    for _ in class_rows(0, c.i, c.j, c.lbl, c.sil, tiny.df, tiny.sa, tiny.tokens.tokens, blob, offsets, joiner, 100):
        pass
    del tiny, c
    engine = connect_or_explain(resolve_url(url))
    gc.collect()
    reset_peak()
    memory = MemoryProgress(rss())
    t0 = time.perf_counter()
    built = index_documents(engine, CORPUS, docs, unit, 4, progress=memory, store_min_freq=threshold)
    seconds = time.perf_counter() - t0
    engine.dispose()
    return built, seconds, memory.peaks


def migrate(engine: Any, tries: int = 3) -> None:
    """Every migration; retried, since another database's migration on the same server may be altering the shared
    termx_reader role at the same moment ("tuple concurrently updated")."""
    for attempt in range(tries):
        try:
            upgrade(engine)
            return
        except Exception:
            if attempt == tries - 1:
                raise
            time.sleep(2)


def measure(server: str, docs: list[Document], unit: Unit, threshold: int, n_patterns: int, seed: int,
            reference: float) -> dict[str, Any]:
    """Index `docs` with store_min_freq=threshold into a scratch database and measure size, build and look-ups."""
    text_bytes = sum(len(d.text.encode()) for d in docs)
    with scratch_database(server) as url:
        engine = connect_or_explain(resolve_url(url))
        migrate(engine)
        load_before = os.getloadavg()
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            built, build, peak = pool.submit(build_corpus, url, docs, unit, threshold).result()
        load_after = os.getloadavg()
        index = load_index(engine, CORPUS)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
            shard = conn.execute("SELECT id FROM termx.shard").fetchone()
            assert shard is not None
            cls = relation_sizes(conn, table(CLASSES, shard[0]))
            relations = termx_relations(conn)
            rows = conn.execute("SELECT count(*) FROM termx.class").fetchone()
        drawn = draw_patterns(index, n_patterns, threshold, seed)
        computed = [p for p in drawn["cold"] if p[1] >= 2]
        lookups = {"hot": sql_latency(url, drawn["hot"], index), "cold": sql_latency(url, drawn["cold"], index),
                   "cold, 2 <= freq < T": sql_latency(url, computed, index) if computed else None}
        library = library_latency(index, drawn["hot"] + drawn["cold"])
        engine.dispose()
    tokens = built.tokens
    all_bytes = sum(relations.values())
    return {"unit": unit.value, "threshold": threshold, "documents": len(docs), "text_bytes": text_bytes,
            "tokens": tokens, "classes": built.classes, "class_rows": rows[0] if rows else None,
            "all_bytes": all_bytes, "all_bytes_per_token": all_bytes / tokens,
            "class_bytes_per_token": cls["total"] / tokens, "relations": relations, "class_sizes": cls,
            "build_seconds": build, "build_stages": built.seconds, "build_peaks": peak,
            "build_peak_bytes_per_token": max(peak.values()) / tokens,
            "store_peak_bytes_per_token": peak.get("store classes", 0) / tokens,
            "mb_per_second": text_bytes / 1e6 / build,
            "reference_seconds": reference, "build_over_reference": build / reference,
            "sql_stats": lookups, "library_stats": library, "load_before": load_before, "load_after": load_after}


def report(r: dict[str, Any]) -> None:
    """One block of lines per T."""
    print(f"\nT={r['threshold']} {r['unit']}: {r['text_bytes'] / 1e6:.1f} MB, {r['tokens']:,} tokens, "
          f"{r['class_rows']:,} of {r['classes']:,} classes stored; load {r['load_before'][0]:.1f} -> "
          f"{r['load_after'][0]:.1f}")
    print(f"  bytes/token: all termx relations {r['all_bytes_per_token']:.1f}, class table "
          f"{r['class_bytes_per_token']:.1f}")
    print(f"  build {r['build_seconds']:.1f} s = {r['mb_per_second']:.2f} MB/s; raw divsufsort + kasai "
          f"{r['reference_seconds']:.2f} s; ratio {r['build_over_reference']:.1f}x; peak memory above the start "
          f"{r['build_peak_bytes_per_token']:.1f} B/token (store classes {r['store_peak_bytes_per_token']:.1f})")
    for kind, s in r["sql_stats"].items():
        if s is not None:
            w, v = s["round_trip"], s["server"]
            print(f"  termx.stats SQL, {kind:20} n={w['n']:4}  round trip p50 {w['p50_ms']:.2f} / p99 "
                  f"{w['p99_ms']:.2f} ms; server p50 {v['p50_ms']:.2f} / p99 {v['p99_ms']:.2f} ms")
    lib = r["library_stats"]
    print(f"  library stats              n={lib['n']:4}  p50 {lib['p50_ms']:.3f} ms  p99 {lib['p99_ms']:.3f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", default=DEFAULT_DB, help="admin URL of the server (a scratch database is made there)")
    ap.add_argument("--unit", choices=("byte", "char"), default="byte",
                    help="byte: Reuters + man pages; char: PKU test text")
    ap.add_argument("--mb", type=float, default=4.0, help="slice size in MB (byte unit)")
    ap.add_argument("--thresholds", type=int, nargs="+", default=[2, 4, 8, 16])
    ap.add_argument("--patterns", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=29)
    args = ap.parse_args()
    RESULTS.mkdir(exist_ok=True)
    unit = Unit(args.unit)
    docs, label = (pku_documents(), "pku-char") if unit is Unit.char else \
        (load_documents(args.mb), f"reuters-man-{args.mb:g}mb-byte")
    from termx.index.units import tokenize

    ref_sa, ref_lcp = reference_sa_lcp(tokenize([d.text for d in docs], unit).tokens)
    with scratch_database(args.db) as url:  # compile the build's and the store's kernels before any T is timed
        engine = connect_or_explain(resolve_url(url))
        migrate(engine)
        index_documents(engine, CORPUS, docs[:20], unit, 4, store_min_freq=3)
        engine.dispose()
    results = []
    for t in args.thresholds:
        r = measure(args.db, docs, unit, t, args.patterns, args.seed, ref_sa + ref_lcp)
        report(r)
        results.append(r)
    (RESULTS / f"hotcold-{label}.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
