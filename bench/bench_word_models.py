"""Adaptation vs frequency inside properly trained word models (issue 14, "baselines a reviewer would accept").

The `freq` and `adaptation` scorers score raw substring counts (log f/N − β, log A − β): no one's word model.
Here both are compared inside models that are trained, with no labels, on the same index:

- `em-freq`: a unigram word model self-trained by hard EM. Iteration 0 segments every document of the index
  with the `freq` scorer; each further iteration counts the words of the previous segmentation per candidate
  string (a (class, length) pair, as the branching model does) and re-scores S(w) = log((count(w) + ε) / words)
  − β. `em-adapt`: the same started from the `adaptation` scorer (adaptation as the *score* that seeds it).
- `em-freq + λ·logA`: the trained model with adaptation as a *feature*, S(w) + λ·log A(w).
- `branching` (the default scorer, with the parameters bench_segment.py publishes for the data) and
  `branching + λ·logA` (the same feature added to its word model).

β (per-word cost of the EM models) and λ are chosen on the devtest documents of bench/tune_segment.py's split
(same seed); every figure printed is pooled over the test documents only, and the paired tests (sign test and
Wilcoxon over test documents, per-document boundary-decision error rate, termx.evaluation) too.
Reuters is run on a documented subset: the 1,634 test documents plus the 300 devtest documents, indexed alone
(no other context), because the full 12.4 M-character index does not fit today's load.

Run: .venv/bin/python bench/bench_word_models.py --data pku|ja|reuters [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from bench_segment import DEFAULT_DB, RESULTS, TUNED
from tune_segment import documents

from termx.cli.output import render
from termx.evaluation import compare, pair_records, read_records
from termx.experiments.whitespace import SpacedDocument
from termx.experiments.whitespace.files import write_records
from termx.experiments.whitespace.report import score_result
from termx.experiments.whitespace.segment import segment_documents
from termx.index.ingest import Document
from termx.index.loaded_index import LoadedIndex
from termx.storage.corpora import drop_corpus
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents
from termx.wordbreak import Scorer, Segmenter, corpus_candidates
from termx.wordbreak.corpus_passes import document_chunks
from termx.wordbreak.scoring import adaptation_ratio
from termx.wordbreak.viterbi import WordScores

BETAS = [-12.0, -8.0, -4.0, -2.0, 0.0, 2.0, 4.0, 8.0]
LAMBDAS = [0.25, 0.5, 1.0, 2.0, 4.0]
ITERATIONS = 4
EPSILON = 0.1


class Types:
    """Candidate strings as (class, length) pairs: the offset of each class's lengths LBL+1..min(SIL, max_len)."""

    def __init__(self, index: LoadedIndex, max_len: int) -> None:
        sil = np.minimum(index.cls_sil.astype(np.int64), max_len)
        count = np.maximum(sil - index.cls_lbl, 0)
        self.offset = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
        self.lbl = index.cls_lbl
        self.size = int(count.sum())
        df1 = index.cls_df[:, 0].astype(np.float64)
        df2 = index.cls_df[:, 1].astype(np.float64) if index.cls_df.shape[1] > 1 else np.zeros_like(df1)
        self.log_a = np.repeat(np.log(adaptation_ratio(df1, df2)), count)   # log A of every type
        self.log_a_unknown = float(np.log(adaptation_ratio(np.ones(1), np.zeros(1)))[0])


def count_words(seg: Segmenter, types: Types) -> tuple[np.ndarray, int]:
    """Segment every document of the index with `seg`; count its words per type."""
    index = seg.index
    starts, lengths = index.doc_start.astype(np.int64), index.doc_len.astype(np.int64)
    counts = np.zeros(types.size)
    words = 0
    for d, e, lo, hi in document_chunks(index):
        fcand = corpus_candidates(index, seg.tree, lo, hi, seg.max_len)
        spans = [(int(starts[k]), int(starts[k] + lengths[k])) for k in range(d, e)]
        for (s, t), cuts in zip(spans, seg.corpus_spans(spans), strict=True):
            edges = np.concatenate([[s], s + cuts, [t]])
            at, size = edges[:-1] - lo, np.diff(edges)
            cls = fcand[at, size - 1].astype(np.int64)
            ok = cls >= 0
            np.add.at(counts, types.offset[cls[ok]] + size[ok] - types.lbl[cls[ok]] - 1, 1)
            words += len(size)
    return counts, words


