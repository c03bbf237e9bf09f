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

pku and ja: one coordinate search from scratch (`coordinate_tune`): it starts at the dataclass's values
(BranchingParams(): the class rule of before, no passes) and searches every value of the model (COORD_GRID; the few
it does not search are fixed in COORD_FIXED with the reason, none from an earlier search), one coordinate at a time
with (λ, θ) re-fitted among their neighbouring grid values, for at most ROUNDS rounds. It takes no --fix or
--theta0. A seed's run takes minutes on the shared 2-CPU machine (it prints each coordinate's time).

reuters: for each combination of the values self-training reads (`TRAIN_KEYS`: theta0, kappa) the self-trained
model is built once; (autonomy, weight, theta) only change the final Viterbi scores, so they are searched on the
trained model, with no re-estimation pass. Then, on the best of these models, the re-estimation passes
(`PASS_GRIDS`: passes, pass_weight, pass_theta, pass_mix, the bound suffixes' suffix and suffix_stems;
termx.wordbreak.model step 4) are searched together with (autonomy, weight, theta) of the final segmentation. The
winner is the highest pooled boundary F1 on devtest over both searches; ties go to the earlier grid point, so
passes = 0 wins a tie.

Run: .venv/bin/python bench/tune_segment.py --data pku --seed 0   (prints the chosen values). The current
defaults: `unspaced` and `kana` are what `--data pku --seed 0` and `--data ja --seed 0` printed (tests check it
through the records of bench/published_segment.py); spaced from `--data reuters --seed 0 --theta0 32 --fix
pass_weight=2 --fix pass_theta=-8 --fix suffix_stems=100` (the bound suffixes σ searched with the final λ, θ; theta0
and the passes' λ_p, θ_p fixed where the earlier full runs chose them: not yet one run from scratch).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
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
from termx.wordbreak.model import BranchingParams
from termx.wordbreak.segmenter import ChunkInputs

GRIDS: dict[str, dict[str, list[float]]] = {
    "reuters": {"theta0": [16.0, 24.0, 32.0, 48.0], "kappa": [10.0],
                "weight": [0.5, 1.0, 2.0], "theta": [-4.0, -2.0, 0.0, 2.0, 4.0, 8.0]},
}
"""The grid search of Reuters (pku and ja: the coordinate search, COORD_GRID)."""
TRAIN_KEYS = ("theta0", "kappa", "kappa_digit", "kappa_han_kana", "kappa_run", "runs")
"""Parameters that self-training reads (a model is trained per combination); the rest only change the final
search. A grid without a key leaves it at the `spaced` default."""
PASS_GRIDS: dict[str, dict[str, list[float]]] = {
    "reuters": {"passes": [1], "pass_weight": [1.0, 2.0], "pass_theta": [-8.0, -4.0, 0.0], "pass_mix": [1.0],
                "pass_bigram": [0.0], "pass_pair": [0.0], "suffix": [0.0, 0.1, 0.15, 0.2, 0.3],
                "suffix_stems": [50.0, 100.0], "autonomy": [0.0], "weight": [1.0, 2.0, 4.0],
                "theta": [-8.0, -4.0, 0.0]},
}
PASS_KEYS = ("passes", "pass_weight", "pass_theta", "pass_mix", "pass_bigram", "pass_pair", "suffix", "suffix_stems")
PER_DOC = 10
REUTERS_TEST = 1634


COORD_GRID: dict[str, list[float]] = {
    "theta0": [0.0, 8.0, 16.0, 32.0], "kappa": [5.0, 10.0, 20.0], "kappa_digit": [0.0, 5.0, 10.0],
    "kappa_han_kana": [0.0, 5.0, 10.0], "kappa_run": [0.0, 10.0], "runs": [0.0, 1.0],
    "autonomy": [0.0, 0.25, 0.5], "passes": [0.0, 1.0, 2.0], "pass_weight": [0.5, 1.0, 2.0, 4.0],
    "pass_theta": [-24.0, -16.0, -8.0], "pass_mix": [0.5, 1.0], "pass_bigram": [0.0, 0.5, 0.8, 0.95],
    "pass_pair": [0.0, 4.0, 8.0, 12.0, 16.0], "suffix": [0.0, 0.15],
    "weight": [2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0],
    "theta": [-32.0, -28.0, -24.0, -20.0, -16.0, -12.0, -8.0, -4.0, 0.0, 4.0],
}
"""The coordinate search of the unspaced scripts (pku and ja alike): each value's grid. (λ, θ) are searched as one
coordinate (their product), since they trade off against each other."""
COORD_FIXED: dict[str, dict[str, float]] = {
    "pku": {"kappa_han_kana": 10.0, "suffix_stems": 100.0},
    "ja": {"suffix_stems": 100.0},
}
"""Values the coordinate search does not search, and why. κ_hk only scores a change from Han to Hiragana, which
Chinese text does not have, so for pku it cannot change the result (10, the dataclass's value). m = suffix_stems
only matters when σ > 0; it is kept at the dataclass's 100 (σ is searched). window (8) and smoothing ε (0.1) are
the model's structure, the same for every script, never tuned."""
COORD_ORDER: tuple[str | tuple[str, str], ...] = (
    "theta0", "kappa", "kappa_digit", "kappa_han_kana", "kappa_run", "runs", ("weight", "theta"), "autonomy",
    ("passes", "pass_weight", "pass_theta"), "pass_mix", "pass_pair", "pass_bigram", "suffix", ("weight", "theta"))
"""One round of the coordinate search: the self-training values, the final (λ, θ), ν, then the passes' values. A
tuple is one coordinate searched over its product: (λ, θ) trade off against each other, and the passes' λ_p, θ_p
change nothing while passes = 0, so one at a time could never leave passes = 0."""
ROUNDS = 2
"""At most this many rounds (fewer when a round changes nothing): bounded time on a 2-CPU machine."""


@dataclass(frozen=True)
class GoldCuts:
    """The devtest lines as corpus token spans with their gold cuts and words (as token offsets): a segmentation's
    pooled scores from its cuts alone, with no decoding (unit char: a token is a character)."""

    spans: list[tuple[int, int]]
    cuts: list[set[int]]
    words: list[set[tuple[int, int]]]

    @classmethod
    def of(cls, index: Any, docs: Sequence[SpacedDocument], doc_nos: Sequence[int]) -> GoldCuts:
        assert index.unit is Unit.char
        spans, cuts, words = [], [], []
        for d, doc in zip(doc_nos, docs, strict=True):
            start = int(index.doc_start[d])
            for line in doc.lines:
                edges = [0, *itertools.accumulate(len(w) for w in line if w)]
                spans.append((start, start + edges[-1]))
                cuts.append(set(edges[1:-1]))
                words.append(set(zip(edges, edges[1:], strict=False)))
                start += edges[-1]
        return cls(spans, cuts, words)

    def score(self, predicted: Sequence[Any]) -> dict[str, PRF]:
        b, w = [0, 0, 0], [0, 0, 0]
        for (lo, hi), cuts, words, found in zip(self.spans, self.cuts, self.words, predicted, strict=True):
            edges = [0, *found.tolist(), hi - lo]
            p_cuts, p_words = set(edges[1:-1]), set(zip(edges, edges[1:], strict=False))
            b = [b[0] + len(cuts & p_cuts), b[1] + len(cuts), b[2] + len(p_cuts)]
            w = [w[0] + len(words & p_words), w[1] + len(words), w[2] + len(p_words)]
        return {"boundary": PRF(*b), "word": PRF(*w)}


def _near(key: str, point: dict[str, float]) -> list[float]:
    """The grid values of `key` next to (and at) the point's value."""
    grid = COORD_GRID[key]
    at = grid.index(point[key])
    return grid[max(at - 1, 0):at + 2]


def coordinate_tune(index: Any, data: str, dev_docs: Sequence[SpacedDocument], dev: Sequence[int],
                    measure: str, rounds: int = ROUNDS) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Coordinate search from the dataclass's values (BranchingParams(): the class rule of before, no passes): each
    coordinate in turn takes its best grid value with the others held and (λ, θ) re-fitted among their neighbouring
    grid values (ties keep the current point), round after
    round until one changes nothing or `rounds` are done. Every value of BranchingParams is searched or fixed by
    COORD_FIXED (with its reason); nothing comes from an earlier search. Returns the chosen values and every row."""
    fixed = COORD_FIXED[data]
    current: dict[str, float] = {**{k: float(v) for k, v in BranchingParams().as_dict().items()
                                    if k not in ("window", "smoothing")}, **fixed}
    nus = COORD_GRID["autonomy"]
    gold = GoldCuts.of(index, dev_docs, dev)
    models: dict[tuple[float, ...], tuple[Segmenter, dict[tuple[int, int], ChunkInputs]]] = {}
    seen: dict[tuple[float, ...], float] = {}
    rows: list[dict[str, Any]] = []

    def score(point: dict[str, float]) -> float:
        idle = ({"pass_weight", "pass_theta", "pass_mix", "pass_pair", "suffix"} if not point["passes"] else set()) | (
            {"suffix_stems"} if not point["passes"] or not point["suffix"] else set())  # values that change nothing
        key = tuple(point[k] for k in sorted(point) if k not in idle)
        if key in seen:
            return seen[key]
        trained = tuple(point[k] for k in TRAIN_KEYS)
        if trained not in models:
            t0 = time.perf_counter()
            seg = Segmenter(index, Scorer.branching, options={
                **dict(zip(TRAIN_KEYS, trained, strict=True)), "passes": 0, "pass_bigram": 0, "pass_pair": 0,
                "suffix": 0, "autonomy": max(nus)})  # every value of the dataclass given: no script default leaks
            print(" ".join(f"{k}={v:g}" for k, v in zip(TRAIN_KEYS, trained, strict=True))
                  + f": trained in {time.perf_counter() - t0:.1f} s", flush=True)
            if len(models) >= 4:  # memory: keep the last few trained models
                models.pop(next(iter(models)))
            models[trained] = (seg, {})
        seg, memo = models[trained]
        assert seg.model is not None
        seg.model.set_final(point["weight"], point["theta"], point["autonomy"], int(point["passes"]),
                            point["pass_weight"], point["pass_theta"], point["pass_mix"], point["pass_bigram"],
                            point["pass_pair"], point["suffix"], int(point["suffix_stems"]))
        scores = gold.score(seg.corpus_spans(gold.spans, memo))
        if not rows:  # the fast scoring is the words' scoring (a check, once)
            slow = pooled(dev_docs, segment_documents(seg, dev_docs, dev, {}))
            assert all(slow[k] == scores[k] for k in scores), (slow, scores)
        rows.append({**point, "boundary_f1": scores["boundary"].f1, "word_f1": scores["word"].f1})
        seen[key] = scores[measure].f1
        return seen[key]

    best = score(current)
    for round_ in range(rounds):
        changed = False
        for coord in COORD_ORDER:
            keys = coord if isinstance(coord, tuple) else (coord,)
            if any(k in fixed for k in keys):
                continue
            t0 = time.perf_counter()
            start, per_value = current, []
            for values in itertools.product(*(COORD_GRID[k] for k in keys)):
                here = {**start, **dict(zip(keys, values, strict=True))}
                # each value with (λ, θ) re-fitted nearby: a value that only pays with another λ or θ is not lost
                near = [here] if "weight" in keys else [{**here, "weight": w, "theta": t}
                                                       for w in _near("weight", here) for t in _near("theta", here)]
                tried = []
                for point in near:
                    f1 = score(point)
                    tried.append(f1)
                    if f1 > best:
                        best, current, changed = f1, point, True
                per_value.append(f"{'/'.join(f'{v:g}' for v in values)}: {max(tried):.4f}")
            print(f"round {round_ + 1} {'/'.join(keys)}: " + " ".join(f"{k}={current[k]:g}" for k in keys)
                  + f", devtest {measure} F1 {best:.4f} ({time.perf_counter() - t0:.1f} s)"
                  + ("" if "weight" in keys else f" [{', '.join(per_value)}]"), flush=True)
        if not changed:
            break
    chosen = {k: (int(v) if k in ("runs", "passes", "suffix_stems") else v) for k, v in current.items()}
    return {**chosen, f"{measure}_f1": best}, rows





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
    if data != "reuters" and (fix or theta0):
        raise SystemExit("pku/ja: the coordinate search takes no --fix or --theta0 (one run from scratch)")
    spaced, dev, test, unit, _ = documents(data, seed, dev_docs, dev_fraction)
    assert not set(dev) & set(test)
    corpus = f"tune_seg_{data}_{seed}"
    index_documents(engine, corpus, [Document(d.name, d.text) for d in spaced], unit, replace=True)
    try:
        index = load_index(engine, corpus)
        dev_docs_ = [spaced[k] for k in dev]
        measure = "boundary" if data == "reuters" else "word"
        if data != "reuters":
            t0 = time.perf_counter()
            found, coord_rows = coordinate_tune(index, data, dev_docs_, dev, measure)
            f1 = found.pop(f"{measure}_f1")
            return {"data": data, "seed": seed, "devtest_documents": len(dev),
                    "test_documents_never_scored_here": len(test), "measure": f"{measure}_f1", "devtest_f1": f1,
                    "chosen": found, "points_scored": len(coord_rows),
                    "seconds": round(time.perf_counter() - t0, 1)}
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
    parser.add_argument("--data", choices=["ja", "pku", "reuters"], default="reuters")
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
