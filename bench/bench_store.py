"""Measure what the class store costs, by column and by class frequency (groundwork for issue 29; termx/ unchanged).

Indexes a slice of real text into a fresh database it creates on the --db server (dropped afterwards): by default
the first --mb MB of reuters21578.jsonl + manpages.jsonl interleaved (bench/bench_index.py's prefixes), unit byte;
with --unit char the SIGHAN 2005 PKU test text in 10-line documents. Then reports, as a table and as JSON under
bench/results/:

- tokens, class rows, trivial classes; the heap, TOAST and each index of the class partition, and every termx
  relation, in bytes and bytes per token; the average width of each column (avg(pg_column_size(col)));
- the classes by freq (share of rows with freq 2, 3, 4..7, 8..15, >= 16; freq <= 1 are the trivial classes, never
  stored) and, for T = 2, 4, 8, 16, the bytes per token if only classes with freq >= T were stored. That is an
  ESTIMATE (rows kept x the measured bytes per row); for --copy-t it is also MEASURED on a copy table holding
  only those rows with the same two indexes;
- the build time of the library's index_documents (what `termx index` runs) next to raw divsufsort + kasai of the
  same token array in the same process (the ratio the issue quotes);
- the cost of computing a cold class on demand from the loaded arrays: for --patterns random patterns with
  2 <= freq < --cold-t, freq and df_k from the suffix-array interval and a doc-of-position array, timed against
  today's stored-class look-up (the same interval, then the class key index), p50/p99, same process.

These are measurements for choosing T, not a change of the store. Run:
  .venv/bin/python bench/bench_store.py --mb 4
  .venv/bin/python bench/bench_store.py --unit char
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from _data import data_dir
from bench_index import load_documents, reference_sa_lcp, scratch_database
from psycopg import sql

from termx.index.ingest import Document
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.storage.db import connect_or_explain, resolve_url, upgrade
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents
from termx.storage.partitions import CLASSES, table

DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/test"
RESULTS = Path(__file__).resolve().parent / "results"
CORPUS = "bench-store"
THRESHOLDS = (2, 4, 8, 16)
# (label, lowest freq, highest freq or None): the freq buckets of the distribution
BUCKETS = (("<=1", 0, 1), ("2", 2, 2), ("3", 3, 3), ("4..7", 4, 7), ("8..15", 8, 15), (">=16", 16, None))


# ---------------------------------------------------------------------------------------------------------------
# Pure arithmetic (tests/test_bench_store.py)


def freq_shares(counts: Mapping[int, int]) -> dict[str, float]:
    """Share of classes in each freq bucket, from {freq: number of classes}."""
    total = sum(counts.values())
    out = {}
    for label, lo, hi in BUCKETS:
        n = sum(c for f, c in counts.items() if f >= lo and (hi is None or f <= hi))
        out[label] = n / total if total else 0.0
    return out


def rows_at_least(counts: Mapping[int, int], threshold: int) -> int:
    """Classes with freq >= threshold."""
    return sum(c for f, c in counts.items() if f >= threshold)


def estimated_bytes_per_token(counts: Mapping[int, int], class_bytes: int, other_bytes: int, tokens: int,
                              threshold: int) -> dict[str, float]:
    """Bytes per token of the class table and of all termx relations if only rows with freq >= threshold were
    kept, scaling the measured class bytes per stored row (an estimate: pages and index fill are not linear)."""
    stored = rows_at_least(counts, 2)
    kept = rows_at_least(counts, threshold)
    cls = class_bytes * kept / stored if stored else 0.0
    return {"threshold": threshold, "rows": kept, "row_share": kept / stored if stored else 0.0,
            "class_bytes_per_token": cls / tokens, "all_bytes_per_token": (cls + other_bytes) / tokens}


def doc_of_position(doc_start: np.ndarray, length: int) -> np.ndarray:
    """Document number of every position of a token array of `length` (separators count to the document before)."""
    return (np.searchsorted(doc_start, np.arange(length), side="right") - 1).astype(np.int32)


def df_of_docs(docs: np.ndarray, max_k: int) -> list[int]:
    """df_1..df_K from the document number of each occurrence: documents with at least k occurrences."""
    _, counts = np.unique(docs, return_counts=True)
    return [int(np.count_nonzero(counts >= k)) for k in range(1, max_k + 1)]


def df_of_interval(sa: np.ndarray, doc_of: np.ndarray, i: int, j: int, max_k: int) -> list[int]:
    """df_1..df_K of the interval <i,j> from the suffix array and a doc-of-position array (4 bytes a token)."""
    return df_of_docs(doc_of[sa[i: j + 1]], max_k)


def df_of_interval_searched(sa: np.ndarray, doc_start: np.ndarray, i: int, j: int, max_k: int) -> list[int]:
    """The same without the doc-of-position array: each occurrence's document by binary search in doc_start."""
    return df_of_docs(np.searchsorted(doc_start, sa[i: j + 1], side="right"), max_k)


