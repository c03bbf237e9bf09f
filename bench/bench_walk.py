"""Every pass of the class walk (issue 28: the walk written once, termx/index/walk.py) timed against raw
pydivsufsort.divsufsort + kasai on the same tokens; `--compare DIR` also loads the same passes from another
checkout's termx/ (e.g. `git archive main termx | tar -x -C DIR`) and lets old and new take turns in the same
process, so their ratio comes from the same minutes of a loaded machine.

    .venv/bin/python bench/bench_walk.py --size 3                                # this checkout only
    .venv/bin/python bench/bench_walk.py --size 3 --rounds 3 --compare /tmp/old  # old and new, taking turns
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pydivsufsort

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._data import reuters_documents  # noqa: E402
from termx.index import classes, docfreq, tree  # noqa: E402
from termx.index.build import class_statistics  # noqa: E402
from termx.index.loaded_index import LoadedIndex  # noqa: E402
from termx.index.suffix import doc_of_position, suffix_array  # noqa: E402
from termx.index.units import Unit, tokenize  # noqa: E402
from termx.jdf import sketches  # noqa: E402
from termx.wordbreak import candidates  # noqa: E402

MMAP_THRESHOLD = 1 << 17
MODULES = {"classes": ("index/classes.py",), "docfreq": ("index/docfreq.py",),
           "tree": ("index/tree.py", "studies/tree.py"),  # moved to the engine by issue 28
           "sketches": ("jdf/sketches.py",), "candidates": ("wordbreak/candidates.py",)}


def best(fn: Callable[[], Any], repeats: int) -> float:
    """Fewest CPU seconds of this thread over `repeats` calls (every pass and the reference run in the calling
    thread; CPU time moves less than wall time on a machine that other jobs load)."""
    out = []
    for _ in range(repeats):
        t0 = time.thread_time()
        fn()
        out.append(time.thread_time() - t0)
    return min(out)


def load_old(root: Path) -> dict[str, ModuleType]:
    """The pass modules of the checkout at `root` (its termx/ directory's parent), under names of their own."""
    out = {}
    for name, rels in MODULES.items():
        path = next(root / "termx" / rel for rel in rels if (root / "termx" / rel).exists())
        spec = importlib.util.spec_from_file_location(f"old_{name}", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        out[name] = module
    return out


def _tree(module: ModuleType, lcp: np.ndarray, ci: np.ndarray, cj: np.ndarray) -> Any:
    """The studies' class_tree of either signature: (lcp, n_classes) before issue 28, (ci, cj, n) after."""
    if "ci" in inspect.signature(module.class_tree).parameters:
        return module.class_tree(ci, cj, len(lcp))
    return module.class_tree(lcp, len(ci))


def _word_tree(module: ModuleType, index: LoadedIndex) -> Any:
    """wordbreak.candidates.class_tree on an index that has not built its tree yet (LoadedIndex.tree is cached)."""
    index.__dict__.pop("tree", None)
    return module.class_tree(index)


def loaded(tokens: np.ndarray, sa: np.ndarray, doc_start: np.ndarray, doc_len: np.ndarray, stats: Any) -> LoadedIndex:
    """The arrays word breaking reads, as a LoadedIndex (no corpus, no class lookup)."""
    c, empty = stats.classes, np.zeros(0, dtype=np.int64)
    return LoadedIndex(None, 0, Unit.byte, tokens, sa, doc_start, doc_len, stats.lcp, c.i, c.j, c.lbl,  # type: ignore[arg-type]
                       c.sil, stats.df, empty, empty, [], None)


def passes(size_mb: float) -> tuple[np.ndarray, dict[str, Callable[[dict[str, ModuleType]], Any]]]:
    """The tokens of a `size_mb` MB byte-unit prefix of Reuters, and each pass as a call on a set of modules."""
    docs, size = [], 0
    for d in reuters_documents():
        if size >= size_mb * 1e6:
            break
        docs.append(d)
        size += len(d.text.encode())
    ta = tokenize([d.text for d in docs], Unit.byte)
    sa = suffix_array(ta.tokens, len(docs))
    stats = class_statistics(ta.tokens, sa, ta.doc_start, ta.doc_len, 4)
    lcp, n_classes, n_docs = stats.lcp, len(stats.classes), len(docs)
    doc_of = doc_of_position(ta.doc_start, ta.doc_len, len(ta.tokens))[sa]
    neighbor = docfreq.neighbors(doc_of, n_docs)[None, :]
    half = (np.arange(len(lcp)) >= len(lcp) // 2).astype(np.int32)
    df1 = np.ascontiguousarray(stats.df[:, 0])
    index = loaded(ta.tokens, sa, ta.doc_start, ta.doc_len, stats)
    return ta.tokens, {
        "count_classes": lambda m: m["classes"].count_classes(lcp),
        "enumerate_classes": lambda m: m["classes"].enumerate_classes(lcp),
        "fill_classes (df_k, K=4)": lambda m: m["docfreq"].fill_classes(lcp, doc_of, n_docs, 4),
        "pointer_counts": lambda m: m["docfreq"].pointer_counts(lcp, n_classes, neighbor, half, 2),
        "class_tree": lambda m: _tree(m["tree"], lcp, stats.classes.i, stats.classes.j),
        "wordbreak class_tree (+ branch entropy)": lambda m: _word_tree(m["candidates"], index),
        "class_sketches": lambda m: m["sketches"].class_sketches(lcp, sa, ta.doc_start, ta.doc_len, df1,
                                                                 threshold=2),
    }


def main() -> None:
    if os.environ.get("MALLOC_MMAP_THRESHOLD_") != str(MMAP_THRESHOLD):
        # a fixed threshold, as bench_index.py: glibc's adaptive one makes whichever pass runs second in a pair
        # allocate differently (an identical kernel measured 1.9x slower there)
        os.execve(sys.executable, [sys.executable, *sys.argv],
                  {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(MMAP_THRESHOLD)})
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=float, default=3.0, help="MB of Reuters text")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per pass and round (the best is kept)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--compare", type=Path, help="a checkout (holding termx/) to take turns with")
    parser.add_argument("--only", action="append", help="time only the passes whose name starts with this")
    args = parser.parse_args()
    codes = {"new": {"classes": classes, "docfreq": docfreq, "tree": tree, "sketches": sketches,
                      "candidates": candidates}}
    if args.compare:
        codes = {"old": load_old(args.compare), **codes}
    tokens, runs = passes(args.size)
    runs = {name: run for name, run in runs.items() if not args.only or name.startswith(tuple(args.only))}
    for run in runs.values():  # numba's cached kernels are loaded (or compiled) here, not timed
        for modules in codes.values():
            run(modules)
    seconds: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        raw = best(lambda: pydivsufsort.kasai(tokens, pydivsufsort.divsufsort(tokens)), args.repeats)
        for name, run in runs.items():
            turns = list(codes.items())
            for label, modules in turns if r % 2 == 0 else turns[::-1]:  # who goes first alternates by round
                seconds.setdefault((name, label), []).append(best(partial(run, modules), args.repeats) / raw)
        print(f"round {r + 1}: {len(tokens)} tokens, raw divsufsort + kasai {raw:.3f} s", file=sys.stderr)  # noqa: T201
    labels = list(codes)
    print(f"{'pass (seconds / raw divsufsort+kasai, CPU, best round)':52}"  # noqa: T201
          + "".join(f"{label:>8}" for label in labels) + ("  new/old" if args.compare else ""))
    for name in runs:
        ratios = [min(seconds[name, label]) for label in labels]
        print(f"{name:52}" + "".join(f"{x:8.3f}" for x in ratios)  # noqa: T201
              + (f"{ratios[1] / ratios[0]:9.3f}" if args.compare else ""))


if __name__ == "__main__":
    main()
