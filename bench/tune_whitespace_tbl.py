"""Choose the defaults of `termx whitespace --tbl` (template set, min score, training characters) on development
documents only, and print them.

Reuters `alnum`, documents ordered by newid: the first 1,634 are the published evaluation set and are never
segmented or scored here. All 19,043 de-spaced documents are indexed (unsupervised, as in the experiment) and the
`branching` scorer is trained with its defaults. The TBL training samples are exactly those of the experiment
(`tbl_training_sample`: the head of the fixed-seed permutation of the 17,409 context documents, one sample per
budget); the development documents are drawn with `--seed` from the context documents outside the largest
training sample, until `--dev-chars` characters. A corrector is trained for every (budget, template set, min
score) of the grid and scored on the development documents (pooled boundary F1, as the experiment scores).

Choice: the template set and min score with the highest development F1 at the largest budget (ties go to the
earlier grid point: fewer templates, lower min score); the budget is the smallest whose development F1 with
that choice is within `--budget-tolerance` (default .001) of the best budget's, as training text costs learning
time and rules. `max_rules` stays unlimited: the min score is the stopping rule.

Run: .venv/bin/python bench/tune_whitespace_tbl.py --seed 0   (prints the chosen values; about 45 minutes on 2 loaded
cores, most of it learning the 1,000,000-character grid). With seed 0 (739 development documents, 500,079
characters) it printed `chosen: templates chars8_tags, min score 2, train chars 1000000 (dev boundary F1 0.9752)`,
the defaults of `TblSettings`; the grid is in docs/tbl.md.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from _data import reuters_documents

from termx.evaluation.metrics import PRF, segmentation_prf
from termx.experiments.whitespace import Condition, SpacedDocument, spaced_documents
from termx.experiments.whitespace.segment import segment_documents
from termx.experiments.whitespace.tbl import join_lines, tbl_training_sample
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.corpora import drop_corpus
from termx.storage.indexer import index_documents
from termx.tbl.segmentation import correct_segmentation, train_segmentation_corrector
from termx.tbl.templates import TEMPLATE_SETS
from termx.wordbreak import Scorer, Segmenter
from termx.wordbreak.corpus_index import corpus_index

EVAL_DOCS = 1634
CORPUS = "tune_ws_tbl_reuters"
BUDGETS = [100_000, 300_000, 1_000_000]
MIN_SCORES = [1, 2, 3, 4]


def dev_sample(spaced: Sequence[SpacedDocument], excluded: set[int], seed: int, chars: int) -> list[int]:
    """Context documents outside `excluded`, in a `seed`-ed random order, until `chars` characters."""
    pool = [k for k in range(EVAL_DOCS, len(spaced)) if k not in excluded]
    chosen, total = [], 0
    for i in np.random.default_rng(seed).permutation(len(pool)).tolist():
        if total >= chars:
            break
        chosen.append(pool[i])
        total += len(spaced[pool[i]].text)
    return sorted(chosen)


def pooled_f1(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Boundary F1 pooled over lines (the experiment's measure)."""
    b = PRF(0, 0, 0)
    for g, p in zip(gold, pred, strict=True):
        b = b + segmentation_prf(g.split(" "), p.split(" "))["boundary"]
    return b.f1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=os.environ.get("TERMX_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dev-chars", type=int, default=500_000)
    parser.add_argument("--budgets", type=int, nargs="+", default=BUDGETS)
    parser.add_argument("--min-scores", type=int, nargs="+", default=MIN_SCORES)
    parser.add_argument("--sets", nargs="+", default=list(TEMPLATE_SETS))
    parser.add_argument("--budget-tolerance", type=float, default=0.001)
    parser.add_argument("--out", default=None, help="write the grid as JSON here")
    args = parser.parse_args()
    from termx.storage.db import get_engine

    engine = get_engine(args.db)
    spaced = spaced_documents(reuters_documents(), Condition.alnum)
    budgets = sorted(args.budgets)
    train = {b: tbl_training_sample(spaced, EVAL_DOCS, b) for b in budgets}
    dev = dev_sample(spaced, set(train[budgets[-1]]), args.seed, args.dev_chars)
    assert not set(dev) & set(train[budgets[-1]]) and min(dev + train[budgets[-1]]) >= EVAL_DOCS
    print(f"dev: {len(dev)} documents, {sum(len(spaced[k].text) for k in dev):,} characters (seed {args.seed}); "
          + ", ".join(f"train {b:,}: {len(train[b])} documents" for b in budgets), flush=True)
    t0 = time.perf_counter()
    index_documents(engine, CORPUS, [Document(d.name, d.text) for d in spaced], Unit.byte, replace=True)
    try:
        segmenter = Segmenter(corpus_index(engine, CORPUS), Scorer.branching)
        wanted = sorted(set(dev) | set(train[budgets[-1]]))
        predicted = dict(zip(wanted, segment_documents(segmenter, [spaced[k] for k in wanted], wanted), strict=True))
    finally:
        drop_corpus(engine, CORPUS)
    print(f"indexed, trained and segmented in {time.perf_counter() - t0:.0f} s", flush=True)

    def lines(nos: Sequence[int]) -> tuple[list[str], list[str]]:
        return ([line for k in nos for line in join_lines(spaced[k].lines)],
                [line for k in nos for line in join_lines(predicted[k])])

    dev_gold, dev_pred = lines(dev)
    grid: list[dict[str, Any]] = []
    print(f"development boundary F1 without TBL: {pooled_f1(dev_gold, dev_pred):.4f}", flush=True)
    for budget in budgets:
        gold, pred = lines(train[budget])
        for name in args.sets:
            for min_score in args.min_scores:
                t = time.perf_counter()
                model = train_segmentation_corrector(gold, pred, templates=TEMPLATE_SETS[name], min_score=min_score)
                seconds = time.perf_counter() - t
                f1 = pooled_f1(dev_gold, correct_segmentation(model, dev_pred))
                grid.append({"budget": budget, "templates": name, "min_score": min_score,
                             "rules": len(model.rules), "learn_s": round(seconds, 1), "dev_f1": f1})
                print(f"budget {budget:>9,}  {name:<10} min score {min_score}  rules {len(model.rules):>5}  "
                      f"learn {seconds:6.1f} s  dev boundary F1 {f1:.4f}", flush=True)
    largest = [g for g in grid if g["budget"] == budgets[-1]]
    best = max(largest, key=lambda g: g["dev_f1"])  # max keeps the first of equals: the earlier grid point
    same = {b: next(g for g in grid if g["budget"] == b and g["templates"] == best["templates"]
                    and g["min_score"] == best["min_score"]) for b in budgets}
    top = max(g["dev_f1"] for g in same.values())
    budget = min(b for b in budgets if same[b]["dev_f1"] >= top - args.budget_tolerance)
    print(f"chosen: templates {best['templates']}, min score {best['min_score']}, train chars {budget} "
          f"(dev boundary F1 {same[budget]['dev_f1']:.4f}; at {budgets[-1]:,}: {best['dev_f1']:.4f})")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"seed": args.seed, "dev_documents": len(dev), "grid": grid,
                       "chosen": {"templates": best["templates"], "min_score": best["min_score"],
                                  "train_chars": budget}}, f, indent=2)


if __name__ == "__main__":
    main()
