"""Measure joint document frequency (issue 16, "Must be measured") on Reuters-21578, unit byte.

1. Build: `index` without sketches, then `termx sketch` on it (load the index + one class-tree walk + COPY),
   each timed; the ratio (build + sketch stages) / build is the "extra build time".
2. Accuracy and time on --pairs random pairs of sketched classes with df_1 >= 50: exact jdf (documents of
   the two intervals), the bottom-k estimate (stored sketches, k = 256) with its 95 % interval, and Apache
   DataSketches theta sketches of the same nominal size (lg_k = 8, trimmed to k) built from the same document
   ids, estimated by theta_intersection. Relative error |estimate − exact| / exact over pairs with jdf > 0.
3. Storage: bytes of termx.sketch per sketched class (table + TOAST + indexes) and hash bytes alone.
4. related: p50/p90/p99 latency of SELECT * FROM termx.related(corpus, term, 10) for 100 frequent words, and of
   the library call, and how many get the same list from both; top 10 for Noriega, OPEC, yen, Panama.

datasketches (PyPI) is needed for part 2 only. Run: .venv/bin/python bench/bench_jdf.py [--db URL] [--reuse]
[--skip-accuracy]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

from termx.errors import CorpusNotFound, PatternError
from termx.index.units import Unit
from termx.jdf.estimate import estimate_jdf
from termx.jdf.exact import interval_documents
from termx.jdf.pairs import load_parts
from termx.jdf.related import related
from termx.jdf.sketch_store import build_sketches
from termx.storage.corpora import get_corpus
from termx.storage.db import get_engine
from termx.storage.indexer import index_paths

DATA = Path(os.environ.get("TERMX_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")) / "en"
DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/test"
NAMED = ("Noriega", "OPEC", "yen", "Panama")


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of values."""
    return float(np.quantile(np.asarray(values, dtype=float), q)) if values else float("nan")


def build(engine, corpus: str, reuse: bool) -> dict:  # type: ignore[no-untyped-def,type-arg]
    """Index (timed), then sketch (timed); with --reuse an existing corpus keeps its stored timings."""
    try:
        info = get_corpus(engine, corpus)
        if not reuse:
            raise CorpusNotFound("rebuild")
        build_s = sum(info.timings.values())
    except CorpusNotFound:
        t0 = time.perf_counter()
        index_paths(engine, corpus, [str(DATA / "reuters21578.jsonl")], Unit.byte, replace=True)
        build_s = time.perf_counter() - t0
    summary = build_sketches(engine, corpus)
    s = summary["seconds"]
    return {"build_s": build_s, "load_index_s": s["load index"], "sketch_walk_s": s["sketch"],
            "related_classes_s": s["related classes"], "store_sketches_s": s["store sketches"],
            "classes": summary["classes"], "related_classes": summary["related_classes"],
            "hash_bytes_per_class": summary["bytes_per_class"]}


def theta(docs: np.ndarray, lg_k: int):  # type: ignore[no-untyped-def]
    """A DataSketches theta sketch of document ids, trimmed to its nominal size."""
    import datasketches as ds

    s = ds.update_theta_sketch(lg_k)
    for d in docs.tolist():
        s.update(d)
    s.trim()
    return s.compact()


