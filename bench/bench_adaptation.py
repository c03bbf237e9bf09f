"""Measure the adaptation studies (issue 15, "Must be measured") on Reuters-21578, next to the slides' AP figures.

- Tables on Reuters (unit word and byte, corpora built into --db if missing): the slides' freq* table
  (freq = 10 in half 1, by df_1), method 1 vs method 2 agreement (strings with df_1 >= 10), the method-1
  table for named strings (the slides' "hostages", "Kennedy", "except"), Hist / Near / Prior over word types,
  and the shape (Pr(k>=1), Pr(k>=2|k>=1), Pr(test|near) by binned freq).
- Cost on reuters21578.jsonl + manpages.jsonl (bytes, ~23.5 MB of text): the halves (crossval counts and bins)
  and the method-1 counts (history/test tree and its walk), each as a ratio to the plain build's df_k stage
  (neighbors + cdf_1..cdf_(K+1), K = 4) on the same arrays in the same process, best of --repeats, alternating.
- `termx adapt CORPUS --priming` on the Reuters word corpus, wall-clock seconds of the whole command.

Run: .venv/bin/python bench/bench_adaptation.py [--db URL] [--repeats 2]. Prints markdown tables (docs/adaptation.md).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from termx.errors import CorpusNotFound
from termx.index import docfreq
from termx.index.build import class_statistics
from termx.index.ingest import read_documents
from termx.index.loaded_index import LoadedIndex
from termx.index.suffix import suffix_array
from termx.index.units import Unit, tokenize
from termx.storage.db import get_engine
from termx.storage.index_loader import load_index
from termx.studies.adaptation import adapt_rows, split_counts
from termx.studies.agreement import agreement, segments
from termx.studies.crossval import crossval_bins, half_statistics
from termx.studies.halves import doc_of_rank
from termx.studies.priming import near_by_freq, priming_summary
from termx.studies.shape import shape_rows

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("TERMX_BENCH_DATA", ROOT.parent / "shared" / "data" / "en"))
NAMED = ("hostages", "Kennedy", "except", "Noriega", "the")
SLIDES_FREQ_STAR = [(10, 7.85, 75288), (9, 8.57, 16284), (8, 7.78, 6602), (7, 7.47, 2755), (6, 6.86, 1669),
                    (5, 6.30, 1543), (4, 4.29, 693), (3, 3.93, 416), (2, 4.42, 509), (1, 2.87, 282)]


def table(rows: list[dict[str, Any]], cols: list[str]) -> str:
    """A markdown table."""
    def cell(v: Any) -> str:
        if v is None:
            return ""
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(cell(r.get(c)) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def corpus(engine: Any, name: str, unit: Unit) -> LoadedIndex:
    """Load the Reuters corpus in `unit`, indexing it first when missing."""
    try:
        return load_index(engine, name)
    except CorpusNotFound:
        subprocess.run([sys.executable, "-m", "termx", "index", str(DATA / "reuters21578.jsonl"), "-c", name,
                        "--unit", unit.value, "-q", "--db", engine.url.render_as_string(hide_password=False)],
                       check=True)
        return load_index(engine, name)


def tables(index: LoadedIndex, neighbors: int) -> None:
    """Every figure of one corpus, printed as markdown."""
    print(f"\n## {index.corpus.name}: unit {index.unit.value}, N = {index.n}, D = {index.n_docs}\n")
    bins = [r for r in crossval_bins(half_statistics(index)).rows() if r["freq"] == 10]
    slides = {d: (fs, n) for d, fs, n in SLIDES_FREQ_STAR}
    for r in bins:
        r["slides_freq_star"], r["slides_n"] = slides.get(r["df"], (None, None))
    print("freq* (freq = 10 in half 1)\n")
    print(table(bins, ["freq", "df", "freq_star", "n", "classes", "slides_freq_star", "slides_n"]))
    sc = split_counts(index)
    ag = agreement(segments(index, sc, 10), 10).as_dict()
    print("\nmethod 1 vs method 2, strings with df_1 >= 10\n")
    print(table([ag], list(ag)))
    print("\nmethod 1 and 2 for named strings\n")
    print(table(adapt_rows(index, list(NAMED)), ["pattern", "a", "b", "c", "d", "p_adapt", "prior", "p_neg_adapt",
                                                 "adaptation", "df"]))
    t0 = time.perf_counter()
    pr = priming_summary(index, neighbors, 10)
    print(f"\nHist / Near / Prior over word types with df >= 10 ({time.perf_counter() - t0:.1f} s)\n")
    print(table([pr], list(pr)))
    rows = near_by_freq(index, shape_rows(index), neighbors)
    print("\nshape\n")
    print(table(rows, ["strings_of", "freq_lo", "freq_hi", "strings", "p_first", "p_second", "p_near"]))


def timed(f: Any) -> tuple[float, float]:
    """(wall-clock, CPU) seconds of one run; CPU time suffers less from other jobs on a shared machine."""
    t0, c0 = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - t0, time.process_time() - c0


def cost(repeats: int) -> None:
    """Halves and method-1 counts against the df_k stage on the same arrays."""
    docs, _ = read_documents([str(DATA / "reuters21578.jsonl"), str(DATA / "manpages.jsonl")])
    ta = tokenize([d.text for d in docs], Unit.byte)
    sa = suffix_array(ta.tokens, len(docs))
    st = class_statistics(ta.tokens, sa, ta.doc_start, ta.doc_len, 4)
    c = st.classes
    index = LoadedIndex(corpus=None, shard_id=0, unit=Unit.byte, tokens=ta.tokens, sa=sa,  # type: ignore[arg-type]
                        doc_start=ta.doc_start, doc_len=ta.doc_len, lcp=st.lcp, cls_i=c.i, cls_j=c.j, cls_lbl=c.lbl,
                        cls_sil=c.sil, cls_df=st.df, cls_keys=np.empty(0), cls_order=np.empty(0), doc_names=[],
                        vocab=None)
    dor = doc_of_rank(index)

    def dfk() -> None:
        docfreq.fill_classes(st.lcp, dor, len(docs), 4)

    def halves() -> None:
        crossval_bins(half_statistics(index))

    def method1() -> None:
        split_counts(index, doc_of_rank(index))

    for f in (dfk, halves, method1):  # compile
        f()
    t = {"df_k": [], "halves": [], "method 1": []}  # type: dict[str, list[tuple[float, float]]]
    for _ in range(repeats):  # alternating, best of `repeats` each
        for name, f in (("df_k", dfk), ("halves", halves), ("method 1", method1)):
            t[name].append(timed(f))
    wall = {k: min(w for w, _ in v) for k, v in t.items()}
    cpu = {k: min(c for _, c in v) for k, v in t.items()}
    rows = [{"stage": k, "wall s": wall[k], "x df_k (wall)": wall[k] / wall["df_k"], "cpu s": cpu[k],
             "x df_k (cpu)": cpu[k] / cpu["df_k"]} for k in t]
    mb = sum(len(d.text.encode()) for d in docs) / 1e6
    print(f"\n## cost on {mb:.1f} MB ({len(ta.tokens) - len(docs)} byte tokens, {len(docs)} documents), "
          f"load {os.getloadavg()[0]:.1f}\n")
    print(table(rows, ["stage", "wall s", "x df_k (wall)", "cpu s", "x df_k (cpu)"]))


def priming_command(db: str, name: str, neighbors: int) -> None:
    """Wall-clock of the whole `termx adapt NAME --priming` command."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "termx", "adapt", name, "--priming", "--neighbors", str(neighbors),
                    "--db", db, "-f", "json"], check=True, capture_output=True)
    print(f"\n`termx adapt {name} --priming`: {time.perf_counter() - t0:.1f} s wall, "
          f"load {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=os.environ.get("TERMX_DATABASE_URL"), help="PostgreSQL URL")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--neighbors", type=int, default=10)
    parser.add_argument("--only", choices=["tables", "priming", "cost"], action="append",
                        help="Run only these sections (repeat it); default all.")
    args = parser.parse_args()
    only = set(args.only or ["tables", "priming", "cost"])
    engine = get_engine(args.db)
    db = engine.url.render_as_string(hide_password=False)
    if "tables" in only:
        for name, unit in (("reuters_word", Unit.word), ("reuters_byte", Unit.byte)):
            tables(corpus(engine, name, unit), args.neighbors)
    if "priming" in only:
        corpus(engine, "reuters_word", Unit.word)
        priming_command(db, "reuters_word", args.neighbors)
    if "cost" in only:
        cost(args.repeats)


if __name__ == "__main__":
    main()
