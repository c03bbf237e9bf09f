"""Start/stop times of the embedded server (termx.storage.embedded) against bare pg_ctl on a plain cluster.

Usage: python bench/bench_server.py [--repeats 5]
Both run the same binaries as the same user in fresh temporary directories; the ratio is termx's overhead
(locking, permission checks, leases, the hba and password set-up).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from termx.storage import cluster, embedded, serveruser


def _timed(fn) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def bench_termx(repeats: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as home:
        os.environ["TERMX_HOME"] = home
        first = _timed(embedded.start)
        stops, starts = [_timed(embedded.stop)], []
        for _ in range(repeats):
            starts.append(_timed(embedded.start))
            stops.append(_timed(embedded.stop))
        return {"first start (initdb)": [first], "start": starts, "stop": stops}


def bench_bare(repeats: int) -> dict[str, list[float]]:
    bins = cluster.bin_dir(Path("/nonexistent"))
    with tempfile.TemporaryDirectory() as top:
        os.chmod(top, 0o755)
        data = Path(top) / "data"
        data.mkdir(mode=0o700)
        account = serveruser.server_account(data)
        serveruser.own(data, account, 0o700)
        run_dir = Path(top) / "run"
        run_dir.mkdir(mode=0o700)
        serveruser.own(run_dir, account, 0o700)
        env = {"PATH": os.defpath, "LC_ALL": "C"}
        opts = f"-c listen_addresses= -c unix_socket_directories={run_dir} -p 5432"

        def run(*args: str) -> None:
            serveruser.run_as(account, [str(a) for a in args], env=env, stdin=subprocess.DEVNULL)

        first = _timed(lambda: (run(str(bins / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                                    "--no-instructions"),
                                run(str(bins / "pg_ctl"), "start", "-w", "-s", "-D", str(data),
                                    "-l", str(data / "log"), "-o", opts)))
        pg_stop = (str(bins / "pg_ctl"), "stop", "-w", "-s", "-m", "fast", "-D", str(data))
        stops, starts = [_timed(lambda: run(*pg_stop))], []
        for _ in range(repeats):
            starts.append(_timed(lambda: run(str(bins / "pg_ctl"), "start", "-w", "-s", "-D", str(data),
                                             "-l", str(data / "log"), "-o", opts)))
            stops.append(_timed(lambda: run(*pg_stop)))
        return {"first start (initdb)": [first], "start": starts, "stop": stops}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    bare = bench_bare(args.repeats)
    ours = bench_termx(args.repeats)
    print(f"load: {os.getloadavg()[0]:.1f}  repeats: {args.repeats}")
    print(f"{'step':<22} {'termx s (median)':>17} {'bare pg_ctl s':>14} {'ratio':>6}")
    for step in ours:
        a, b = statistics.median(ours[step]), statistics.median(bare[step])
        print(f"{step:<22} {a:>17.2f} {b:>14.2f} {a / b:>6.2f}")


if __name__ == "__main__":
    main()
