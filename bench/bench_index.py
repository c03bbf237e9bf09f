"""Measure the index builder (issue 2, "Must be measured") on real text, every figure next to a reference run.

On prefixes of reuters21578.jsonl + manpages.jsonl (1, 5, 10 MB of UTF-8 text and all of it) for unit byte and
word, each configuration in a fresh subprocess:

- build: seconds per stage of termx.index.build.build_shard, and the whole in-memory build (tokenize .. df_k) as a ratio
  to raw pydivsufsort.divsufsort + pydivsufsort.kasai on the same token array, timed in the same process
  (best of --repeats, build and reference alternating). Peak memory is peak RSS (VmHWM, reset through
  /proc/self/clear_refs before each stage) minus the RSS after reading the input and a warm-up build, per token.
- proposed: the same build with the fixes proposed in bench/README.md (prototyped here, termx/ untouched), checked
  equal to the termx build on the first size.
- store: termx.storage.corpora.save_corpus into a scratch db on the --db server (dropped after); its "store classes"
  stage in class rows/s next to a plain server-side `COPY ... FROM 'file'` (and a client-side stream of the same
  file, as psql \\copy does) of the identical binary COPY stream (termx.storage.copyrows.class_rows) into an identical
  fresh table, in a transaction that is rolled back; index creation timed separately.
- alphabet: the suffix array of word ids by pydivsufsort on int32, on uint16, on ids packed big-endian into the
  fewest bytes, and by a numba SA-IS over the integer alphabet (prototype), all checked equal.

Results are printed as tables and saved as JSON under bench/results/. Run: .venv/bin/python bench/bench_index.py
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np
import psycopg
import pydivsufsort
from _data import data_dir
from psycopg import sql

from termx.errors import CorpusNotFound
from termx.index import docfreq
from termx.index.build import Shard, build_shard, class_statistics
from termx.index.classes import count_classes, enumerate_classes
from termx.index.ingest import Document, read_documents
from termx.index.suffix import clipped_lcp, permuted_lcp, rank_scan, suffix_array
from termx.index.units import WORD_RE, TokenArray, Unit, _id_dtype, token_strings, tokenize
from termx.progress import Progress, Silent, Timings
from termx.storage.classrows import class_rows

DATA = data_dir() / "en"
INPUTS = ("reuters21578.jsonl", "manpages.jsonl")
DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/test"
RESULTS = Path(__file__).resolve().parent / "results"
STAGES = ("tokenize", "suffix array", "lcp", "ngram filter", "df_k")  # build_shard's Timings
STORE_STAGES = ("store documents", "store classes", "create indexes")
MB = 1_000_000
MMAP_THRESHOLD = 1 << 17
LIBC = ctypes.CDLL("libc.so.6")


# ---------------------------------------------------------------------------------------------------------------
# Input and memory


def load_documents(size_mb: float | None) -> list[Document]:
    """A prefix of the two inputs holding at least `size_mb` MB of text (None = everything).

    Documents of both files are interleaved by their relative offset in their own file, so every prefix has the
    same mix of news and manual pages.
    """
    keyed: list[tuple[float, int, Document, int]] = []
    for source, name in enumerate(INPUTS):
        docs, _ = read_documents([str(DATA / name)])
        sizes = [len(d.text.encode()) for d in docs]
        total, at = sum(sizes), 0
        for doc, size in zip(docs, sizes, strict=True):
            keyed.append((at / total, source, doc, size))
            at += size
    keyed.sort(key=lambda x: (x[0], x[1]))
    out: list[Document] = []
    text_bytes = 0
    for _, _, doc, size in keyed:
        if size_mb is not None and text_bytes >= size_mb * MB:
            break
        out.append(doc)
        text_bytes += size
    return out


def _proc_status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def rss() -> int:
    """Resident set size now, in bytes."""
    return _proc_status("VmRSS")


def peak_rss() -> int:
    """Peak resident set size since the last reset_peak(), in bytes."""
    return _proc_status("VmHWM")


def reset_peak() -> None:
    """Hand free heap memory back to the OS, then reset the kernel's peak-RSS mark to the current RSS (Linux >= 4.0).

    Without the trim, glibc serves new arrays from resident free chunks that reading the input left in the heap,
    and a peak would go unseen.
    """
    gc.collect()
    LIBC.malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


class MemoryProgress:
    """A termx Progress that records the peak RSS above `baseline` while each stage runs."""

    def __init__(self, baseline: int) -> None:
        self.baseline = baseline
        self.peaks: dict[str, int] = {}
        self._stage = ""

    def start(self, stage: str, total: int | None) -> None:
        reset_peak()
        self._stage = stage

    def advance(self, amount: int) -> None:
        pass

    def finish(self) -> None:
        self.peaks[self._stage] = max(self.peaks.get(self._stage, 0), peak_rss() - self.baseline)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, result) of one call."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def reference_sa_lcp(tokens: np.ndarray) -> tuple[float, float]:
    """Seconds of raw pydivsufsort.divsufsort and pydivsufsort.kasai on `tokens` (the reference of the build)."""
    t_sa, sa = timed(lambda: pydivsufsort.divsufsort(tokens))
    t_lcp, _ = timed(lambda: pydivsufsort.kasai(tokens, sa))
    return t_sa, t_lcp


# ---------------------------------------------------------------------------------------------------------------
# Proposed build (prototypes of the fixes in bench/README.md; termx/ is not changed)


def proposed_tokenize(texts: Sequence[str], unit: Unit) -> TokenArray:
    """termx.index.units.tokenize, with word ids assigned at C speed: one regex pass per chunk of documents joined by
    NUL (NUL is a token of its own and the smallest string, so sorting the vocabulary maps it to separator 0)."""
    if unit is not Unit.word:
        return tokenize(texts, unit)
    index: dict[str, int] = {}
    parts = []
    for at in range(0, len(texts), 2000):
        words = WORD_RE.findall("\0".join(texts[at: at + 2000]) + "\0")
        for w in dict.fromkeys(words):
            if w not in index:
                index[w] = len(index)
        parts.append(np.fromiter(map(index.__getitem__, words), dtype=np.int32, count=len(words)))
    first_seen = list(index)
    order = sorted(range(len(first_seen)), key=first_seen.__getitem__)
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    vocab = [first_seen[k] for k in order[1:]]
    tokens = rank[np.concatenate(parts)].astype(_id_dtype(len(vocab)))
    seps = np.flatnonzero(tokens == 0)
    lengths = np.diff(seps, prepend=-1) - 1
    return TokenArray(unit, tokens, (seps - lengths).astype(np.int64), lengths.astype(np.int64), vocab)


def proposed_build(documents: Sequence[Document], unit: Unit, max_k: int = 4, progress: Progress | None = None,
                   timings: Timings | None = None) -> Shard:
    """build_shard with the proposed word tokenizer (the other prototyped fixes — one doc_of[sa] gather, fused
    trivial count and LBL kernels, blocked neighbor chains — are in termx now)."""
    progress = progress or Silent()
    timings = timings if timings is not None else Timings()
    with timings.stage("tokenize", progress):
        ta = proposed_tokenize([d.text for d in documents], unit)
    with timings.stage("suffix array", progress):
        sa = suffix_array(ta.tokens, len(documents))
    stats = class_statistics(ta.tokens, sa, ta.doc_start, ta.doc_len, max_k, progress, timings)
    return Shard(documents, ta, sa, stats.classes, stats.df, stats.trivial_classes, max_k, timings)


# ---------------------------------------------------------------------------------------------------------------
# Integer alphabets


@nb.njit(cache=True)
def _classify(s):  # type: ignore[no-untyped-def]
    """S-type (True) / L-type (False) of every position; the last (the sentinel) is S."""
    n = len(s)
    t = np.zeros(n, dtype=np.bool_)
    t[n - 1] = True
    for i in range(n - 2, -1, -1):
        t[i] = s[i] < s[i + 1] or (s[i] == s[i + 1] and t[i + 1])
    return t


@nb.njit(cache=True, inline="always")
def _is_lms(t, i):  # type: ignore[no-untyped-def]
    return i > 0 and t[i] and not t[i - 1]


@nb.njit(cache=True)
def _buckets(s, k, end, bkt):  # type: ignore[no-untyped-def]
    bkt[:] = 0
    for c in s:
        bkt[c] += 1
    total = 0
    for c in range(k):
        total += bkt[c]
        bkt[c] = total if end else total - bkt[c]


@nb.njit(cache=True)
def _induce(s, t, sa, k, bkt):  # type: ignore[no-untyped-def]
    """Induce L-type suffixes left to right, then S-type right to left."""
    n = len(s)
    _buckets(s, k, False, bkt)
    for i in range(n):
        j = sa[i] - 1
        if j >= 0 and not t[j]:
            sa[bkt[s[j]]] = j
            bkt[s[j]] += 1
    _buckets(s, k, True, bkt)
    for i in range(n - 1, -1, -1):
        j = sa[i] - 1
        if j >= 0 and t[j]:
            bkt[s[j]] -= 1
            sa[bkt[s[j]]] = j


@nb.njit(cache=True)
def _sais_reduce(s, t, k, sa):  # type: ignore[no-untyped-def]
    """Sort and name the LMS substrings; their names end up in sa[n - n1:], in text order."""
    n = len(s)
    bkt = np.empty(k, dtype=np.int32)
    sa[:] = -1
    _buckets(s, k, True, bkt)
    for i in range(1, n):
        if _is_lms(t, i):
            bkt[s[i]] -= 1
            sa[bkt[s[i]]] = i
    _induce(s, t, sa, k, bkt)
    n1 = 0
    for i in range(n):
        if _is_lms(t, sa[i]):
            sa[n1] = sa[i]
            n1 += 1
    sa[n1:] = -1
    name = 0
    prev = -1
    for i in range(n1):
        pos = sa[i]
        diff = False
        for d in range(n):
            if prev == -1 or s[pos + d] != s[prev + d] or t[pos + d] != t[prev + d]:
                diff = True
                break
            if d > 0 and (_is_lms(t, pos + d) or _is_lms(t, prev + d)):
                break
        if diff:
            name += 1
            prev = pos
        sa[n1 + pos // 2] = name - 1
    j = n - 1
    for i in range(n - 1, n1 - 1, -1):
        if sa[i] >= 0:
            sa[j] = sa[i]
            j -= 1
    return n1, name


@nb.njit(cache=True)
def _sais_expand(s, t, k, sa, sa1):  # type: ignore[no-untyped-def]
    """Place the sorted LMS suffixes at their bucket ends and induce the rest."""
    n = len(s)
    n1 = len(sa1)
    bkt = np.empty(k, dtype=np.int32)
    lms = np.empty(n1, dtype=np.int32)
    j = 0
    for i in range(1, n):
        if _is_lms(t, i):
            lms[j] = i
            j += 1
    for i in range(n1):
        sa[i] = lms[sa1[i]]
    sa[n1:] = -1
    _buckets(s, k, True, bkt)
    for i in range(n1 - 1, -1, -1):
        p = sa[i]
        sa[i] = -1
        bkt[s[p]] -= 1
        sa[bkt[s[p]]] = p
    _induce(s, t, sa, k, bkt)


@nb.njit(cache=True)
def _inverse(s1):  # type: ignore[no-untyped-def]
    out = np.empty(len(s1), dtype=np.int32)
    for i in range(len(s1)):
        out[s1[i]] = i
    return out


def _sais(s: np.ndarray, k: int) -> np.ndarray:
    t = _classify(s)
    sa = np.empty(len(s), dtype=np.int32)
    n1, names = _sais_reduce(s, t, k, sa)
    s1 = sa[len(s) - n1:].copy()
    sa1 = _sais(s1, names) if names < n1 else _inverse(s1)
    del s1
    _sais_expand(s, t, k, sa, sa1)
    return sa


def sais_int(ids: np.ndarray) -> np.ndarray:
    """Suffix array of a string of non-negative integer ids: SA-IS (Nong, Zhang & Chan) on ids + 1 with a unique
    sentinel 0 appended, whose suffix sorts first and is dropped."""
    s = np.empty(len(ids) + 1, dtype=np.int32)
    s[:-1] = ids
    s[:-1] += 1
    s[-1] = 0
    return _sais(s, int(s.max()) + 1)[1:]


def packed_width(ids: np.ndarray) -> int:
    """Fewest bytes that hold every id."""
    return max(1, (int(ids.max()).bit_length() + 7) // 8)


def packed_sa(ids: np.ndarray, width: int) -> np.ndarray:
    """SA of integer ids via divsufsort on the ids written big-endian in `width` bytes each: byte order equals
    id order, so the suffixes at multiples of `width`, divided by it, are the SA of the ids."""
    x = ids.astype(np.uint32)
    packed = np.empty((len(ids), width), dtype=np.uint8)
    for c in range(width):
        packed[:, c] = x >> (8 * (width - 1 - c))
    sa = pydivsufsort.divsufsort(packed.reshape(-1))
    del packed
    return sa[sa % width == 0] // width


def pydivsufsort_width(ids: np.ndarray) -> int:
    """Bytes per id pydivsufsort itself packs an int32 array into (rounded up to a power of two)."""
    n_bytes = (int(ids.max() - ids.min()).bit_length() + 7) // 8
    return 1 << (n_bytes - 1).bit_length()


# ---------------------------------------------------------------------------------------------------------------
# Workers (each runs in a fresh subprocess)


def _warm_up(unit: Unit, build: Callable[..., Shard]) -> None:
    """Load numba's compiled kernels and page in the code, so neither is timed nor counted as memory."""
    docs = load_documents(0.05)
    shard = build(docs, unit)
    reference_sa_lcp(shard.tokens.tokens)
    del shard
    gc.collect()


