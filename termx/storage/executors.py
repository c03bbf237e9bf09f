"""Where the shard tasks of a build run (docs/scale-out.md): a pool of local worker processes, or a Dask cluster.
A runner takes the tasks and yields their results as they finish, and hands out a new task only as it yields a
result, so the results waiting for the coordinator (termx.storage.shards, which stores the index arrays a foreign
shard's task returns) are at most one per worker.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context

from termx.errors import BuildFailed, InputError, MissingDependency, TermxError
from termx.storage.corpora import STORE_CONNECTIONS
from termx.storage.shard_task import ShardResult, ShardTask, build_and_store

Runner = Callable[[list[ShardTask]], Iterator[ShardResult]]
SCHEDULER_PROBE_SECONDS = 5.0
DASK_TASKS_PER_WORKER = 2  # one building, one with its documents already on the worker
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def pool_runner(workers: int | None = None) -> Runner:
    """Run shard tasks in `workers` spawned processes (default: the cores), one task per process at a time, the next
    one submitted as a result is taken; one worker runs them in this process."""
    count = workers or os.cpu_count() or 1
    if count < 1:
        raise InputError("`workers` must be at least 1", params=("workers",))

    def run(tasks: list[ShardTask]) -> Iterator[ShardResult]:
        if count == 1 or len(tasks) == 1:  # one shard at a time, here: it may load over several connections
            for task in tasks:
                yield build_and_store(dataclasses.replace(task, connections=STORE_CONNECTIONS))
            return
        with _safe_path():  # multiprocessing's resource tracker starts here
            pool = ProcessPoolExecutor(max_workers=min(count, len(tasks)), mp_context=get_context("spawn"),
                                       initializer=_die_with_parent, initargs=(os.getpid(),))
        waiting = tasks[::-1]
        pending: set[Future[ShardResult]] = set()

        def submit() -> None:
            with _safe_path():  # the workers start in submit() (Python 3.11 to 3.13)
                pending.add(pool.submit(build_and_store, waiting.pop()))

        try:
            while waiting and len(pending) < count:
                submit()
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    pending.discard(f)
                    result = f.result()
                    if waiting:
                        submit()
                    yield result
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    return run


@contextlib.contextmanager
def _safe_path() -> Iterator[None]:
    """Start Python children without the working directory on sys.path (PYTHONSAFEPATH, as `python -P`).

    A spawned worker (and multiprocessing's resource tracker) starts as `python -c ...`, which puts the current
    directory first on sys.path while it imports multiprocessing: a `multiprocessing/` or `pickle.py` another
    user left in that directory would run as this user. (The worker then takes this process's sys.path.)"""
    previous = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        if previous is None:
            del os.environ["PYTHONSAFEPATH"]
        else:
            os.environ["PYTHONSAFEPATH"] = previous


def _die_with_parent(parent: int) -> None:
    """Worker initializer: get SIGKILL when the process that started this worker ends, however it ends (kill -9
    included), instead of waiting forever on the pool's queue with its shard in memory. Linux's parent-death
    signal (it follows the thread that started the worker: the one that runs the whole build); elsewhere a
    thread that watches the parent."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    else:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the signal was armed
        os.kill(os.getpid(), signal.SIGKILL)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1)
    os.kill(os.getpid(), signal.SIGKILL)


def dask_runner(address: str) -> Runner:
    """Run shard tasks on the Dask cluster whose scheduler is at `address` (each worker needs the input's
    documents — they travel with the task — termx installed, and a route to the PostgreSQL server: the
    coordinator's, or for a foreign shard's task its storage server's only).

    The address is checked here, before anything is staged: a malformed one is an InputError, a scheduler that
    does not answer a BuildFailed, at once rather than after the client's 30 s of retries. A shard's documents
    go from this process straight to a worker (scattered, never through the scheduler's task graph), and at
    most DASK_TASKS_PER_WORKER tasks per worker are out at a time, so no process of the cluster holds more than
    a few shards of the input."""
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise MissingDependency("`dask` needs Dask distributed", "pip install 'termx[dask]'",
                                params=("dask",)) from None
    _check_scheduler(address)

    def run(tasks: list[ShardTask]) -> Iterator[ShardResult]:
        try:
            client = Client(address, timeout=30)
        except (OSError, ValueError) as exc:
            raise BuildFailed(f"cannot reach the Dask scheduler at {address}: {first_line(exc)}") from None
        waiting = tasks[::-1]
        futures = []
        done = as_completed()

        def submit() -> None:
            data = client.scatter(waiting.pop(), hash=False)
            futures.append(client.submit(build_and_store, data, pure=False, retries=0))
            done.add(futures[-1])

        try:
            for _ in range(DASK_TASKS_PER_WORKER * max(1, len(client.scheduler_info()["workers"]))):
                if waiting:
                    submit()
            for f in done:
                result = f.result()
                futures.remove(f)  # with `f` gone, the cluster lets the result go (a foreign shard's holds arrays)
                del f
                if waiting:
                    submit()
                yield result
        except TermxError:
            raise
        except Exception as exc:  # whatever a task raised, or the cluster's own failure (KilledWorker, ...)
            raise BuildFailed(f"a Dask shard task failed, so the build was abandoned: {first_line(exc)}",
                              "nothing of it was stored") from None
        finally:
            client.cancel(futures)
            client.close()

    return run


def _check_scheduler(address: str) -> None:
    """InputError unless `address` is a Dask address with a port; BuildFailed if a TCP scheduler there does not
    accept a connection within SCHEDULER_PROBE_SECONDS."""
    from distributed.comm import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme not in ("tcp", "tls"):
            return  # inproc:// (a cluster in this process), ucx:// ...: the client reports these itself
        host, port = parse_host_port(location)
    except ValueError as exc:
        raise InputError(f"`dask` {address!r} is not a scheduler address: {first_line(exc)}",
                         "give it as tcp://HOST:PORT (the scheduler listens on 8786 by default)",
                         params=("dask",)) from None
    try:
        socket.create_connection((host, port), timeout=SCHEDULER_PROBE_SECONDS).close()
    except OSError as exc:
        raise BuildFailed(f"cannot reach the Dask scheduler at {address}: {exc.strerror or first_line(exc)}",
                          "start one with `dask scheduler`, or check the address") from None


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (a worker's error travels as one line of the build's error)."""
    text = str(exc).strip()
    return text.partition("\n")[0] if text else type(exc).__name__
