"""Measure look-ups (issue 4, "Must be measured") on real text, each figure next to a scan measured in the same run.

Indexes reuters21578.jsonl + manpages.jsonl (unit byte; reused when a corpus of that name and size exists) into
the server at --db, then for --patterns substrings drawn from the text (a random document weighted by length, a
random start, 1-40 bytes, moved to character boundaries):

- library: termx.lookup.stats(index, [pattern]) on the loaded, warm index (per call, after a warm-up pass);
- SQL: SELECT * FROM termx.stats(corpus, pattern) over one connection, prepared (per statement, client side);
- concordance of 10 lines: termx.lookup.concordance(..., limit=10) and SELECT * FROM termx.concordance(..., 10);
- reference: counting the same pattern by scanning the text, bytes.count over all documents joined by NUL.

Prints p50/p99 latencies and the scan's p50 divided by each. Run: .venv/bin/python bench/bench_lookup.py
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable

import psycopg
from _data import data_dir

from termx.errors import CorpusNotFound
from termx.index.ingest import read_documents
from termx.index.units import Unit
from termx.lookup import concordance, stats
from termx.storage.corpora import get_corpus
from termx.storage.db import get_engine
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents

DATA = data_dir() / "en"
INPUTS = ("reuters21578.jsonl", "manpages.jsonl")
DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/test"


def draw_patterns(texts: list[bytes], n: int, seed: int) -> list[str]:
    """`n` substrings of 1-40 bytes at random places, widened/narrowed to whole UTF-8 characters."""
    rng = random.Random(seed)
    weights = [len(t) for t in texts]
    out: list[str] = []
    while len(out) < n:
        t = rng.choices(texts, weights)[0]
        length = rng.randint(1, 40)
        if len(t) < length:
            continue
        a = rng.randrange(len(t) - length + 1)
        while a > 0 and t[a] & 0xC0 == 0x80:
            a -= 1
        b = a + length
        while b < len(t) and t[b] & 0xC0 == 0x80:
            b += 1
        out.append(t[a:b].decode("utf-8"))
    return out


def timed(fn: Callable[[str], object] | Callable[[bytes], object], patterns: list[str] | list[bytes]) -> list[float]:
    """Seconds per call."""
    out = []
    for p in patterns:
        t0 = time.perf_counter()
        fn(p)
        out.append(time.perf_counter() - t0)
    return out


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", default=os.environ.get("TERMX_DATABASE_URL", DEFAULT_DB))
    ap.add_argument("--corpus", default="bench-lookup")
    ap.add_argument("--patterns", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--rebuild", action="store_true", help="index again even if the corpus exists")
    args = ap.parse_args()

    engine = get_engine(args.db)
    docs, _ = read_documents([str(DATA / f) for f in INPUTS])
    texts = [d.text.encode("utf-8") for d in docs]
    total = sum(len(t) for t in texts)
    print(f"corpus: {', '.join(INPUTS)}: {len(docs):,} documents, {total / 1e6:.1f} MB, unit byte")
    try:
        info = get_corpus(engine, args.corpus)
        fresh = args.rebuild or info.tokens != total or info.unit != "byte"
    except CorpusNotFound:
        fresh = True
    if fresh:
        t0 = time.perf_counter()
        index_documents(engine, args.corpus, docs, Unit.byte, 4, replace=True)
        print(f"indexed in {time.perf_counter() - t0:.1f} s")
    t0 = time.perf_counter()
    index = load_index(engine, args.corpus)
    print(f"load_index (first call in this process): {time.perf_counter() - t0:.2f} s")

    patterns = draw_patterns(texts, args.patterns, args.seed)
    lengths = [len(p.encode()) for p in patterns]
    print(f"{len(patterns)} patterns, {min(lengths)}-{max(lengths)} bytes (median {statistics.median(lengths)})")

    haystack = b"\0".join(texts)
    timed(lambda p: stats(index, [p]), patterns)  # warm-up: JIT, page cache of the memory-mapped arrays
    lib = timed(lambda p: stats(index, [p]), patterns)
    freqs = [stats(index, [p])[0]["freq"] for p in patterns]

    with psycopg.connect(args.db.replace("postgresql+psycopg://", "postgresql://")) as conn:
        def sql_stats(p: str) -> object:
            return conn.execute("SELECT * FROM termx.stats(%s, %s)", (args.corpus, p), prepare=True).fetchall()

        def sql_conc(p: str) -> object:
            return conn.execute("SELECT * FROM termx.concordance(%s, %s, 10, 40, 10)", (args.corpus, p),
                                prepare=True).fetchall()

        timed(sql_stats, patterns[:100])  # warm-up: plans, shared buffers
        sql = timed(sql_stats, patterns)
        for p, f in zip(patterns[:200], freqs[:200], strict=True):
            assert sql_stats(p)[0][1] == f, p  # type: ignore[index]
        timed(sql_conc, patterns[:50])
        sql_kwic = timed(sql_conc, patterns)
    kwic = timed(lambda p: concordance(index, p, 10, 40, 10), patterns)
    scan = timed(haystack.count, [p.encode("utf-8") for p in patterns])

    fast = [t for t, f in zip(sql, freqs, strict=True) if f >= 2]
    exact = [t for t, f in zip(sql, freqs, strict=True) if f < 2]
    ref = pct(scan, 0.5)
    rows = [("library stats (warm)", lib), ("SQL termx.stats", sql), ("  freq >= 2 (class index probe)", fast),
            ("  freq <= 1 (suffix-array search)", exact), ("library concordance, 10 lines", kwic),
            ("SQL termx.concordance, 10 lines", sql_kwic), ("scan: bytes.count (reference)", scan)]
    print(f"\n{'':36} {'n':>5} {'p50 ms':>9} {'p99 ms':>9} {'scan p50 / p50':>15}")
    for name, xs in rows:
        if xs:
            p50 = pct(xs, 0.5)
            print(f"{name:36} {len(xs):5d} {p50 * 1e3:9.3f} {pct(xs, 0.99) * 1e3:9.3f} {ref / p50:14.0f}x")
    print(f"\ntargets: library p50 <= 1 ms: {pct(lib, 0.5) <= 1e-3}; SQL p50 <= 5 ms: {pct(sql, 0.5) <= 5e-3}; "
          f"both >= 100x the scan: {ref / pct(lib, 0.5) >= 100 and ref / pct(sql, 0.5) >= 100}")


if __name__ == "__main__":
    main()