def work_build(size: float | None, unit: Unit, repeats: int, variant: str) -> dict[str, Any]:
    """Per-stage seconds and peak memory of one build, against raw divsufsort + kasai in the same process."""
    build: Callable[..., Shard] = proposed_build if variant == "proposed" else build_shard
    docs = load_documents(size)
    text_bytes = sum(len(d.text.encode()) for d in docs)
    _warm_up(unit, build)
    reset_peak()
    baseline = rss()
    memory = MemoryProgress(baseline)
    first = Timings()
    gc.collect()
    reset_peak()
    shard = build(docs, unit, 4, memory, first)
    build_peak = max(memory.peaks.values())
    facts = {"text_bytes": text_bytes, "documents": len(docs), "tokens": shard.n, "classes": len(shard.classes),
             "trivial_classes": shard.trivial_classes, "vocab": len(shard.tokens.vocab or []),
             "token_dtype": str(shard.tokens.tokens.dtype), "max_lcp": int(shard.classes.sil.max())}
    tokens = shard.tokens.tokens
    del shard
    reset_peak()
    before = rss()
    ref_runs = [reference_sa_lcp(tokens)]
    ref_peak = peak_rss() - before
    build_runs = [dict(first)]
    for _ in range(repeats - 1):
        gc.collect()
        t = Timings()
        build(docs, unit, 4, Silent(), t)
        build_runs.append(dict(t))
        gc.collect()
        ref_runs.append(reference_sa_lcp(tokens))
    stages = {s: min(r.get(s, 0.0) for r in build_runs) for s in STAGES}  # proposed: no ngram filter
    return {**facts, "stages": stages, "build_seconds": min(sum(r.values()) for r in build_runs),
            "ref_sa": min(r[0] for r in ref_runs), "ref_lcp": min(r[1] for r in ref_runs),
            "ref_seconds": min(sum(r) for r in ref_runs),
            "build_peak_bytes": build_peak, "stage_peak_bytes": memory.peaks, "ref_peak_bytes": ref_peak}