def percentile(xs: Sequence[float], q: float) -> float:
    """The q-quantile of xs (nearest rank)."""
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


# ---------------------------------------------------------------------------------------------------------------
# Input


def pku_documents(lines_per_doc: int = 10) -> list[Document]:
    """The SIGHAN 2005 PKU test text (unsegmented), non-empty lines grouped into pseudo-documents."""
    text = (data_dir() / "zh" / "sighan2005-pku" / "pku_test.utf8").read_text(encoding="utf-8")
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    return [Document(f"pku-{n // lines_per_doc}", "\n".join(lines[n: n + lines_per_doc]))
            for n in range(0, len(lines), lines_per_doc)]


# ---------------------------------------------------------------------------------------------------------------
# Sizes in PostgreSQL


def class_partitions(conn: psycopg.Connection) -> list[int]:
    """Shard ids of the class table's partitions."""
    return [r[0] for r in conn.execute("SELECT id FROM termx.shard ORDER BY id").fetchall()]


def relation_sizes(conn: psycopg.Connection, table: sql.Composable) -> dict[str, Any]:
    """Heap, TOAST (with its index) and each index of one table, in bytes."""
    rel = conn.execute(sql.SQL("SELECT {}::regclass::oid").format(sql.Literal(table.as_string(conn)))).fetchone()
    assert rel is not None
    oid = rel[0]
    heap, toast = conn.execute("SELECT pg_relation_size(c.oid), COALESCE(pg_total_relation_size(NULLIF("
                               "c.reltoastrelid, 0)), 0) FROM pg_class c WHERE c.oid = %s", (oid,)).fetchone() or (0, 0)
    indexes: dict[str, int] = dict(conn.execute(
        "SELECT x.indexrelid::regclass::text, pg_relation_size(x.indexrelid) FROM pg_index x "
        "WHERE x.indrelid = %s ORDER BY 1", (oid,)).fetchall())
    return {"heap": heap, "toast": toast, "indexes": indexes, "total": heap + toast + sum(indexes.values())}


def column_widths(conn: psycopg.Connection, table: sql.Composable) -> dict[str, float]:
    """avg(pg_column_size(col)) of every column, and of the whole row (row), on a table."""
    rel = conn.execute(sql.SQL("SELECT {}::regclass::oid").format(sql.Literal(table.as_string(conn)))).fetchone()
    assert rel is not None
    cols = [r[0] for r in conn.execute("SELECT attname FROM pg_attribute WHERE attrelid = %s AND attnum > 0 "
                                       "AND NOT attisdropped ORDER BY attnum", (rel[0],)).fetchall()]
    parts = [sql.SQL("avg(pg_column_size(t.{}))").format(sql.Identifier(c)) for c in cols]
    row = conn.execute(sql.SQL("SELECT {}, avg(pg_column_size(t.*)) FROM {} t")
                       .format(sql.SQL(", ").join(parts), table)).fetchone()
    assert row is not None
    return {name: float(v or 0) for name, v in zip([*cols, "row"], row, strict=True)}