def accuracy(parts, n_pairs: int, seed: int) -> dict:  # type: ignore[no-untyped-def,type-arg]
    """Relative errors and times per estimate on random pairs of sketched classes with df >= 50."""
    import datasketches as ds

    part = parts[0]
    index, sk = part.index, part.sketches
    df1 = np.asarray(index.cls_df[:, 0])[sk.cls]
    pool = np.flatnonzero(df1 >= 50)
    rng = np.random.default_rng(seed)
    pairs = rng.choice(pool, size=(n_pairs, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    D = index.n_docs
    docs: dict[int, np.ndarray] = {}
    thetas: dict[int, Any] = {}
    lg_k = int(np.log2(sk.k))
    err_b, err_t, inside, t_b, t_e, t_t, n_zero = [], [], 0, [], [], [], 0
    groups: dict[str, tuple[list[float], list[float]]] = {"estimated": ([], []), "estimated_jdf>=10%": ([], [])}
    for x, y in pairs.tolist():
        t0 = time.perf_counter()
        dx = interval_documents(index, int(index.cls_i[sk.cls[x]]), int(index.cls_j[sk.cls[x]]))
        dy = interval_documents(index, int(index.cls_i[sk.cls[y]]), int(index.cls_j[sk.cls[y]]))
        truth = len(np.intersect1d(dx, dy, assume_unique=True))
        t_e.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        e = estimate_jdf(np.asarray(sk.of(x)), np.asarray(sk.of(y)), len(dx), len(dy), sk.k, D)
        t_b.append(time.perf_counter() - t0)
        for c, dc in ((x, dx), (y, dy)):
            if c not in thetas:
                docs[c] = dc
                thetas[c] = theta(dc, lg_k)
        t0 = time.perf_counter()
        inter = ds.theta_intersection()
        inter.update(thetas[x])
        inter.update(thetas[y])
        te = inter.get_result().get_estimate()
        t_t.append(time.perf_counter() - t0)
        inside += e.low <= truth <= e.high
        if truth > 0:
            eb, et = abs(e.jdf - truth) / truth, abs(te - truth) / truth
            err_b.append(eb)
            err_t.append(et)
            if not e.exact:  # at least one sketch is a sample (df >= k), not the whole document set
                groups["estimated"][0].append(eb)
                groups["estimated"][1].append(et)
                if truth >= 0.1 * min(len(dx), len(dy)):
                    groups["estimated_jdf>=10%"][0].append(eb)
                    groups["estimated_jdf>=10%"][1].append(et)
        else:
            n_zero += 1
    return {"pairs": len(pairs), "pairs_jdf0": n_zero,
            "bottomk_relerr_median": pct(err_b, 0.5), "bottomk_relerr_p95": pct(err_b, 0.95),
            "theta_relerr_median": pct(err_t, 0.5), "theta_relerr_p95": pct(err_t, 0.95),
            **{f"{g}_{name}": v for g, (b, t) in groups.items()
               for name, v in (("pairs", len(b)), ("bottomk_relerr_median", pct(b, 0.5)),
                               ("bottomk_relerr_p95", pct(b, 0.95)), ("theta_relerr_median", pct(t, 0.5)),
                               ("theta_relerr_p95", pct(t, 0.95)))},
            "interval95_coverage": inside / len(pairs),
            "us_per_estimate_bottomk": 1e6 * statistics.median(t_b),
            "us_per_estimate_exact": 1e6 * statistics.median(t_e),
            "us_per_estimate_theta": 1e6 * statistics.median(t_t),
            "theta_retained_mean": float(np.mean([t.num_retained for t in thetas.values()])),
            "bottomk_retained_mean": float(np.mean([len(sk.of(c)) for c in thetas]))}


def frequent_words(texts: list[str], n: int, seed: int) -> list[str]:
    """`n` words drawn from the 1000 most frequent alphabetic words of 4+ letters."""
    counts = Counter(w for t in texts for w in set(re.findall(r"[A-Za-z]{4,}", t)))
    top = [w for w, _ in counts.most_common(1000)]
    return random.Random(seed).sample(top, n)


def related_latency(url: str, parts, corpus: str, words: list[str],  # type: ignore[no-untyped-def]
                    sql_terms: int) -> dict:  # type: ignore[type-arg]
    """p50/p99 of termx.related from SQL (the first sql_terms words) and from the library, 10 results each, and
    how many words get the same list (term, df, jdf) from both."""
    sql_t, lib_t, sql_rows = [], [], {}
    with psycopg.connect(url) as conn:
        conn.execute("SELECT * FROM termx.related(%s, %s, 10)", (corpus, words[0])).fetchall()  # warm
        for w in words[:sql_terms]:
            t0 = time.perf_counter()
            rows = conn.execute("SELECT term, df, jdf FROM termx.related(%s, %s, 10)", (corpus, w),
                                prepare=True).fetchall()
            sql_t.append(time.perf_counter() - t0)
            sql_rows[w] = [tuple(r) for r in rows]
    related(parts, words[0], 10)
    same = 0
    for w in words:
        t0 = time.perf_counter()
        lib = related(parts, w, 10)
        lib_t.append(time.perf_counter() - t0)
        same += w in sql_rows and sql_rows[w] == [(r["term"], r["df"], r["jdf"]) for r in lib]
    return {"terms": len(words), "sql_terms": len(sql_t), "sql_p50_ms": 1e3 * pct(sql_t, 0.5),
            "sql_p90_ms": 1e3 * pct(sql_t, 0.9), "sql_p99_ms": 1e3 * pct(sql_t, 0.99),
            "library_p50_ms": 1e3 * pct(lib_t, 0.5), "library_p90_ms": 1e3 * pct(lib_t, 0.9),
            "library_p99_ms": 1e3 * pct(lib_t, 0.99), "same_list_library_and_sql": same}


def top10(url: str, parts, corpus: str) -> dict:  # type: ignore[no-untyped-def,type-arg]
    """The library's and SQL's top 10 by G² for the named terms (or why there is none)."""
    out: dict = {}  # type: ignore[type-arg]
    with psycopg.connect(url) as conn:
        for term in NAMED:
            try:
                lib = [(r["term"], r["df"], r["jdf"], round(r["score"], 1)) for r in related(parts, term, 10)]
            except PatternError as exc:
                out[term] = str(exc)
                continue
            sql = conn.execute("SELECT term, df, jdf, score FROM termx.related(%s, %s, 10)", (corpus, term)).fetchall()
            out[term] = {"library": lib, "sql_same": [x[:3] for x in lib] == [tuple(r[:3]) for r in sql]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", default=os.environ.get("TERMX_DATABASE_URL", DEFAULT_DB))
    ap.add_argument("--corpus", default="bench_jdf_reuters")
    ap.add_argument("--pairs", type=int, default=10000)
    ap.add_argument("--terms", type=int, default=100)
    ap.add_argument("--sql-terms", type=int, default=100, help="How many of the terms to time from SQL.")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--reuse", action="store_true", help="Keep an existing corpus (its stored build timings).")
    ap.add_argument("--accuracy-only", action="store_true", help="Only part 2, on the stored sketches.")
    ap.add_argument("--skip-accuracy", action="store_true", help="Leave out part 2 (needs datasketches).")
    args = ap.parse_args()
    engine = get_engine(args.db)
    out: dict = {"load": os.getloadavg()}  # type: ignore[type-arg]
    if args.accuracy_only:
        out["accuracy"] = accuracy(load_parts(engine, args.corpus, with_sketches=True), args.pairs, args.seed)
        print(json.dumps(out, indent=2), flush=True)  # noqa: T201
        return
    out["build"] = b = build(engine, args.corpus, args.reuse)
    stages = b["sketch_walk_s"] + b["related_classes_s"] + b["store_sketches_s"]
    b["ratio_with_sketch_stages"] = (b["build_s"] + stages) / b["build_s"]
    b["ratio_with_load_index"] = (b["build_s"] + b["load_index_s"] + stages) / b["build_s"]
    with psycopg.connect(args.db) as conn:
        size = conn.execute("SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits"
                           " WHERE inhparent = 'termx.sketch'::regclass").fetchone()[0]  # type: ignore[index]
        related = conn.execute("SELECT pg_total_relation_size('termx.related_class')"
                               " + pg_total_relation_size('termx.related_doc')").fetchone()[0]  # type: ignore[index]
    b["stored_bytes_per_class"] = int(size) / b["classes"]
    b["related_tables_bytes"] = int(related)
    print(json.dumps({"build": b}, indent=2), flush=True)  # noqa: T201
    parts = load_parts(engine, args.corpus, with_sketches=True)
    if not args.skip_accuracy:
        out["accuracy"] = accuracy(parts, args.pairs, args.seed)
        print(json.dumps({"accuracy": out["accuracy"]}, indent=2), flush=True)  # noqa: T201
    texts = [json.loads(line)["text"] for line in (DATA / "reuters21578.jsonl").open(encoding="utf-8")]
    out["related"] = related_latency(args.db, parts, args.corpus, frequent_words(texts, args.terms, args.seed),
                                     args.sql_terms)
    out["top10"] = top10(args.db, parts, args.corpus)
    out["load_after"] = os.getloadavg()
    print(json.dumps(out, indent=2, ensure_ascii=False))  # noqa: T201


if __name__ == "__main__":
    main()