def work_check(size: float | None) -> dict[str, Any]:
    """The proposed build gives exactly termx's shard (tokens, SA, classes, df, trivial count) for both units."""
    docs = load_documents(size)
    out = {}
    for unit in (Unit.byte, Unit.word):
        a, b = build_shard(docs, unit), proposed_build(docs, unit)
        same = (np.array_equal(a.tokens.tokens, b.tokens.tokens) and a.tokens.tokens.dtype == b.tokens.tokens.dtype
                and np.array_equal(a.tokens.doc_start, b.tokens.doc_start)
                and np.array_equal(a.tokens.doc_len, b.tokens.doc_len) and a.tokens.vocab == b.tokens.vocab
                and np.array_equal(a.sa, b.sa) and a.trivial_classes == b.trivial_classes
                and all(np.array_equal(getattr(a.classes, f), getattr(b.classes, f)) for f in ("i", "j", "lbl", "sil"))
                and np.array_equal(a.df, b.df))
        out[unit.value] = bool(same)
    return out


def work_profile(size: float | None, unit: Unit, repeats: int) -> dict[str, Any]:
    """Seconds of every step inside the build's stages (best of `repeats`), termx's and the proposed ones."""
    docs = load_documents(size)
    texts = [d.text for d in docs]
    _warm_up(unit, build_shard)
    _warm_up(unit, proposed_build)
    steps: dict[str, float] = {}

    def step(name: str, fn: Callable[[], Any]) -> Any:
        best, out = timed(fn)
        for _ in range(repeats - 1):
            del out
            gc.collect()
            t, out = timed(fn)
            best = min(best, t)
        steps[name] = best
        return out

    ta = step("tokenize", lambda: tokenize(texts, unit))
    step("tokenize (proposed)", lambda: proposed_tokenize(texts, unit))
    sa = step("divsufsort (termx suffix_array)", lambda: suffix_array(ta.tokens, len(docs)))
    step("clipped_lcp (LCP alone)", lambda: clipped_lcp(ta.tokens, sa))
    scan = step("lcp: rank_scan (LCP, documents of the ranks, trivial classes)",
                lambda: rank_scan(permuted_lcp(ta.tokens, sa), sa, ta.doc_start, ta.doc_len))
    full_sa = pydivsufsort.divsufsort(ta.tokens)
    step("pydivsufsort.kasai (reference)", lambda: pydivsufsort.kasai(ta.tokens, full_sa))
    n_classes = step("classes: count_classes (count walk)", lambda: count_classes(scan.lcp))
    step("classes: enumerate_classes (2 walks + LBL, no df)", lambda: enumerate_classes(scan.lcp))
    for max_k in (1, 4):
        step(f"df_k: fill_classes (classes and df_k in one walk), K={max_k}",
             lambda max_k=max_k: docfreq.fill_classes(scan.lcp, scan.doc, len(docs), max_k))
    return {"steps": steps, "tokens": int(len(sa)), "classes": n_classes}