def termx_relations(conn: psycopg.Connection) -> dict[str, int]:
    """pg_total_relation_size of every ordinary table in schema termx (the database holds one corpus); tables of
    under 64 kB (empty ones with their indexes) are summed as "other tables"."""
    rows = conn.execute("SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
                        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'termx' "
                        "AND c.relkind = 'r' ORDER BY 2 DESC").fetchall()
    out = {name: size for name, size in rows if size >= 65536}
    return {**out, "other tables": sum(size for name, size in rows if name not in out)}


def freq_counts(conn: psycopg.Connection) -> dict[int, int]:
    """{freq: stored class rows with that freq}."""
    return dict(conn.execute("SELECT freq, count(*) FROM termx.class GROUP BY freq").fetchall())


def measured_copy(conn: psycopg.Connection, shard_id: int, threshold: int) -> dict[str, Any]:
    """Sizes of a copy of one partition holding only rows with freq >= threshold, with the same two indexes as
    termx.storage.partitions.index (built after the rows, as the builder does); dropped afterwards."""
    part = table(CLASSES, shard_id)
    copy = sql.Identifier("termx", "bench_store_copy")
    conn.execute(sql.SQL("CREATE TABLE {} (LIKE {})").format(copy, part))
    try:
        conn.execute(sql.SQL("INSERT INTO {} SELECT * FROM {} WHERE freq >= %s").format(copy, part), (threshold,))
        conn.execute(sql.SQL("CREATE INDEX ON {} (rep, sil)").format(copy))
        conn.execute(sql.SQL("CREATE INDEX ON {} (i, j)").format(copy))
        conn.execute(sql.SQL("VACUUM ANALYZE {}").format(copy))
        return relation_sizes(conn, copy)
    finally:
        conn.execute(sql.SQL("DROP TABLE {}").format(copy))


# ---------------------------------------------------------------------------------------------------------------
# Cold classes on demand


def draw_intervals(index: LoadedIndex, n: int, lo: int, hi: int, seed: int,
                   tries: int = 200_000) -> list[tuple[np.ndarray, int, int]]:
    """Up to `n` patterns (token ids of 1-20 tokens at random text positions) whose class has lo <= freq < hi,
    with their interval <i,j>."""
    rng = random.Random(seed)
    out: list[tuple[np.ndarray, int, int]] = []
    tokens, total = index.tokens, len(index.tokens)
    for _ in range(tries):
        if len(out) >= n:
            break
        p = rng.randrange(total)
        ids = tokens[p: p + rng.randint(1, 20)]
        cut = np.flatnonzero(ids == 0)
        ids = ids[: cut[0]] if len(cut) else ids
        if len(ids) == 0:
            continue
        i, j = index.interval(ids)
        if lo <= j - i + 1 < hi:
            out.append((ids, i, j))
    return out


def timed_each(fn: Callable[[np.ndarray], object], patterns: Sequence[np.ndarray]) -> list[float]:
    """Seconds per call."""
    out = []
    for p in patterns:
        t0 = time.perf_counter()
        fn(p)
        out.append(time.perf_counter() - t0)
    return out


