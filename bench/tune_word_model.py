"""Choose the `words` scorer's parameters (termx.wordbreak.word_model.WORD_DEFAULTS) on development documents only.

The new-text setup of issue 32 (bench/_data.py, newtext_split): word and pair counts of the first 15,000 Reuters
stories (alnum condition, spaced), 500 stories drawn with --seed from the development pool (the 1,000 stories after
the corpus; the evaluation of bench/bench_peers.py --parts newtext draws from the stories after those) run together
and segmented. Every combination of GRID is scored (pooled word F1, ties by boundary F1, then grid order); the
best is printed as the defaults to put in WORD_DEFAULTS. Run once, from scratch:

    python bench/tune_word_model.py [--seed 0]
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from _data import newtext_split

from termx.evaluation.metrics import PRF, segmentation_prf
from termx.wordbreak.word_model import WordModel, count_words

GRID: dict[str, list[float]] = {
    "discount": [0.5, 0.75, 0.9],
    "min_count": [1, 2],
    "min_pair": [1, 2],
    "unknown": [-12.0, -8.0, -4.0, 0.0],
    "unknown_len": [-1.0, -0.5, 0.0, 0.5, 1.0],
}


def corpus_texts(corpus: Sequence[Any]) -> list[str]:
    """The spaced text of each corpus story (its words joined by spaces, lines by newlines)."""
    return ["\n".join(" ".join(words) for words in d.lines) for d in corpus]


def pooled(docs: Sequence[Any], segment: Callable[[list[str]], list[list[str]]]) -> dict[str, float]:
    """Pooled boundary and word P/R/F1 of `segment` over every line of `docs` (bench_peers.score's measure)."""
    golds = [gold for d in docs for gold in d.lines]
    found = segment(["".join(g) for g in golds])
    b, w = PRF(0, 0, 0), PRF(0, 0, 0)
    for gold, pred in zip(golds, found, strict=True):
        s = segmentation_prf(gold, [x for x in pred if x])
        b, w = b + s["boundary"], w + s["word"]
    return {"word_f1": w.f1, "boundary_f1": b.f1}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="the draw of the development documents")
    args = parser.parse_args()
    corpus, dev = newtext_split(args.seed, "dev")
    started = time.perf_counter()
    counts = count_words(corpus_texts(corpus))
    print(f"counted {len(counts.words):,} words, {len(counts.pair_n):,} pairs in {time.perf_counter() - started:.1f} s;"
          f" {len(dev)} development stories, {sum(len(d.text) for d in dev):,} characters", flush=True)
    best: tuple[float, float] | None = None
    chosen: dict[str, float] = {}
    for values in itertools.product(*GRID.values()):
        params = dict(zip(GRID, values, strict=True))
        got = pooled(dev, WordModel(counts, 20, params).segment_lines)
        print(json.dumps({**params, **{k: round(v, 4) for k, v in got.items()}}), flush=True)
        key = (got["word_f1"], got["boundary_f1"])
        if best is None or key > best:
            best, chosen = key, params
    assert best is not None
    print(f"chosen (development word F1 {best[0]:.4f}, boundary F1 {best[1]:.4f}): "
          f"WORD_DEFAULTS = {json.dumps(chosen)}")


if __name__ == "__main__":
    main()