def work_alphabet(size: float | None, repeats: int) -> dict[str, Any]:
    """Suffix array of the word-id array by each integer-alphabet method; seconds, peak memory, equal output."""
    docs = load_documents(size)
    ids = tokenize([d.text for d in docs], Unit.word).tokens.astype(np.int32)
    sais_int(ids[:1000])  # load the compiled kernels
    width = packed_width(ids)
    methods: dict[str, Callable[[], np.ndarray]] = {
        f"pydivsufsort int32 (packs {pydivsufsort_width(ids)} B/id)": lambda: pydivsufsort.divsufsort(ids)}
    if ids.max() <= np.iinfo(np.uint16).max:
        methods["pydivsufsort uint16"] = lambda: pydivsufsort.divsufsort(ids.astype(np.uint16))
    methods[f"byte-packed ids, {width} B/id"] = lambda: packed_sa(ids, width)
    methods["SA-IS on int ids (numba prototype)"] = lambda: sais_int(ids)
    reference: np.ndarray | None = None
    out: dict[str, Any] = {"tokens": len(ids), "vocab": int(ids.max()), "methods": {}}
    for _ in range(repeats):
        for name, fn in methods.items():
            reset_peak()
            before = rss()
            seconds, sa = timed(fn)
            peak = peak_rss() - before
            if reference is None:
                reference = sa
            row = out["methods"].setdefault(name, {"seconds": seconds, "peak_bytes": peak,
                                                   "equal": bool(np.array_equal(sa, reference))})
            row["seconds"] = min(row["seconds"], seconds)
            del sa
    return out


