"""Choose the `branching` scorer's parameters on development documents only, and print them.

The documents are split with `termx.evaluation.splits.train_devtest_test` (seeded, by document). Every
document's text is indexed de-spaced (the method is unsupervised: text without labels is fair to index); the
*spacing* of the devtest documents is the only label this script reads, and the test documents are never
segmented or scored here. The published figures (bench/bench_segment.py) are computed on the test split only.

- reuters: documents ordered by newid; test = the first 1,634 (the published evaluation set, as before);
  devtest = `--dev-docs` documents drawn with `--seed` from the other 17,409.
- pku: SIGHAN 2005 PKU gold lines, 10 per pseudo-document; devtest = `--dev-fraction` of the pseudo-documents
  drawn with `--seed`, test = the rest.
- ja: UD Japanese GSD dev sentences, 10 per pseudo-document, split as pku.

The search: for each combination of the values self-training reads (`TRAIN_KEYS`: theta0, kappa and, for pku/ja,
the per-class evidence κ_d, κ_hk, κ_r and runs) the self-trained model (with its nVBE autonomy table when the grid
has an `autonomy` ν ≠ 0) is built once; (autonomy, weight, theta) only change the final Viterbi scores, so they are
searched on the trained model, with no re-estimation pass (the candidates of the devtest documents are looked up
once per model). Then, on the best of these models, the
re-estimation passes (`PASS_GRIDS`: passes, pass_weight, pass_theta, pass_mix, the bound suffixes' suffix and
suffix_stems; termx.wordbreak.model step 4) are
searched together with (autonomy, weight, theta) of the final segmentation. The winner is the highest pooled
boundary F1 (word F1 for pku/ja, the bakeoff's measure) on devtest over both searches; ties go to the earlier
grid point, so passes = 0 wins a tie.

Run: .venv/bin/python bench/tune_segment.py --data reuters --seed 0   (prints the chosen values). The current
defaults: spaced from `--data reuters --seed 0 --theta0 32 --fix pass_weight=2 --fix pass_theta=-8 --fix
suffix_stems=100` (the bound suffixes σ searched with the final λ, θ; theta0 and the passes' λ_p, θ_p fixed where
the earlier full runs chose them); ja from `--data ja --seed 0 --theta0 0`; pku from `--data pku --seed 0 --theta0 0
--fix kappa_digit=5 --fix runs=1 --fix kappa_run=0 --fix autonomy=0 --fix passes=1 --fix pass_weight=1 --fix
pass_theta=-16 --fix pass_bigram=0.8` (the passes' two-character bonus searched with the final λ, θ, the other values
fixed where earlier searches chose them).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from _data import data_dir, pku_gold_lines, reuters_documents, ud_japanese_lines

from termx.evaluation.metrics import PRF, segmentation_prf
from termx.evaluation.splits import train_devtest_test
from termx.experiments.whitespace import Condition, SpacedDocument, spaced_documents
from termx.experiments.whitespace.segment import segment_documents
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.corpora import drop_corpus
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents
from termx.wordbreak import Scorer, Segmenter
from termx.wordbreak.segmenter import ChunkInputs

CLASS_GRID = {"kappa_digit": [0.0, 5.0, 10.0], "kappa_han_kana": [0.0, 5.0, 10.0], "kappa_run": [0.0, 10.0],
              "runs": [0.0, 1.0]}
GRIDS: dict[str, dict[str, list[float]]] = {
    "reuters": {"theta0": [16.0, 24.0, 32.0, 48.0], "kappa": [10.0],
                "weight": [0.5, 1.0, 2.0], "theta": [-4.0, -2.0, 0.0, 2.0, 4.0, 8.0]},
    "pku": {"theta0": [0.0, 8.0, 16.0, 32.0], "kappa": [10.0], **CLASS_GRID, "kappa_han_kana": [10.0],
            "autonomy": [0.0, 0.25, 0.5], "weight": [0.5, 1.0, 2.0, 3.0, 4.0],
            "theta": [-32.0, -24.0, -16.0, -12.0, -8.0, -4.0, 0.0, 2.0]},
    "ja": {"theta0": [0.0, 8.0, 16.0, 32.0], "kappa": [10.0], **CLASS_GRID, "autonomy": [0.0, 0.25, 0.5],
           "weight": [0.5, 1.0, 2.0, 3.0, 4.0], "theta": [-32.0, -24.0, -16.0, -12.0, -8.0, -4.0, 0.0, 2.0]},
}
"""Chinese text has no Kana, so κ_hk is not searched for PKU (10: the value of every other corpus)."""
TRAIN_KEYS = ("theta0", "kappa", "kappa_digit", "kappa_han_kana", "kappa_run", "runs")
"""Parameters that self-training reads (a model is trained per combination); the rest only change the final
search. A grid without a key leaves it at the `spaced` default."""
PASS_GRIDS: dict[str, dict[str, list[float]]] = {
    "reuters": {"passes": [1], "pass_weight": [1.0, 2.0], "pass_theta": [-8.0, -4.0, 0.0], "pass_mix": [1.0],
                "pass_bigram": [0.0], "pass_pair": [0.0], "suffix": [0.0, 0.1, 0.15, 0.2, 0.3],
                "suffix_stems": [50.0, 100.0], "autonomy": [0.0], "weight": [1.0, 2.0, 4.0],
                "theta": [-8.0, -4.0, 0.0]},
    "pku": {"passes": [1, 2], "pass_weight": [0.5, 1.0, 2.0, 4.0], "pass_theta": [-24.0, -16.0, -8.0],
            "pass_mix": [1.0], "pass_bigram": [0.0, 0.8], "pass_pair": [0.0, 4.0, 6.0, 8.0, 10.0, 12.0, 16.0],
            "suffix": [0.0], "suffix_stems": [100.0],
            "autonomy": [0.0, 0.25],
            "weight": [2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0],
            "theta": [-32.0, -28.0, -24.0, -20.0, -16.0, -12.0, -8.0, -4.0, 0.0, 4.0]},
}
PASS_GRIDS["ja"] = {**PASS_GRIDS["pku"], "pass_bigram": [0.0], "pass_pair": [0.0],
                    "theta": [-16.0, -12.0, -8.0, -4.0, 0.0, 4.0]}
"""Japanese: no two-character bonus. Searched (0 … 64, the `kana` values fixed) its devtest word F1 rose with β to
the grid's edge (.6061 → .6267 at 64, where the passes just maximise the number of two-character words), on 13
pseudo-documents: not adopted (docs/segment.md)."""
PASS_KEYS = ("passes", "pass_weight", "pass_theta", "pass_mix", "pass_bigram", "pass_pair", "suffix", "suffix_stems")
PER_DOC = 10
REUTERS_TEST = 1634





def documents(data: str, seed: int, dev_docs: int, dev_fraction: float
              ) -> tuple[list[SpacedDocument], list[int], list[int], Unit, Condition]:
    """All spaced documents in index order, the devtest and test document numbers, the unit and condition."""
    if data == "reuters":
        spaced = spaced_documents(reuters_documents(), Condition.alnum)
        test = list(range(REUTERS_TEST))
        context = list(range(REUTERS_TEST, len(spaced)))
        fraction = dev_docs / len(context)
        dev = sorted(train_devtest_test(context, (1 - fraction, fraction, 0.0), seed).devtest)
        return spaced, dev, test, Unit.byte, Condition.alnum
    lines = pku_gold_lines() if data == "pku" else ud_japanese_lines()
    spaced = spaced_documents([Document(f"l{n}", line) for n, line in enumerate(lines)], Condition.raw, PER_DOC)
    split = train_devtest_test(list(range(len(spaced))), (1 - dev_fraction, dev_fraction, 0.0), seed)
    return spaced, sorted(split.devtest), sorted(split.train), Unit.char, Condition.raw




def pooled(docs: Sequence[SpacedDocument], predicted: Sequence[Sequence[Sequence[str]]]) -> dict[str, PRF]:
    b, w = PRF(0, 0, 0), PRF(0, 0, 0)
    for doc, lines in zip(docs, predicted, strict=True):
        for gold, pred in zip(doc.lines, lines, strict=True):
            s = segmentation_prf(gold, pred)
            b, w = b + s["boundary"], w + s["word"]
    return {"boundary": b, "word": w}


def search_passes(seg: Segmenter, grid: dict[str, list[float]], dev_docs: Sequence[SpacedDocument],
                  dev: Sequence[int], measure: str, train_keys: Sequence[str]) -> list[dict[str, Any]]:
    """Devtest scores of the re-estimation passes' grid on one trained model (the final λ, θ innermost: they do
    not change the passes' counts, so the passes run once per setting of the outer loops); the rows name the
    model's `train_keys` values."""
    model = seg.model
    assert model is not None
    rows = []
    memo: dict[tuple[int, int], ChunkInputs] = {}
    outer = [grid[k] for k in (*PASS_KEYS, "autonomy")]
    for passes, pass_weight, pass_theta, pass_mix, pass_bigram, pass_pair, suffix, stems, nu in itertools.product(
            *outer):
        t0 = time.perf_counter()
        for weight, theta in itertools.product(grid["weight"], grid["theta"]):
            model.set_final(weight, theta, nu, int(passes), pass_weight, pass_theta, pass_mix, pass_bigram,
                            pass_pair, suffix, int(stems))
            scores = pooled(dev_docs, segment_documents(seg, dev_docs, dev, memo))
            rows.append({**{k: getattr(model.params, k) for k in train_keys}, "autonomy": nu,
                         "weight": weight, "theta": theta, "passes": int(passes), "pass_weight": pass_weight,
                         "pass_theta": pass_theta, "pass_mix": pass_mix, "pass_bigram": pass_bigram,
                         "pass_pair": pass_pair, "suffix": suffix, "suffix_stems": int(stems),
                         "boundary_f1": scores["boundary"].f1, "word_f1": scores["word"].f1})
        here = max(r[f"{measure}_f1"] for r in rows[-len(grid["weight"]) * len(grid["theta"]):])
        print(f"passes={passes:g} pass_weight={pass_weight:g} pass_theta={pass_theta:g} pass_mix={pass_mix:g} "
              f"pass_bigram={pass_bigram:g} pass_pair={pass_pair:g} suffix={suffix:g} suffix_stems={stems:g} "
              f"autonomy={nu:g}: best devtest {measure} F1 {here:.4f} ({time.perf_counter() - t0:.1f} s)", flush=True)
    return rows


