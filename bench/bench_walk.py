"""Every pass of the class walk (issue 28: the walk written once, termx/index/walk.py) timed against raw
pydivsufsort.divsufsort + kasai on the same tokens, in the same process; `--compare DIR` alternates with the termx
of another checkout (e.g. `git archive main termx | tar -x -C DIR`) round by round, so that the ratios of the two
codes come from the same minutes of a loaded machine.

    .venv/bin/python bench/bench_walk.py --size 3                                # this checkout only
    .venv/bin/python bench/bench_walk.py --size 3 --rounds 3 --compare /tmp/old  # old and new, alternating
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

REPOSITORY = Path(__file__).resolve().parents[1]


def best(fn: Callable[[], Any], repeats: int) -> float:
    """Fewest seconds of `repeats` calls."""
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def measure(size_mb: float, repeats: int) -> dict[str, float]:
    """Seconds of each walk pass on a `size_mb` MB byte-unit prefix of Reuters, and of the raw reference."""
    import pydivsufsort

    from bench._data import reuters_documents
    from termx.index import docfreq
    from termx.index.build import class_statistics
    from termx.index.classes import count_classes, enumerate_classes
    from termx.index.suffix import doc_of_position, suffix_array
    from termx.index.units import Unit, tokenize
    from termx.jdf.sketches import class_sketches
    from termx.studies.tree import class_tree

    docs, size = [], 0
    for d in reuters_documents():
        if size >= size_mb * 1e6:
            break
        docs.append(d)
        size += len(d.text.encode())
    ta = tokenize([d.text for d in docs], Unit.byte)
    sa = suffix_array(ta.tokens, len(docs))
    stats = class_statistics(ta.tokens, sa, ta.doc_start, ta.doc_len, 4)
    lcp, n_classes = stats.lcp, len(stats.classes)
    doc_of = doc_of_position(ta.doc_start, ta.doc_len, len(ta.tokens))[sa]
    neighbor = docfreq.neighbors(doc_of, len(docs))
    half = (np.arange(len(lcp)) >= len(lcp) // 2).astype(np.int32)
    df1 = np.ascontiguousarray(stats.df[:, 0])
    passes: dict[str, Callable[[], Any]] = {
        "count_classes": lambda: count_classes(lcp),
        "enumerate_classes": lambda: enumerate_classes(lcp),
        "fill_classes (df_k, K=4)": lambda: docfreq.fill_classes(lcp, doc_of, len(docs), 4),
        "pointer_counts": lambda: docfreq.pointer_counts(lcp, n_classes, neighbor[None, :], half, 2),
        "class_tree": lambda: class_tree(lcp, n_classes),
        "class_sketches": lambda: class_sketches(lcp, sa, ta.doc_start, ta.doc_len, df1, threshold=2),
    }
    for fn in passes.values():  # numba's cached kernels are loaded (or compiled) here, not timed
        fn()
    tokens = ta.tokens

    def raw() -> None:
        pydivsufsort.kasai(tokens, pydivsufsort.divsufsort(tokens))

    out = {"raw divsufsort + kasai": best(raw, repeats), "tokens": float(len(tokens))}
    for name, fn in passes.items():
        out[name] = best(fn, repeats)
    return out


def run(code: Path | None, size_mb: float, repeats: int) -> dict[str, float]:
    """`measure` in a fresh subprocess importing termx from `code` (None: this checkout)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in ([code] if code else []) + [REPOSITORY])
    proc = subprocess.run([sys.executable, __file__, "--worker", "--size", str(size_mb), "--repeats", str(repeats)],
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=float, default=3.0, help="MB of Reuters text")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per pass (the best is kept)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--compare", type=Path, help="a directory holding another termx/ to alternate with")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(measure(args.size, args.repeats)))  # noqa: T201
        return
    codes: list[tuple[str, Path | None]] = [("new", None)]
    if args.compare:
        codes = [("old", args.compare), ("new", None)]
    ratios: dict[str, dict[str, list[float]]] = {label: {} for label, _ in codes}
    for r in range(args.rounds):
        for label, code in codes:
            res = run(code, args.size, args.repeats)
            ref = res.pop("raw divsufsort + kasai")
            n = res.pop("tokens")
            for name, sec in res.items():
                ratios[label].setdefault(name, []).append(sec / ref)
            print(f"round {r + 1} {label}: {n:.0f} tokens, raw {ref:.3f} s; "  # noqa: T201
                  + ", ".join(f"{k} {v / ref:.3f}" for k, v in res.items()), file=sys.stderr)
    print(f"{'pass (seconds / raw divsufsort+kasai, mean of rounds)':58}"  # noqa: T201
          + "".join(f"{label:>10}" for label, _ in codes) + ("   new/old" if args.compare else ""))
    for name in ratios["new"]:
        means = [float(np.mean(ratios[label][name])) for label, _ in codes]
        line = f"{name:58}" + "".join(f"{m:10.3f}" for m in means)
        if args.compare:
            line += f"{means[1] / means[0]:10.3f}"
        print(line)  # noqa: T201


if __name__ == "__main__":
    main()