def work_store(size: float | None, unit: Unit, db_url: str) -> dict[str, Any]:
    """save_corpus stage seconds, and a plain COPY of the same class rows from a file, into the same server."""
    from sqlalchemy import create_engine

    from termx.storage.corpora import drop_corpus, save_corpus
    from termx.storage.db import resolve_url

    docs = load_documents(size)
    shard = build_shard(docs, unit)
    engine = create_engine(resolve_url(db_url))
    name = f"bench_index_{unit.value}_{size or 'all'}_{os.getpid()}"
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
    reset_peak()
    memory = MemoryProgress(rss())
    timings = Timings()
    try:
        save_corpus(engine, name, shard, params={"bench": "bench/bench_index.py"}, progress=memory, timings=timings)
    finally:
        with contextlib.suppress(CorpusNotFound):
            drop_corpus(engine, name)
    rows = len(shard.classes)
    c = shard.classes
    blob, offsets, joiner = token_strings(shard.tokens.unit, shard.tokens.vocab)

    def stream() -> Any:
        return class_rows(0, c.i, c.j, c.lbl, c.sil, shard.df, shard.sa, shard.tokens.tokens, blob, offsets,
                          joiner, 100)

    encode_s, _ = timed(lambda: sum(len(data) for data, _ in stream()))
    path = Path(tempfile.gettempdir()) / f"termx-bench-classes-{os.getpid()}.copy"
    try:
        with open(path, "wb") as f:
            for data, _ in stream():
                f.write(data)
        os.chmod(path, 0o644)
        plain = _plain_copy(db_url, path)
    finally:
        path.unlink(missing_ok=True)
    return {"rows": rows, "copy_bytes": plain.pop("bytes"), "stages": {s: timings[s] for s in STORE_STAGES},
            "store_peak_bytes": memory.peaks, "encode_seconds": encode_s, **plain}


