"""Measure word breaking (issue 6, "Must be measured") on real text, every figure next to a reference.

- Reuters, white space recovery in the `alnum` condition: the first 1,634 documents by newid of
  reuters21578.jsonl are scored, the other 17,409 are unlabelled context in the index. Boundary and word P/R/F1
  of every scorer next to the trivial baselines, and paired tests over documents (sign test and Wilcoxon on the
  per-document boundary-decision error rate, termx.evaluation) for branching vs freq, adaptation vs freq and
  branching vs adaptation. The branching defaults were tuned on 300 other Reuters documents (never these).
- Chinese, SIGHAN 2005 PKU test: the gold file de-spaced and indexed alone (unit char, raw, 10 lines per
  pseudo-document), word F1 as the bakeoff scorer counts, with the code's defaults, with the parameters
  bench/tune_segment.py printed for `--data pku --seed 0` (`TUNED`, chosen on the devtest pseudo-documents)
  and with the previous default (`PREVIOUS`: PKU's and Japanese's values before the one search from scratch of
  2026-12-06, on this code); every
  figure is pooled over the *test* pseudo-documents of that split only.
- Japanese, UD GSD dev: the same (tune_segment.py `--data ja`) with the treebank's tokens as gold.
- Speed: characters/s of segmenting corpus text (class-tree path) and new text (suffix-array path), next to the
  letter-change baseline segmenting the same text; the whole `whitespace` run on the 1 M-character evaluation set
  (index included), and on all 19,043 documents.

Results are printed as tables and saved as JSON under bench/results/. Run: .venv/bin/python bench/bench_segment.py
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import sqlalchemy as sa
from _data import pku_gold_lines, reuters_documents, ud_japanese_lines
from tune_segment import PER_DOC, documents

from termx.cli.output import render
from termx.evaluation import compare, pair_records, read_records
from termx.experiments.whitespace import Condition, WhitespaceReport, letter_change_words, run_whitespace
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.corpora import drop_corpus, list_corpora
from termx.storage.index_loader import load_index
from termx.wordbreak import Scorer, Segmenter

RESULTS = Path(__file__).resolve().parent / "results"
DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/test"
EVAL_DOCS = 1634
TUNED = {  # exactly what one run of `bench/tune_segment.py --data KEY --seed 0` printed (devtest, never test)
    "pku": {"kappa": 20.0, "kappa_digit": 0.0, "kappa_han_kana": 10.0, "kappa_run": 0.0, "runs": 1, "theta0": 0.0,
            "weight": 8.0, "theta": -28.0, "autonomy": 0.0, "passes": 1, "pass_weight": 2.0, "pass_theta": -24.0,
            "pass_mix": 1.0, "pass_bigram": 0.95, "pass_pair": 12.0, "suffix": 0.0, "suffix_stems": 100},
    "ja": {"kappa": 20.0, "kappa_digit": 10.0, "kappa_han_kana": 0.0, "kappa_run": 10.0, "runs": 1, "theta0": 8.0,
           "weight": 12.0, "theta": -20.0, "autonomy": 0.0, "passes": 1, "pass_weight": 2.0, "pass_theta": -24.0,
           "pass_mix": 0.5, "pass_bigram": 0.95, "pass_pair": 12.0, "suffix": 0.0, "suffix_stems": 100},
}
CLASS_RULE_BEFORE = {"kappa_digit": 10.0, "kappa_han_kana": 10.0, "kappa_run": 0.0, "runs": 0}
"""κ at every change of class, −κ inside digits, no runs (what the per-class parameters reduce to)."""
PREVIOUS = {  # the defaults before this round (Reuters: before bound suffixes; pku: the eight --fix values of
    # before the one search from scratch; ja: before the one search from scratch)
    "reuters": {"theta0": 32.0, "kappa": 10.0, "autonomy": 0.0, "weight": 4.0, "theta": 0.0, "passes": 1,
                "pass_weight": 2.0, "pass_theta": -8.0, "pass_mix": 1.0, "suffix": 0.0},
    "pku": {"theta0": 0.0, "kappa": 10.0, "kappa_digit": 5.0, "kappa_han_kana": 10.0, "kappa_run": 0.0, "runs": 1,
            "autonomy": 0.0, "weight": 8.0, "theta": -24.0, "passes": 1, "pass_weight": 1.0, "pass_theta": -16.0,
            "pass_mix": 1.0, "pass_bigram": 0.8, "pass_pair": 8.0},
    "ja": {"theta0": 0.0, "kappa": 10.0, "kappa_digit": 10.0, "kappa_han_kana": 5.0, "kappa_run": 10.0, "runs": 1,
           "autonomy": 0.0, "weight": 8.0, "theta": -16.0, "passes": 1, "pass_weight": 4.0, "pass_theta": -16.0,
           "pass_mix": 1.0},
}
SCORERS = [Scorer.branching, Scorer.adaptation, Scorer.poisson, Scorer.freq]




def table(report: WhitespaceReport, docs: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """Rows per scorer; `docs` restricts the pooled counts to these evaluation documents (numbers)."""
    rows = []
    for r in report.results:
        per = [r.per_document[k] for k in docs] if docs is not None else r.per_document
        b = sum((d["boundary"] for d in per[1:]), per[0]["boundary"])
        w = sum((d["word"] for d in per[1:]), per[0]["word"])
        rows.append({"scorer": r.scorer, "boundary_p": b.precision, "boundary_r": b.recall, "boundary_f1": b.f1,
                     "word_p": w.precision, "word_r": w.recall, "word_f1": w.f1, "documents": len(per)})
    return rows


def paired(folder_a: Path, folder_b: Path, a: str, b: str, keep: set[str] | None = None, tag_a: str = "",
           tag_b: str = "") -> list[dict[str, Any]]:
    """Sign test and Wilcoxon over documents (only those named in `keep`, if given): per-document
    boundary-decision error rates of scorer a (results in folder_a) vs scorer b (folder_b)."""
    ra, rb = (read_records(folder / f"{name}.jsonl") for folder, name in ((folder_a, a), (folder_b, b)))
    if keep is not None:
        ra, rb = [r for r in ra if r.id in keep], [r for r in rb if r.id in keep]
    a, b = f"{a} ({tag_a})" if tag_a else a, f"{b} ({tag_b})" if tag_b else b
    data = pair_records(ra, rb, a, b)
    rows = compare(data, ["sign", "wilcoxon"])
    return [{"A": a, "B": b, "test": r["test"], "n": r["n"], "p_value": r["p_value"], "better": r["better"],
             "A_wins": int((data.a < data.b).sum()), "B_wins": int((data.b < data.a).sum()),
             "mean_error_rate_A": float(data.a.mean()), "mean_error_rate_B": float(data.b.mean())} for r in rows]


def reuters(engine: sa.Engine, out: dict[str, Any]) -> None:
    docs = reuters_documents()
    folder = RESULTS / "segment-reuters"
    t0 = time.perf_counter()
    report = run_whitespace(engine, docs, "bench_seg_reuters", scorers=SCORERS, eval_docs=EVAL_DOCS,
                            results_dir=folder, replace=True)
    seconds = time.perf_counter() - t0
    rows = table(report)
    previous = run_whitespace(engine, docs, "bench_seg_reuters", scorers=[Scorer.branching], eval_docs=EVAL_DOCS,
                              options={"branching": PREVIOUS["reuters"]}, results_dir=folder / "previous",
                              replace=True)
    rows += [{**r, "scorer": "branching (previous defaults)"} for r in table(previous) if r["scorer"] == "branching"]
    print(render(rows, "table", title=f"Reuters alnum: {report.eval_documents} documents scored "
                                      f"({report.characters:,} characters), {report.context_documents} context"))
    tests = paired(folder, folder, "branching", "freq") + paired(folder, folder, "adaptation", "freq") + \
        paired(folder, folder, "branching", "adaptation") + \
        paired(folder, folder / "previous", "branching", "branching", None, "defaults", "previous")
    print(render(tests, "table", title="paired tests over documents (boundary-decision error rate)"))
    out["reuters"] = {"rows": rows, "tests": tests, "seconds": report.seconds, "wall_seconds": seconds,
                      "characters": report.characters, "eval_documents": report.eval_documents,
                      "context_documents": report.context_documents}
    speed(engine, out, report)


def speed(engine: sa.Engine, out: dict[str, Any], report: WhitespaceReport) -> None:
    """Characters/s of segmenting the evaluation documents, per scorer and path, and of the trivial baseline."""
    index = load_index(engine, "bench_seg_reuters")
    texts = [bytes(np.asarray(index.tokens[int(index.doc_start[d]):int(index.doc_start[d] + index.doc_len[d])]))
             .decode() for d in range(EVAL_DOCS)]
    chars = sum(len(t) for t in texts)
    t0 = time.perf_counter()
    for t in texts:
        letter_change_words(t)
    reference = chars / (time.perf_counter() - t0)
    rows = [{"segmenter": "letter-change baseline (reference)", "path": "python", "train_s": 0.0,
             "chars_per_s": reference, "ratio_to_reference": 1.0}]
    spans = [(int(index.doc_start[d]), int(index.doc_start[d] + index.doc_len[d])) for d in range(EVAL_DOCS)]
    for scorer in (Scorer.branching, Scorer.adaptation, Scorer.freq):
        t0 = time.perf_counter()
        seg = Segmenter(index, scorer)
        train = time.perf_counter() - t0
        seg.corpus_spans(spans[:2])  # load the compiled kernels
        seg.segment_lines(texts[:2])
        t0 = time.perf_counter()
        seg.corpus_spans(spans)
        tree_rate = chars / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        seg.segment_lines(texts)
        text_rate = chars / (time.perf_counter() - t0)
        rows.append({"segmenter": scorer.value, "path": "class tree (corpus text)", "train_s": train,
                     "chars_per_s": tree_rate, "ratio_to_reference": tree_rate / reference})
        rows.append({"segmenter": scorer.value, "path": "SA search (new text)", "train_s": train,
                     "chars_per_s": text_rate, "ratio_to_reference": text_rate / reference})
    print(render(rows, "table", title=f"segmenting speed on the {chars:,} evaluation characters"))
    docs = reuters_documents()[:EVAL_DOCS]
    t0 = time.perf_counter()
    small = run_whitespace(engine, docs, "bench_seg_reuters_1m", replace=True)
    small_s = time.perf_counter() - t0
    whole = [{"run": "whitespace, 1,634 documents only (index included)", "seconds": small_s,
              "ratio_to_2_minutes": small_s / 120},
             {"run": "whitespace, 19,043 documents, 4 scorers (index included)",
              "seconds": out["reuters"]["wall_seconds"], "ratio_to_2_minutes": out["reuters"]["wall_seconds"] / 120}]
    print(render(whole, "table", title="whole whitespace runs"))
    print(render(table(small), "table", title="Reuters alnum, the 1,634 documents alone (no context)"))
    out["speed"] = {"rows": rows, "whole_runs": whole, "no_context_rows": table(small),
                    "stages_1m": small.seconds}





def asian(engine: sa.Engine, out: dict[str, Any], key: str, seed: int) -> None:
    """Every scorer with the code's defaults (branching: `model.DEFAULTS["unspaced"]`, PKU's choice), then
    branching with the parameters bench/tune_segment.py chose on this data's devtest split and with the previous
    default (PKU: before the two-character bonus; Japanese: before per-class evidence and runs), all scored on the
    test split only (the whole text is indexed, as in tune_segment.py); paired tests over the test pseudo-documents."""
    spaced, _dev, test, _unit, _cond = documents(key, seed, 300, 0.25)
    raw = pku_gold_lines() if key == "pku" else ud_japanese_lines()
    source = [Document(f"l{n}", line) for n, line in enumerate(raw)]
    folder = RESULTS / f"segment-{key}"
    rows: list[dict[str, Any]] = []
    for label, options, sub in (("code defaults", {}, "default"),
                                (f"tuned on {key} devtest (seed {seed})", TUNED[key], "tuned"),
                                ("previous default (pku: no two-character bonus; ja: class rule of before)",
                                 PREVIOUS[key], "previous")):
        scorers = [Scorer.branching] if options else SCORERS
        report = run_whitespace(engine, source, f"bench_seg_{key}", unit=Unit.char, condition=Condition.raw,
                                lines_per_doc=PER_DOC, scorers=scorers, options={"branching": options},
                                replace=True, results_dir=folder / sub)
        for r in table(report, test):
            if r["scorer"] == "no-boundaries" or (options and r["scorer"] != "branching"):
                continue
            rows.append({"params": label if r["scorer"] == "branching" else "-", **r})
    keep = {spaced[k].name for k in test}
    tests = (paired(folder / "tuned", folder / "previous", "branching", "branching", keep, "tuned", "previous")
             + paired(folder / "tuned", folder / "default", "branching", "freq", keep, "tuned")
             + paired(folder / "default", folder / "default", "adaptation", "freq", keep))
    chars = sum(len(d.text) for k, d in enumerate(spaced) if k in set(test))
    print(render(rows, "table", title=f"{key}: test split (seed {seed}), {len(test)} pseudo-documents of "
                                      f"{PER_DOC} lines, {chars:,} characters; parameters {TUNED[key]}"))
    print(render(tests, "table", title=f"{key}: paired tests over the test pseudo-documents"))
    out[key] = {"split": f"bench/tune_segment.py --data {key} --seed {seed}: test split", "test_documents":
                len(test), "characters": chars, "tuned": TUNED[key], "previous": PREVIOUS[key], "rows": rows,
                "tests": tests}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=os.environ.get("TERMX_DATABASE_URL", DEFAULT_DB))
    parser.add_argument("--only", choices=["reuters", "pku", "ja"], action="append")
    parser.add_argument("--seed", type=int, default=0, help="the split seed of bench/tune_segment.py")
    args = parser.parse_args()
    from termx.storage.db import get_engine

    engine = get_engine(args.db)
    RESULTS.mkdir(exist_ok=True)
    out: dict[str, Any] = {}
    only = set(args.only or ["reuters", "pku", "ja"])
    try:
        if "reuters" in only:
            reuters(engine, out)
        if "pku" in only:
            asian(engine, out, "pku", args.seed)
        if "ja" in only:
            asian(engine, out, "ja", args.seed)
    finally:
        for c in list_corpora(engine):
            if c.name.startswith("bench_seg_"):
                drop_corpus(engine, c.name)
    path = RESULTS / "segment.json"
    path.write_text(json.dumps(out, indent=2, default=float), encoding="utf-8")
    print(f"saved {path}")


if __name__ == "__main__":
    main()