def cold_latency(index: LoadedIndex, n: int, cold_t: int, seed: int) -> dict[str, Any]:
    """p50/p99 of a stored-class look-up and of computing the same class on demand, on patterns with
    2 <= freq < cold_t; every computed df checked equal to the stored one."""
    sample = draw_intervals(index, n, 2, cold_t, seed)
    patterns = [ids for ids, _, _ in sample]
    max_k = index.cls_df.shape[1]
    t0 = time.perf_counter()
    doc_of = doc_of_position(index.doc_start, len(index.tokens))
    prep = time.perf_counter() - t0

    def stored(ids: np.ndarray) -> list[int]:
        i, j = index.interval(ids)
        return [j - i + 1, *index.cls_df[index.class_of(i, j)].tolist()]

    def computed(ids: np.ndarray) -> list[int]:
        i, j = index.interval(ids)
        return [j - i + 1, *df_of_interval(index.sa, doc_of, i, j, max_k)]

    def searched(ids: np.ndarray) -> list[int]:
        i, j = index.interval(ids)
        return [j - i + 1, *df_of_interval_searched(index.sa, index.doc_start, i, j, max_k)]

    def interval_only(ids: np.ndarray) -> tuple[int, int]:
        return index.interval(ids)

    for ids in patterns:
        assert stored(ids) == computed(ids) == searched(ids), ids
    runs = {"interval only (both share it)": interval_only, "stored: interval + class key index": stored,
            "computed: + df_k, doc-of-position array": computed,
            "computed: + df_k, searchsorted doc_start": searched}
    out: dict[str, Any] = {"patterns": len(patterns), "cold_t": cold_t, "doc_of_position_seconds": prep,
                           "doc_of_position_bytes": doc_of.nbytes}
    for name, fn in runs.items():
        timed_each(fn, patterns)  # warm-up
        xs = timed_each(fn, patterns)
        out[name] = {"p50_ms": percentile(xs, 0.5) * 1e3, "p99_ms": percentile(xs, 0.99) * 1e3}
    return out


# ---------------------------------------------------------------------------------------------------------------
# The run


def measure(server: str, docs: list[Document], unit: Unit, copy_t: int, n_patterns: int, cold_t: int,
            seed: int) -> dict[str, Any]:
    """Index `docs` into a scratch database on `server` and measure the store, the build and the cold look-ups."""
    text_bytes = sum(len(d.text.encode()) for d in docs)
    with scratch_database(server) as url:
        engine = connect_or_explain(resolve_url(url))
        upgrade(engine)  # every migration: the build and look-ups of today's termx
        t0 = time.perf_counter()
        summary = index_documents(engine, CORPUS, docs, unit, 4)
        build = time.perf_counter() - t0
        index = load_index(engine, CORPUS)
        ref_sa, ref_lcp = reference_sa_lcp(np.array(index.tokens))  # a writable copy of the mapped array
        tokens = summary.tokens
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
            shards = class_partitions(conn)
            assert len(shards) == 1, "one shard expected"
            part = table(CLASSES, shards[0])
            cls = relation_sizes(conn, part)
            widths = column_widths(conn, part)
            relations = termx_relations(conn)
            counts = freq_counts(conn)
            copy = measured_copy(conn, shards[0], copy_t)
        engine.dispose()
    all_bytes = sum(relations.values())
    other = all_bytes - cls["total"]
    counts_all = {**counts, 1: summary.trivial_classes}
    latency = cold_latency(index, n_patterns, cold_t, seed)
    return {"unit": unit.value, "documents": len(docs), "text_bytes": text_bytes, "tokens": tokens,
            "class_rows": summary.classes, "trivial_classes": summary.trivial_classes,
            "build_seconds": build, "build_stages": summary.seconds, "ref_sa_seconds": ref_sa,
            "ref_lcp_seconds": ref_lcp, "build_over_ref": build / (ref_sa + ref_lcp),
            "class_sizes": cls, "column_widths": widths, "relations": relations, "all_bytes": all_bytes,
            "freq_shares_rows": freq_shares(counts), "freq_shares_all_classes": freq_shares(counts_all),
            "estimates": [estimated_bytes_per_token(counts, cls["total"], other, tokens, t) for t in THRESHOLDS],
            "measured_copy": {"threshold": copy_t, **copy, "class_bytes_per_token": copy["total"] / tokens,
                              "all_bytes_per_token": (copy["total"] + other) / tokens},
            "cold_latency": latency, "load_average": os.getloadavg()}


