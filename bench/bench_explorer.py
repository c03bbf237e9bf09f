"""The explorer of `termx serve` under load (issue 31): server time per request of the look-up page and the terms
page (warm), beside the JSON API endpoints that answer the same records (the reference, same run, same server).

The server runs in this process (uvicorn on 127.0.0.1, a free port) behind an ASGI wrapper that times each request
from its first byte in to its last byte out; the clients run in another process (8 threads by default, keep-alive
HTTP/1.1), each phase for --seconds. Look-up patterns: the corpus's top --patterns terms by freq, cycled.

Run: python bench/bench_explorer.py --db postgresql://postgres@127.0.0.1:5432/DB [--build] [--seconds 20]
(--build indexes Reuters-21578 from $TERMX_DATA as corpus --corpus, byte unit, with sketches). Prints a table and
saves bench/results/explorer.json.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import socket
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))


class Timed:
    """ASGI wrapper: seconds of each request by path (its query dropped), first byte in to last byte out."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.times: dict[str, list[float]] = {}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()

        async def timed(message: Any) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                self.times.setdefault(scope["path"], []).append(time.perf_counter() - t0)

        await self.app(scope, receive, timed)


def _clients(port: int, urls: list[str], clients: int, seconds: float, out: Any) -> None:
    """`clients` threads GET the urls in turn for `seconds`; puts (requests, errors, client latencies)."""
    stop = time.monotonic() + seconds
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()

    def worker(offset: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        k = offset
        while time.monotonic() < stop:
            t0 = time.perf_counter()
            conn.request("GET", urls[k % len(urls)])
            r = conn.getresponse()
            r.read()
            with lock:
                latencies.append(time.perf_counter() - t0)
                errors[0] += r.status != 200
            k += clients
        conn.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put((len(latencies), errors[0], latencies))


def _phase(timed: Timed, port: int, name: str, path: str, urls: list[str], clients: int,
           seconds: float) -> dict[str, Any]:
    """Load `urls` (all on `path`) with the client process; the server-side and client-side figures."""
    timed.times.pop(path, None)
    out: Any = mp.get_context("spawn").Queue()
    proc = mp.get_context("spawn").Process(target=_clients, args=(port, urls, clients, seconds, out))
    proc.start()
    requests, errors, latencies = out.get()
    proc.join()
    server = sorted(timed.times.get(path, []))
    q = statistics.quantiles(server, n=100) if len(server) > 1 else [server[0]] * 99
    return {"view": name, "path": path, "requests": requests, "errors": errors, "per_second": requests / seconds,
            "server_p50_ms": 1e3 * statistics.median(server), "server_p99_ms": 1e3 * q[98],
            "client_p50_ms": 1e3 * statistics.median(latencies)}


def _build(db: str, corpus: str) -> None:
    from _data import reuters_documents

    import termx

    with termx.Database(db) as database:
        database.index(corpus, reuters_documents(), replace=True, sketches=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=os.environ.get("TERMX_BENCH_DATABASE_URL"), required=False)
    parser.add_argument("--corpus", default="reuters")
    parser.add_argument("--build", action="store_true", help="index Reuters-21578 as --corpus first")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--patterns", type=int, default=200)
    args = parser.parse_args()
    if not args.db:
        parser.error("give --db URL (or TERMX_BENCH_DATABASE_URL)")
    if args.build:
        _build(args.db, args.corpus)
    import uvicorn

    import termx
    from termx.serve import create_app

    with termx.open(args.corpus, args.db) as c:
        patterns = [t["term"] for t in c.terms("freq", args.patterns, min_len=3)]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    timed = Timed(create_app(args.db, port=port))
    server = uvicorn.Server(uvicorn.Config(timed, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    name = quote(args.corpus, safe="")
    look = [f"/c/{name}/stats?q={quote(p)}" for p in patterns]
    api = [f"/stats?corpus={name}&pattern={quote(p)}" for p in patterns]
    plots = [f"/c/{name}/plot.svg?q={quote(p)}" for p in patterns]
    terms = [f"/c/{name}/terms?rank=adaptation&top=100"]
    terms_api = [f"/terms?corpus={name}&rank=adaptation&top=100"]
    scatter = [f"/c/{name}/terms.svg?rank=adaptation&top=100"]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)  # warm: index loaded, terms computed once
    for url in (look[0], plots[0], terms[0], terms_api[0], scatter[0]):
        conn.request("GET", url)
        conn.getresponse().read()
    rows = [_phase(timed, port, "JSON API /stats (reference)", "/stats", api, args.clients, args.seconds),
            _phase(timed, port, "look-up page", f"/c/{args.corpus}/stats", look, args.clients, args.seconds),
            _phase(timed, port, "look-up df_k plot (Pr(k) fits)", f"/c/{args.corpus}/plot.svg", plots, args.clients,
                   args.seconds),
            _phase(timed, port, "JSON API /terms (reference)", "/terms", terms_api, args.clients, args.seconds),
            _phase(timed, port, "terms page (warm)", f"/c/{args.corpus}/terms", terms, args.clients, args.seconds),
            _phase(timed, port, "terms scatter (warm)", f"/c/{args.corpus}/terms.svg", scatter, args.clients,
                   args.seconds)]
    server.should_exit = True
    print(f"load {os.getloadavg()[0]:.1f}, {args.clients} clients, {args.seconds:g} s a phase, corpus {args.corpus}")
    print(f"{'view':<34} {'req/s':>7} {'server p50 ms':>14} {'p99 ms':>8} {'client p50 ms':>14} {'errors':>6}")
    for r in rows:
        print(f"{r['view']:<34} {r['per_second']:>7.1f} {r['server_p50_ms']:>14.1f} {r['server_p99_ms']:>8.1f} "
              f"{r['client_p50_ms']:>14.1f} {r['errors']:>6}")
    ratios = {"look-up page / JSON /stats": rows[1]["server_p50_ms"] / rows[0]["server_p50_ms"],
              "terms page / JSON /terms": rows[4]["server_p50_ms"] / rows[3]["server_p50_ms"]}
    for k, v in ratios.items():
        print(f"server p50 ratio, {k}: {v:.2f}")
    results = Path(__file__).resolve().parent / "results"
    results.mkdir(exist_ok=True)
    (results / "explorer.json").write_text(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "load":
                                                       os.getloadavg()[0], "rows": rows, "ratios": ratios}, indent=1))


if __name__ == "__main__":
    main()