def tune(engine: Any, data: str, seed: int, dev_docs: int = 300, dev_fraction: float = 0.25,
         theta0: Sequence[float] | None = None, fix: Sequence[str] = ()) -> dict[str, Any]:
    """Run the search on seed's devtest documents (the test documents are never segmented) and return what the
    script prints: the chosen values and their devtest F1."""
    spaced, dev, test, unit, _ = documents(data, seed, dev_docs, dev_fraction)
    assert not set(dev) & set(test)
    corpus = f"tune_seg_{data}_{seed}"
    index_documents(engine, corpus, [Document(d.name, d.text) for d in spaced], unit, replace=True)
    try:
        index = load_index(engine, corpus)
        dev_docs_ = [spaced[k] for k in dev]
        measure = "boundary" if data == "reuters" else "word"
        fixed = {k: [float(v)] for k, v in (f.split("=", 1) for f in fix)}
        grid = {**GRIDS[data], **({"theta0": list(theta0)} if theta0 else {})}
        grid = {k: fixed.get(k, v) for k, v in grid.items()}
        pass_grid = {k: fixed.get(k, v) for k, v in PASS_GRIDS[data].items()}
        print(f"grid: {json.dumps(grid)}\npass grid: {json.dumps(pass_grid)}", flush=True)
        rows: list[dict[str, Any]] = []
        kept: tuple[float, Segmenter] | None = None  # the best model so far, for the passes' search
        train_keys = [k for k in TRAIN_KEYS if k in grid]
        for values in itertools.product(*(grid[k] for k in train_keys)):
            trained = dict(zip(train_keys, values, strict=True))
            t0 = time.perf_counter()
            nus = grid.get("autonomy", [0.0])
            seg = Segmenter(index, Scorer.branching, options={**trained, "passes": 0, "pass_bigram": 0,
                                                                        "autonomy": max(nus, key=abs)})
            train_s = time.perf_counter() - t0
            assert seg.model is not None
            here = []
            memo: dict[tuple[int, int], ChunkInputs] = {}
            for nu, weight, theta in itertools.product(nus, grid["weight"], grid["theta"]):
                seg.model.set_final(weight, theta, nu, passes=0)  # (assigning model.params would change nothing)
                scores = pooled(dev_docs_, segment_documents(seg, dev_docs_, dev, memo))
                here.append({**trained, "autonomy": nu, "weight": weight, "theta": theta, "passes": 0,
                             "pass_bigram": 0.0,
                             "boundary_f1": scores["boundary"].f1, "word_f1": scores["word"].f1,
                             "train_s": round(train_s, 1)})
            rows += here
            best_here = max(r[f"{measure}_f1"] for r in here)
            print(" ".join(f"{k}={v:g}" for k, v in trained.items()) + f": best devtest {measure} F1 "
                  f"{best_here:.4f} (trained in {train_s:.1f} s)", flush=True)
            if kept is None or best_here > kept[0]:
                kept = (best_here, seg)
        assert kept is not None
        no_passes = max(rows, key=lambda r: r[f"{measure}_f1"])  # max keeps the first of equal scores
        rows += search_passes(kept[1], pass_grid, dev_docs_, dev, measure, train_keys)
        best = max(rows, key=lambda r: r[f"{measure}_f1"])
        keys = (*train_keys, "autonomy", "weight", "theta", "passes", "pass_bigram")
        chosen = {k: best[k] for k in (*keys, *(PASS_KEYS[1:4] + PASS_KEYS[5:] if best["passes"] else ()))}
        plain = max((r for r in rows if r["autonomy"] == 0 and not r["passes"] and not r["pass_bigram"]),
                    key=lambda r: r[f"{measure}_f1"],
                    default=None)
        return {"data": data, "seed": seed, "devtest_documents": len(dev),
                "test_documents_never_scored_here": len(test), "measure": f"{measure}_f1",
                "devtest_f1": best[f"{measure}_f1"], "chosen": chosen,
                "best_without_passes": {k: no_passes[k] for k in (*keys, f"{measure}_f1")},
                "best_without_autonomy_or_passes": plain and {k: plain[k] for k in (*keys, f"{measure}_f1")}}
    finally:
        drop_corpus(engine, corpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=sorted(GRIDS), default="reuters")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dev-docs", type=int, default=300, help="reuters: devtest documents")
    parser.add_argument("--dev-fraction", type=float, default=0.25, help="pku/ja: devtest share of pseudo-docs")
    parser.add_argument("--theta0", type=float, action="append",
                        help="search only these theta0 values (a smaller grid, e.g. for Reuters under load)")
    parser.add_argument("--fix", action="append", default=[], metavar="KEY=VALUE",
                        help="search only this value of a key of either grid (a smaller grid under load)")
    parser.add_argument("--db", default="postgresql://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    from termx.storage.db import get_engine

    if not data_dir().is_dir():
        sys.exit(f"no data folder at {data_dir()} (set TERMX_DATA)")
    found = tune(get_engine(args.db), args.data, args.seed, args.dev_docs, args.dev_fraction, args.theta0, args.fix)
    print(json.dumps(found, indent=2))


if __name__ == "__main__":
    main()