def report(r: dict[str, Any]) -> None:
    """The measurements as tables on stdout."""
    n = r["tokens"]
    print(f"\n{r['unit']}: {r['documents']:,} documents, {r['text_bytes'] / 1e6:.1f} MB, {n:,} tokens, "
          f"{r['class_rows']:,} class rows, {r['trivial_classes']:,} trivial classes; load {r['load_average']}")
    print(f"build (index_documents) {r['build_seconds']:.1f} s = {r['text_bytes'] / 1e6 / r['build_seconds']:.2f} "
          f"MB/s; raw divsufsort {r['ref_sa_seconds']:.2f} s + kasai {r['ref_lcp_seconds']:.2f} s; "
          f"ratio {r['build_over_ref']:.1f}x")
    c = r["class_sizes"]
    print(f"\n{'relation':62} {'MB':>9} {'B/token':>8}")
    for name, size in [("class heap", c["heap"]), ("class TOAST", c["toast"]), *c["indexes"].items(),
                       ("class total", c["total"]), *r["relations"].items(), ("all termx relations", r["all_bytes"])]:
        print(f"{name[:62]:62} {size / 1e6:9.1f} {size / n:8.2f}")
    print(f"\n{'column':12} {'avg bytes':>9}")
    for name, w in r["column_widths"].items():
        print(f"{name:12} {w:9.2f}")
    print(f"\n{'freq':8} {'rows %':>7} {'all classes %':>14}")
    for label in r["freq_shares_rows"]:
        print(f"{label:8} {100 * r['freq_shares_rows'][label]:7.1f} {100 * r['freq_shares_all_classes'][label]:14.1f}")
    print(f"\n{'T':>3} {'rows kept':>10} {'share':>6} {'class B/tok':>12} {'all B/tok':>10}  (estimate)")
    for e in r["estimates"]:
        print(f"{e['threshold']:3d} {e['rows']:10,} {e['row_share']:6.2f} {e['class_bytes_per_token']:12.2f} "
              f"{e['all_bytes_per_token']:10.2f}")
    m = r["measured_copy"]
    print(f"measured copy T={m['threshold']}: class {m['class_bytes_per_token']:.2f} B/token, all "
          f"{m['all_bytes_per_token']:.2f} B/token (heap {m['heap'] / 1e6:.1f} MB, TOAST {m['toast'] / 1e6:.1f} MB, "
          f"indexes {sum(m['indexes'].values()) / 1e6:.1f} MB)")
    lat = r["cold_latency"]
    print(f"\ncold classes (2 <= freq < {lat['cold_t']}), {lat['patterns']} patterns; doc-of-position array "
          f"{lat['doc_of_position_bytes'] / 1e6:.1f} MB in {lat['doc_of_position_seconds']:.2f} s")
    for name, v in lat.items():
        if isinstance(v, dict):
            print(f"  {name:44} p50 {v['p50_ms']:.4f} ms  p99 {v['p99_ms']:.4f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", default=DEFAULT_DB, help="admin URL of the server (a scratch database is made there)")
    ap.add_argument("--unit", choices=("byte", "char"), default="byte",
                    help="byte: Reuters + man pages; char: PKU test text")
    ap.add_argument("--mb", type=float, nargs="+", default=[4.0], help="slice sizes in MB (byte unit)")
    ap.add_argument("--copy-t", type=int, default=4, help="T whose cut table is built for real")
    ap.add_argument("--cold-t", type=int, default=8, help="cold patterns have 2 <= freq < this")
    ap.add_argument("--patterns", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=29)
    args = ap.parse_args()
    RESULTS.mkdir(exist_ok=True)
    if args.unit == "char":
        slices: list[tuple[str, list[Document]]] = [("pku-char", pku_documents())]
    else:
        slices = [(f"reuters-man-{mb:g}mb-byte", load_documents(mb)) for mb in args.mb]
    for label, docs in slices:
        r = measure(args.db, docs, Unit(args.unit), args.copy_t, args.patterns, args.cold_t, args.seed)
        report(r)
        (RESULTS / f"store-{label}.json").write_text(json.dumps(r, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