def _plain_copy(db_url: str, path: Path) -> dict[str, Any]:
    """Plain COPY of the file into a fresh table like termx.class: server-side, server-side with FREEZE, and
    client-streamed, each in a transaction that is rolled back. The first also times the two indexes termx creates,
    at the default and at a larger maintenance_work_mem."""
    table = sql.Identifier("termx", f"bench_copy_{os.getpid()}")
    create = sql.SQL("CREATE TABLE {} (LIKE termx.class INCLUDING ALL, CHECK (shard_id = 0))").format(table)
    out: dict[str, Any] = {"bytes": path.stat().st_size}
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        with conn.transaction(force_rollback=True):
            conn.execute(create)
            out["copy_file_seconds"], _ = timed(lambda: conn.execute(
                sql.SQL("COPY {} FROM {} (FORMAT BINARY)").format(table, sql.Literal(str(path)))))
            out["pk_seconds"], _ = timed(lambda: conn.execute(
                sql.SQL("ALTER TABLE {} ADD PRIMARY KEY (shard_id, i, j)").format(table)))
            index_name = f"bench_copy_rep_{os.getpid()}"
            rep_index = sql.SQL("CREATE INDEX {} ON {} (shard_id, rep, sil)").format(sql.Identifier(index_name), table)
            out["rep_index_seconds"], _ = timed(lambda: conn.execute(rep_index))
            out["maintenance_work_mem"] = conn.execute("SHOW maintenance_work_mem").fetchone()[0]  # type: ignore[index]
            conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier("termx", index_name)))
            conn.execute("SET LOCAL maintenance_work_mem = '1GB'")
            out["rep_index_1gb_seconds"], _ = timed(lambda: conn.execute(rep_index))
        conn.execute("CHECKPOINT")
        with conn.transaction(force_rollback=True):
            conn.execute(create)
            out["copy_file_freeze_seconds"], _ = timed(lambda: conn.execute(
                sql.SQL("COPY {} FROM {} (FORMAT BINARY, FREEZE)").format(table, sql.Literal(str(path)))))
        conn.execute("CHECKPOINT")
        with conn.transaction(force_rollback=True):
            conn.execute(create)

            def client() -> None:
                with conn.cursor().copy(sql.SQL("COPY {} FROM STDIN (FORMAT BINARY)").format(table)) as copy, \
                        open(path, "rb") as f:
                    while data := f.read(8 << 20):
                        copy.write(data)

            out["copy_stream_seconds"], _ = timed(client)
    return out