def em_model(seg: Segmenter, types: Types, beta: float, iterations: int) -> WordScores:
    """Hard EM from `seg`'s current scores: `iterations` rounds of segment-all, count, re-score."""
    for _ in range(iterations):
        counts, words = count_words(seg, types)
        seg.words = WordScores(np.log(counts + EPSILON) - np.log(words), float(np.log(EPSILON) - np.log(words)),
                               1.0, beta, types.lbl, types.offset, 1)
    return seg.words


def with_adaptation(words: WordScores, types: Types, lam: float) -> WordScores:
    """The same word model plus λ·log A(w) (values are multiplied by the model's weight, hence λ / weight)."""
    k = lam / words.weight
    return replace(words, values=words.values + k * types.log_a, unknown=words.unknown + k * types.log_a_unknown)


class Scoring:
    """Score systems on the devtest and test documents; keep per-document records of the test documents."""

    def __init__(self, index: LoadedIndex, spaced: Sequence[SpacedDocument], dev: list[int], test: list[int],
                 measure: str, folder: Path) -> None:
        self.index, self.spaced, self.dev, self.test, self.measure, self.folder = \
            index, spaced, dev, test, measure, folder

    def dev_f1(self, seg: Segmenter) -> float:
        docs = [self.spaced[k] for k in self.dev]
        r = score_result("x", "scorer", docs, segment_documents(seg, docs, self.dev), {})
        return float(getattr(r, self.measure).f1)

    def test_row(self, name: str, seg: Segmenter, params: dict[str, Any]) -> dict[str, Any]:
        docs = [self.spaced[k] for k in self.test]
        r = score_result(name, "scorer", docs, segment_documents(seg, docs, self.test), {})
        write_records([r], self.folder)
        return {"system": name, **{k: round(v, 4) for k, v in params.items()}, "boundary_f1": r.boundary.f1,
                "word_p": r.word.precision, "word_r": r.word.recall, "word_f1": r.word.f1}

    def paired(self, a: str, b: str) -> list[dict[str, Any]]:
        data = pair_records(read_records(self.folder / f"{a}.jsonl"), read_records(self.folder / f"{b}.jsonl"),
                            a, b)
        return [{"A": a, "B": b, "test": r["test"], "n": r["n"], "p_value": r["p_value"], "better": r["better"],
                 "A_wins": int((data.a < data.b).sum()), "B_wins": int((data.b < data.a).sum()),
                 "mean_error_A": float(data.a.mean()), "mean_error_B": float(data.b.mean())}
                for r in compare(data, ["sign", "wilcoxon"])]


def best(values: Sequence[float], f1: Any) -> tuple[float, float]:
    """The grid value with the highest devtest F1 (the first of equal scores) and that F1."""
    scores = [(f1(v), v) for v in values]
    top = max(s for s, _ in scores)
    return next(v for s, v in scores if s == top), top


