"""Measure termx as a service (issue 12, "Must be measured"); every figure beside a reference from the same run.

1. CLI wall time, N calls each (default 50), against a running PostgreSQL (--db): `termx --help`,
   `termx corpora`, `termx stats CORPUS Noriega`, next to `psql -c "SELECT * FROM termx.stats(...)"` and
   `python -c "import typer, rich.console"` (targets: --help <= 2.5x that import, stats <= 8x psql).
2. `termx segment` start-up on CORPUS: training (no stored model: what every call cost before models were
   stored), then loading the stored model from PostgreSQL (empty disk cache) and from the disk cache
   (target <= 3 s).
3. New text: Reuters documents left out of the index (corpus --heldout-corpus, built by --build from
   reuters21578.jsonl: alnum condition, the first 500 stories by newid left out), segmented from the stored model
   on one core: characters/s and boundary/word F1 against the original spacing, beside the same documents
   segmented inside a corpus that holds them (--incorpus-corpus: all 19,043 stories) and beside instant-segment
   (PyPI, a unigram/bigram word-list segmenter; its lists counted from the spaced text of the context stories).
4. HTTP: `termx serve` on 127.0.0.1, 8 concurrent clients for 30 s each on /stats and /segment: requests/s,
   p50, p99, errors.

Run: python bench/bench_service.py --db postgresql://postgres@127.0.0.1:5432/DB [--build] [--only cli,...]
Results are printed and saved to bench/results/service.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("TERMX_DATA", ROOT.parent / "shared" / "data"))
RESULTS = ROOT / "bench" / "results"
HELD_OUT = 500


def _timed(cmd: list[str], env: dict[str, str], stdin: str | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, input=stdin, text=True, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def _summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"p50_s": statistics.median(ordered), "p90_s": ordered[int(0.9 * (len(ordered) - 1))],
            "mean_s": statistics.fmean(ordered), "calls": len(ordered)}


def cli_wall_time(db: str, corpus: str, calls: int, env: dict[str, str]) -> dict[str, Any]:
    """Interleaved calls (one of each per round), so load changes hit every command alike: each termx command
    run in a process of its own (TERMX_DAEMON=0) and through a running `termx daemon` (what the targets are
    read from; a user who runs many commands starts one)."""
    py = sys.executable
    url = db.replace("postgresql+psycopg://", "postgresql://")
    alone = {**env, "TERMX_DAEMON": "0"}
    warm = {k: v for k, v in env.items() if k != "TERMX_DAEMON"}
    termx = {"termx --help": ["--help"], "termx corpora": ["corpora", "--db", db],
             f"termx stats {corpus} Noriega": ["stats", corpus, "Noriega", "--db", db]}
    commands: dict[str, tuple[list[str], dict[str, str]]] = {
        "python -c 'import typer, rich.console'": ([py, "-c", "import typer, rich.console"], env),
        f"psql termx.stats('{corpus}','Noriega')": (["psql", url, "-XAtc",
                                                     f"SELECT * FROM termx.stats('{corpus}','Noriega')"], env),
        **{f"{name} (own process)": ([py, "-m", "termx", *args], alone) for name, args in termx.items()},
        **{f"{name} (daemon)": ([py, "-m", "termx", *args], warm) for name, args in termx.items()},
    }
    subprocess.run([py, "-m", "termx", "daemon", "start"], env=warm, check=True)
    try:
        for cmd, cmd_env in commands.values():  # warm the page cache and the disk caches
            _timed(cmd, cmd_env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(calls):
            for name, (cmd, cmd_env) in commands.items():
                times[name].append(_timed(cmd, cmd_env))
    finally:
        subprocess.run([py, "-m", "termx", "daemon", "stop"], env=warm, check=True)
    out: dict[str, Any] = {name: _summary(t) for name, t in times.items()}
    typer_, psql = (out[name]["p50_s"] for name in list(commands)[:2])
    out["ratios"] = {f"help / import typer+rich, {how} (target <= 2.5)": out[f"termx --help ({how})"]["p50_s"] / typer_
                     for how in ("daemon", "own process")}
    out["ratios"].update({f"stats / psql, {how} (target <= 8)":
                          out[f"termx stats {corpus} Noriega ({how})"]["p50_s"] / psql
                          for how in ("daemon", "own process")})
    return out


def segment_startup(db: str, corpus: str, env: dict[str, str], keep: bool = False) -> dict[str, Any]:
    """Wall time of `termx segment CORPUS` on one line: trained (no stored model), from PostgreSQL, from cache."""
    import sqlalchemy as sa

    from termx.storage.db import get_engine

    engine = get_engine(db)
    if not keep:
        with engine.begin() as conn:
            conn.execute(sa.text("DELETE FROM termx.segment_model m USING termx.corpus c WHERE c.id = m.corpus_id"
                                 " AND c.name = :n"), {"n": corpus})
    home = Path(env["TERMX_HOME"]) / "cache"
    for folder in home.glob("*"):  # drop cached models (not the index cache)
        if (folder / "meta.json").exists() and "fkeys.npy" in os.listdir(folder):
            shutil.rmtree(folder)
    cmd = [sys.executable, "-m", "termx", "segment", corpus, "-", "--db", db, "-q"]
    line = "Noriega's lawyers said the general would not return to Panama\n"
    trained = None if keep else _timed(cmd, env, line)
    for folder in home.glob("*"):
        if (folder / "meta.json").exists() and "fkeys.npy" in os.listdir(folder):
            shutil.rmtree(folder)
    database = _timed(cmd, env, line)
    cached = [_timed(cmd, env, line) for _ in range(5)]
    help_time = statistics.median(_timed([sys.executable, "-m", "termx", "--help"], env) for _ in range(5))
    return {"trained_s": trained, "from_database_s": database, "from_cache_p50_s": statistics.median(cached),
            "termx_help_p50_s (reference)": help_time, "target": "<= 3 s"}


def _reuters() -> list[Any]:
    from termx.experiments.whitespace import Condition, spaced_documents
    from termx.index.ingest import Document

    rows = [json.loads(line) for line in (DATA / "en" / "reuters21578.jsonl").open(encoding="utf-8")]
    rows.sort(key=lambda r: r["newid"])
    return spaced_documents([Document(str(r["id"]), r["text"]) for r in rows], Condition.alnum)


def build(db: str, heldout: str, incorpus: str) -> None:
    from termx.index.ingest import Document
    from termx.index.units import Unit
    from termx.storage.db import get_engine
    from termx.storage.indexer import index_documents

    docs = [Document(d.name, d.text) for d in _reuters()]
    engine = get_engine(db)
    index_documents(engine, heldout, docs[HELD_OUT:], Unit.byte, 3, replace=True)
    index_documents(engine, incorpus, docs, Unit.byte, 3, replace=True)


def _f1(gold_docs: list[Any], predicted: list[list[str]]) -> dict[str, float]:
    from termx.evaluation.metrics import micro_average, segmentation_prf

    scores = [segmentation_prf(d.lines[0], p) for d, p in zip(gold_docs, predicted, strict=True)]
    return {"boundary_f1": micro_average([s["boundary"] for s in scores]).f1,
            "word_f1": micro_average([s["word"] for s in scores]).f1}


def _scored_inside(engine: Any, corpus: str) -> dict[str, float] | None:
    """Boundary and word F1 of the held-out stories as `termx whitespace` scored them inside `corpus` (its
    first evaluation documents, class-tree path), when such a run is stored."""
    import sqlalchemy as sa

    from termx.evaluation.metrics import PRF

    with engine.connect() as conn:
        row = conn.execute(sa.text(
            "SELECT sum(b_tp), sum(b_fp), sum(b_fn), sum(w_tp), sum(w_fp), sum(w_fn), count(*) FROM termx.seg_score s"
            " JOIN termx.seg_run r ON r.id = s.run_id JOIN termx.corpus c ON c.id = r.corpus_id"
            " WHERE c.name = :c AND s.scorer = 'branching' AND s.doc_no < :n"
            " AND r.id = (SELECT max(id) FROM termx.seg_run WHERE corpus_id = c.id)"),
            {"c": corpus, "n": HELD_OUT}).one()
    if not row[6] or row[6] < HELD_OUT:
        return None
    tp, fp, fn, wtp, wfp, wfn = (int(v) for v in row[:6])
    return {"boundary_f1": PRF(tp, tp + fn, tp + fp).f1, "word_f1": PRF(wtp, wtp + wfn, wtp + wfp).f1,
            "from": f"termx whitespace run on {corpus}"}


def new_text(db: str, heldout: str, incorpus: str) -> dict[str, Any]:
    from termx.wordbreak.corpus_model import segment_model

    docs = _reuters()
    held, context = docs[:HELD_OUT], docs[HELD_OUT:]
    texts = [d.text for d in held]
    chars = sum(len(t) for t in texts)
    from termx.storage.db import get_engine

    engine = get_engine(db)
    out: dict[str, Any] = {"documents": len(texts), "characters": chars}
    model, source = segment_model(engine, heldout)
    model.segment_lines(texts[:2])  # compiled kernels loaded
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        words = model.segment_lines(texts)
        runs.append(time.perf_counter() - started)
    out["termx, stored model, new text"] = {"chars_per_s": chars / min(runs), **_f1(held, words),
                                            "model": source, "n_grams": model.nodes}
    out["termx, the same documents inside the corpus"] = _scored_inside(engine, incorpus) or \
        _f1(held, segment_model(engine, incorpus)[0].segment_lines(texts))
    try:
        import instant_segment
    except ImportError:
        out["instant-segment"] = "not installed (pip install instant-segment)"
        return out
    from _data import word_pair_counts

    unigrams, bigrams = word_pair_counts(context)
    seg = instant_segment.Segmenter(iter((w, float(c)) for w, c in unigrams.items()),
                                    iter((b, float(c)) for b, c in bigrams.items() if c > 1))
    search = instant_segment.Search()
    started = time.perf_counter()
    predicted = []
    for t in texts:
        seg.segment(t, search)
        predicted.append(list(search))
    elapsed = time.perf_counter() - started
    out["instant-segment (word lists counted from the spaced context stories)"] = {"chars_per_s": chars / elapsed,
                                                                                   **_f1(held, predicted)}
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _hammer(base: str, path: str, body: dict[str, Any], clients: int, seconds: float) -> dict[str, Any]:
    """`clients` threads posting `body` to `path` in a loop until `seconds` have passed: rate, latency, errors."""
    import httpx

    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def client() -> None:
        with httpx.Client(base_url=base, timeout=30.0) as http:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                try:
                    ok = http.post(path, json=body).status_code == 200
                except httpx.HTTPError:
                    ok = False
                with lock:
                    latencies.append(time.perf_counter() - started)
                    errors[0] += not ok

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ordered = sorted(latencies)
    return {"requests": len(ordered), "requests_per_s": len(ordered) / seconds,
            "p50_ms": 1000 * ordered[len(ordered) // 2], "p99_ms": 1000 * ordered[int(0.99 * (len(ordered) - 1))],
            "errors": errors[0], "clients": clients, "seconds": seconds}


def http_load(db: str, corpus: str, segment_corpus: str, env: dict[str, str], seconds: float,
              clients: int) -> dict[str, Any]:
    import httpx

    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "termx", "serve", "--port", str(port), "--db", db], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                httpx.get(f"{base}/health", timeout=1.0)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        line = "the company said its first quarter net profit rose to 12 mln dlrs from nine mln dlrs"
        bodies = {"/stats": {"corpus": corpus, "patterns": ["Noriega"]},
                  "/segment": {"corpus": segment_corpus, "lines": [line.replace(" ", "")]}}
        out = {}
        for path, body in bodies.items():
            httpx.post(base + path, json=body, timeout=600.0).raise_for_status()  # loads index / model
            out[path] = _hammer(base, path, body, clients, seconds)
        return out
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True, help="PostgreSQL URL (a running server)")
    parser.add_argument("--corpus", default="reuters", help="corpus for stats, segment start-up and HTTP")
    parser.add_argument("--heldout-corpus", default="bench_reuters_heldout")
    parser.add_argument("--incorpus-corpus", default="bench_reuters_all")
    parser.add_argument("--segment-corpus", help="corpus for segment start-up and HTTP /segment "
                        "(default: --corpus, and --heldout-corpus for HTTP)")
    parser.add_argument("--keep-model", action="store_true", help="segment start-up: do not delete a stored "
                        "model first (training is then not measured)")
    parser.add_argument("--build", action="store_true", help="index the two Reuters corpora of part 3 first")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--only", default="cli,startup,newtext,http")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "TERMX_HOME": os.environ.get("TERMX_HOME") or tempfile.mkdtemp(prefix="termx-bench-")}
    os.environ["TERMX_HOME"] = env["TERMX_HOME"]
    parts = args.only.split(",")
    results: dict[str, Any] = {"load_before": os.getloadavg()}
    if args.build:
        build(args.db, args.heldout_corpus, args.incorpus_corpus)
    if "cli" in parts:
        results["cli"] = cli_wall_time(args.db, args.corpus, args.calls, env)
        print(json.dumps(results["cli"], indent=2), flush=True)
    if "startup" in parts:
        results["segment_startup"] = segment_startup(args.db, args.segment_corpus or args.corpus, env,
                                                   args.keep_model)
        print(json.dumps(results["segment_startup"], indent=2), flush=True)
    if "newtext" in parts:
        results["new_text"] = new_text(args.db, args.heldout_corpus, args.incorpus_corpus)
        print(json.dumps(results["new_text"], indent=2), flush=True)
    if "http" in parts:
        results["http"] = http_load(args.db, args.corpus, args.segment_corpus or args.heldout_corpus, env,
                                    args.seconds, 8)
        print(json.dumps(results["http"], indent=2), flush=True)
    results["load_after"] = os.getloadavg()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "service.json").write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