@contextlib.contextmanager
def scratch_database(server_url: str) -> Iterator[str]:
    """A fresh database on the server of `server_url`, with termx's schema at head (the store path needs the
    later migrations: nameless staged corpus rows), dropped afterwards. Its own database keeps the load away
    from other users of the server: their open transactions on termx.class would block dropping a partition."""
    from sqlalchemy import create_engine

    from termx.storage.db import resolve_url, upgrade

    server = resolve_url(server_url)
    name = f"termx_bench_{os.getpid()}"
    plain = server.set(drivername="postgresql")
    with psycopg.connect(plain.render_as_string(hide_password=False), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        engine = create_engine(server.set(database=name))
        upgrade(engine)
        engine.dispose()
        yield plain.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(plain.render_as_string(hide_password=False), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


WORKERS: dict[str, Callable[..., dict[str, Any]]] = {
    "build": work_build, "check": work_check, "profile": work_profile, "alphabet": work_alphabet, "store": work_store}


def run_worker(kind: str, **kwargs: Any) -> dict[str, Any]:
    """Run one measurement in a fresh Python process and return its JSON result."""
    spec = json.dumps({"kind": kind, **kwargs})
    # A fixed mmap threshold makes glibc return every freed array to the OS, so one measurement's freed memory
    # cannot hide the next one's peak RSS.
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(MMAP_THRESHOLD)}
    proc = subprocess.run([sys.executable, __file__, "--worker", spec], capture_output=True, text=True, check=False,
                          env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"worker {spec} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def worker_main(spec: str) -> None:
    """Entry point of a worker process: run it and print its result as one JSON line."""
    args = json.loads(spec)
    kind = args.pop("kind")
    if "unit" in args:
        args["unit"] = Unit(args["unit"])
    print(json.dumps(WORKERS[kind](**args)))


# ---------------------------------------------------------------------------------------------------------------
# Tables


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain-text table, numbers right-aligned."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[c]) for r in cells)) if cells else len(h) for c, h in enumerate(header)]
    lines = [title, "  ".join(h.rjust(w) if c else h.ljust(w) for c, (h, w) in enumerate(zip(header, widths,
                                                                                              strict=True)))]
    lines.append("  ".join("-" * w for w in widths))
    for r in cells:
        lines.append("  ".join(v.rjust(w) if c else v.ljust(w) for c, (v, w) in enumerate(zip(r, widths,
                                                                                              strict=True))))
    return "\n".join(lines) + "\n"


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:,.3f}" if abs(v) < 10 else f"{v:,.1f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "-"


def _label(size: float | None) -> str:
    return "all" if size is None else f"{size:g} MB"


def report(res: dict[str, Any]) -> str:
    """All tables of a run."""
    out = []
    builds = res["build"]
    rows = []
    for b in builds:
        if b["variant"] != "termx":
            continue
        rows.append([f"{b['unit']} {_label(b['size'])}", b["tokens"], *(b["stages"][s] for s in STAGES),
                     b["build_seconds"], b["ref_sa"], b["ref_lcp"], f"{b['build_seconds'] / b['ref_seconds']:.2f}x"])
    out.append(table("Build seconds per stage (termx.index.build.build_shard, best of repeats) vs raw divsufsort "
                     "+ kasai on the same tokens (target <= 3x)",
                     ["corpus", "tokens", *STAGES, "build", "ref SA", "ref LCP", "build/ref"], rows))
    rows = []
    for b in builds:
        n = b["tokens"]
        rows.append([f"{b['unit']} {_label(b['size'])} {b['variant']}", n,
                     *(b["stage_peak_bytes"].get(s, 0) / n for s in STAGES), b["build_peak_bytes"] / n,
                     b["ref_peak_bytes"] / n, _ratio(b["build_peak_bytes"], b["ref_peak_bytes"])])
    out.append(table("Peak memory, bytes per text token: RSS peak during each stage minus RSS after reading the "
                     "input (target <= 48 for byte)",
                     ["corpus / build", "tokens", *STAGES, "build", "ref", "build/ref"], rows))
    rows = []
    for unit in ("byte", "word"):
        series = [b for b in builds if b["unit"] == unit and b["variant"] == "termx"]
        if not series:
            continue
        first = series[0]
        for b in series:
            rows.append([f"{unit} {_label(b['size'])}", b["text_bytes"] / MB, b["tokens"], b["classes"],
                         b["build_seconds"], f"{b['build_seconds'] / first['build_seconds']:.1f}x",
                         f"{b['tokens'] / first['tokens']:.1f}x", 1e9 * b["build_seconds"] / b["tokens"],
                         b["build_peak_bytes"] / MB, b["build_peak_bytes"] / b["tokens"],
                         f"{b['build_seconds'] / b['ref_seconds']:.2f}x"])
    out.append(table("Growth with input size (termx build)",
                     ["corpus", "text MB", "tokens", "classes", "build s", "time vs first", "tokens vs first",
                      "ns/token", "peak MB", "B/token", "build/ref"], rows))
    rows = []
    for b in builds:
        if b["variant"] != "proposed":
            continue
        cur = next(x for x in builds if x["variant"] == "termx" and x["unit"] == b["unit"] and x["size"] == b["size"])
        rows.append([f"{b['unit']} {_label(b['size'])}", *(f"{b['stages'][s] / cur['stages'][s]:.2f}x" for s in STAGES),
                     b["build_seconds"], f"{b['build_seconds'] / b['ref_seconds']:.2f}x",
                     f"{b['build_seconds'] / cur['build_seconds']:.2f}x",
                     b["build_peak_bytes"] / b["tokens"], f"{b['build_peak_bytes'] / cur['build_peak_bytes']:.2f}x"])
    if rows:
        check = res.get("check", {})
        out.append(table(f"Proposed build (prototype in this script) vs termx, same machine; output identical to "
                         f"termx's: {check}",
                         ["corpus", *(f"{s} vs termx" for s in STAGES), "build s", "build/ref", "vs termx",
                          "B/token", "peak vs termx"], rows))
    rows = []
    for s in res["store"]:
        cls = s["stages"]["store classes"]
        rows.append([f"{s['unit']} {_label(s['size'])}", s["rows"], cls, s["rows"] / cls, s["copy_file_seconds"],
                     s["rows"] / s["copy_file_seconds"], f"{s['copy_file_seconds'] / cls:.0%}",
                     s["copy_file_freeze_seconds"], f"{s['copy_file_freeze_seconds'] / cls:.0%}",
                     s["copy_stream_seconds"], f"{s['copy_stream_seconds'] / cls:.0%}", s["encode_seconds"],
                     s["copy_bytes"] / s["rows"]])
    if rows:
        out.append(table("Database load of the class rows: termx 'store classes' stage vs a plain COPY of the same "
                         "binary stream (target >= 1,000,000 rows/s and >= 70% of plain COPY)",
                         ["corpus", "rows", "termx s", "termx rows/s", "COPY file s", "COPY rows/s",
                          "termx % of COPY", "COPY FREEZE s", "termx % of FREEZE", "client COPY s",
                          "termx % of client", "encode s", "B/row"], rows))
        rows = [[f"{s['unit']} {_label(s['size'])}", s["stages"]["store documents"], s["stages"]["create indexes"],
                 s["pk_seconds"], s["rep_index_seconds"], s["rep_index_1gb_seconds"],
                 f"{s['rep_index_1gb_seconds'] / s['rep_index_seconds']:.2f}x",
                 max(s["store_peak_bytes"].values()) / MB] for s in res["store"]]
        out.append(table(f"Other database stages, seconds (index creation: termx's stage = primary key + rep index + "
                         f"attach + analyze; then each index alone on the plain table; maintenance_work_mem "
                         f"{res['store'][0]['maintenance_work_mem']} vs 1GB)",
                         ["corpus", "store documents", "create indexes", "PK alone", "rep index",
                          "rep index 1GB", "1GB/default", "store peak MB"], rows))
    for a in res["alphabet"]:
        methods = a["methods"]
        ref = next(iter(methods.values()))["seconds"]
        rows = [[name, m["seconds"], f"{m['seconds'] / ref:.2f}x", m["peak_bytes"] / a["tokens"], m["equal"]]
                for name, m in methods.items()]
        out.append(table(f"Suffix array of word ids, {_label(a['size'])} ({a['tokens']:,} ids, vocabulary "
                         f"{a['vocab']:,})", ["method", "seconds", "vs int32", "peak B/token", "same SA"], rows))
    for p in res["profile"]:
        rows = [[k, v] for k, v in p["steps"].items()]
        out.append(table(f"Profile of the build steps, {p['unit']} {_label(p['size'])} ({p['tokens']:,} tokens, "
                         f"{p['classes']:,} classes)",
                         ["step", "seconds"], rows))
    out.append(f"machine: {res['machine']}\n")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default="1,5,10,all", help="MB of text per prefix; 'all' = both files whole")
    parser.add_argument("--units", default="byte,word")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs per measurement (the best is kept)")
    parser.add_argument("--db", default=os.environ.get("TERMX_BENCH_DATABASE_URL", DEFAULT_DB),
                        help="PostgreSQL server for the load measurement (a scratch database is created on it "
                             "and dropped at the end)")
    parser.add_argument("--skip", default="", help="comma list of parts to skip: build,proposed,store,alphabet,profile")
    parser.add_argument("--out", default=str(RESULTS / "bench_index.json"))
    parser.add_argument("--report", metavar="JSON", help="print the tables of a saved run and exit")
    args = parser.parse_args()
    if args.worker:
        worker_main(args.worker)
        return
    if args.report:
        print(report(json.loads(Path(args.report).read_text())))
        return
    sizes = [None if s == "all" else float(s) for s in args.sizes.split(",")]
    units = args.units.split(",")
    skip = set(filter(None, args.skip.split(",")))
    res: dict[str, Any] = {"build": [], "store": [], "alphabet": [], "profile": [], "args": vars(args),
                           "machine": _machine(args.db)}
    t0 = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t0:7.1f}s, load {os.getloadavg()[0]:.1f}] {msg}", file=sys.stderr, flush=True)

    variants = [v for v in ("termx", "proposed") if v not in skip and not (v == "termx" and "build" in skip)]
    if "proposed" in variants:
        log("checking the proposed build against termx")
        res["check"] = run_worker("check", size=sizes[0])
    for unit in units:
        for size in sizes:
            for variant in variants:
                log(f"build {unit} {_label(size)} {variant}")
                res["build"].append({"unit": unit, "size": size, "variant": variant,
                                     **run_worker("build", size=size, unit=unit, repeats=args.repeats,
                                                  variant=variant)})
    if "store" not in skip:
        with scratch_database(args.db) as db_url:
            for unit in units:
                for size in sizes:
                    log(f"store {unit} {_label(size)}")
                    res["store"].append({"unit": unit, "size": size,
                                         **run_worker("store", size=size, unit=unit, db_url=db_url)})
    if "alphabet" not in skip:
        for size in sizes:
            log(f"alphabet {_label(size)}")
            res["alphabet"].append({"size": size, **run_worker("alphabet", size=size, repeats=args.repeats)})
    if "profile" not in skip:
        for unit in units:
            log(f"profile {unit} {_label(sizes[-1])}")
            res["profile"].append({"unit": unit, "size": sizes[-1],
                                   **run_worker("profile", size=sizes[-1], unit=unit, repeats=args.repeats)})
    res["machine"]["load_at_end"] = os.getloadavg()
    res["seconds"] = time.perf_counter() - t0
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=1))
    print(report(res))
    log(f"saved {args.out}")


def _git(*args: str) -> str:
    proc = subprocess.run(["git", *args], capture_output=True, text=True, check=False,
                          cwd=Path(__file__).resolve().parent)
    return proc.stdout.strip()


def _machine(db_url: str) -> dict[str, Any]:
    """What the figures were measured on (the machine is shared: the load average says how busy it was)."""
    info: dict[str, Any] = {"cpus": os.cpu_count(), "python": platform.python_version(), "numpy": np.__version__,
                            "numba": nb.__version__, "pydivsufsort": importlib.metadata.version("pydivsufsort"),
                            "load_at_start": os.getloadavg(), "termx_commit": _git("rev-parse", "--short", "HEAD"),
                            "termx_uncommitted": _git("status", "--porcelain", "--", "termx")}
    try:
        with psycopg.connect(db_url, autocommit=True, connect_timeout=5) as conn:
            info["postgres"] = conn.execute("SHOW server_version").fetchone()[0]  # type: ignore[index]
    except psycopg.OperationalError as exc:
        info["postgres"] = f"unreachable: {str(exc).splitlines()[0]}"
    return info


if __name__ == "__main__":
    main()