def run(data: str, seed: int, db: str) -> dict[str, Any]:
    from termx.storage.db import get_engine

    engine = get_engine(db)
    spaced, dev, test, unit, _ = documents(data, seed, 300, 0.25)
    if data == "reuters":  # the documented subset: test + devtest documents alone
        keep = sorted(test + dev)
        spaced = [spaced[k] for k in keep]
        renumber = {k: n for n, k in enumerate(keep)}
        dev, test = [renumber[k] for k in dev], [renumber[k] for k in test]
    corpus = f"bench_wm_{data}_{seed}"
    index_documents(engine, corpus, [Document(d.name, d.text) for d in spaced], unit, replace=True)
    try:
        index = load_index(engine, corpus)
        measure = "boundary" if data == "reuters" else "word"
        sc = Scoring(index, spaced, dev, test, measure, Path(tempfile.mkdtemp(prefix="bench_wm_")))
        rows = []
        for scorer in (Scorer.freq, Scorer.adaptation):  # raw substring counts, their own β as published
            rows.append(sc.test_row(scorer.value, Segmenter(index, scorer), {}))
        probe = Segmenter(index, Scorer.freq)
        types = Types(index, probe.max_len)
        chosen: dict[str, dict[str, float]] = {}
        for name, scorer in (("em-freq", Scorer.freq), ("em-adapt", Scorer.adaptation)):
            models: dict[float, WordScores] = {}

            def dev_em(beta: float, scorer: Scorer = scorer, models: dict[float, WordScores] = models) -> float:
                seg = Segmenter(index, scorer)
                models[beta] = em_model(seg, types, beta, ITERATIONS)
                return sc.dev_f1(seg)
            beta, f1 = best(BETAS, dev_em)
            seg = Segmenter(index, scorer)
            seg.words = models[beta]
            chosen[name] = {"beta": beta, "devtest_f1": f1}
            rows.append(sc.test_row(name, seg, {"beta": beta}))
            if name == "em-freq":
                em = models[beta]

                def dev_lam(lam: float, seg: Segmenter = seg, em: WordScores = em) -> float:
                    seg.words = with_adaptation(em, types, lam)
                    return sc.dev_f1(seg)
                lam, f1 = best(LAMBDAS, dev_lam)
                seg.words = with_adaptation(em, types, lam)
                chosen["em-freq+logA"] = {"beta": beta, "lambda": lam, "devtest_f1": f1}
                rows.append(sc.test_row("em-freq+logA", seg, {"beta": beta, "lambda": lam}))
        params = TUNED.get(data, {})
        seg = Segmenter(index, Scorer.branching, options=params)
        assert seg.model is not None
        model = seg.model
        plain = model.words
        rows.append(sc.test_row("branching", seg, {}))

        def dev_branch(lam: float) -> float:
            model.words = with_adaptation(plain, types, lam)
            return sc.dev_f1(seg)
        lam, f1 = best(LAMBDAS, dev_branch)
        model.words = with_adaptation(plain, types, lam)
        chosen["branching+logA"] = {"lambda": lam, "devtest_f1": f1}
        rows.append(sc.test_row("branching+logA", seg, {"lambda": lam}))
        tests = (sc.paired("adaptation", "freq") + sc.paired("em-adapt", "em-freq")
                 + sc.paired("em-freq+logA", "em-freq") + sc.paired("branching+logA", "branching")
                 + sc.paired("em-freq", "freq") + sc.paired("branching", "em-freq"))
    finally:
        drop_corpus(engine, corpus)
    title = (f"{data}: test split of tune_segment.py (seed {seed}), {len(test)} documents; "
             f"β, λ chosen on {len(dev)} devtest documents by {measure} F1")
    print(render(rows, "table", title=title))
    print(render(tests, "table", title=f"{data}: paired tests over test documents (boundary-decision error rate)"))
    print(json.dumps(chosen))
    return {"split": title, "chosen": chosen, "rows": rows, "tests": tests, "branching_params": params}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=["pku", "ja", "reuters"], action="append")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--db", default=os.environ.get("TERMX_DATABASE_URL", DEFAULT_DB))
    args = parser.parse_args()
    out = {data: run(data, args.seed, args.db) for data in args.data or ["pku", "ja"]}
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"word_models-{'-'.join(out)}.json"
    path.write_text(json.dumps(out, indent=2, default=float), encoding="utf-8")
    print(f"saved {path}")


if __name__ == "__main__":
    main()
