"""Measure `termx whitespace --tbl` (issue 7 wired into issue 6) on Reuters in the `alnum` condition.

As in bench_segment.py: the first 1,634 documents of reuters21578.jsonl by newid are scored, the other 17,409
are unlabelled context in the index. With --tbl, each scorer's TBL corrector is trained on its own output for a
seeded sample of context documents (--tbl-train-chars, default 1,000,000 characters) and applied to its output on
the scored documents. Figures: boundary F1 before/after TBL for branching and freq, the sign test and Wilcoxon
over documents (per-document boundary-decision error rate, termx.evaluation), rules learnt, and the TBL training
time next to the reference measured in the same run: the time to train the scorer and segment the scored
documents.

Per-document records go to bench/results/whitespace-tbl-<templates>-min<score>-<budget>/<scorer>.jsonl, so two
runs (e.g. the defaults and `--templates brill --min-score 2`) can be compared with `termx compare`.

Run: .venv/bin/python bench/bench_whitespace_tbl.py [--db URL] [--train-chars 1000000 ...] [--templates SET]
     [--min-score N]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from _data import data_dir

from termx.cli.output import render
from termx.experiments.whitespace import TblSettings, run_whitespace
from termx.index.ingest import Document
from termx.storage.corpora import drop_corpus, list_corpora
from termx.tbl.templates import TEMPLATE_SETS, template_set
from termx.wordbreak import Scorer

DATA = data_dir()
RESULTS = Path(__file__).resolve().parent / "results"
DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/test"
EVAL_DOCS = 1634
CORPUS = "bench_ws_tbl_reuters"


def reuters_documents() -> list[Document]:
    rows = [json.loads(line) for line in (DATA / "en" / "reuters21578.jsonl").open(encoding="utf-8")]
    rows.sort(key=lambda r: r["newid"])
    return [Document(str(r["id"]), r["text"]) for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=os.environ.get("TERMX_DATABASE_URL", DEFAULT_DB))
    parser.add_argument("--train-chars", type=int, nargs="+", default=[TblSettings().train_chars],
                        help="training budgets to measure, one whitespace run each")
    parser.add_argument("--max-rules", type=int, default=None)
    parser.add_argument("--min-score", type=int, default=TblSettings().min_score)
    parser.add_argument("--templates", default=None, choices=list(TEMPLATE_SETS),
                        help="the built-in template set (default: TblSettings' own)")
    args = parser.parse_args()
    from termx.storage.db import get_engine

    engine = get_engine(args.db)
    docs = reuters_documents()
    RESULTS.mkdir(exist_ok=True)
    rows: list[dict[str, Any]] = []
    runs = []
    templates = template_set(args.templates) if args.templates else TblSettings().templates
    label = f"{args.templates or 'default'}-min{args.min_score}"
    try:
        for budget in args.train_chars:
            t0 = time.perf_counter()
            report = run_whitespace(engine, docs, CORPUS, scorers=[Scorer.branching, Scorer.freq],
                                    eval_docs=EVAL_DOCS, results_dir=RESULTS / f"whitespace-tbl-{label}-{budget}",
                                    replace=True, tbl=TblSettings(budget, args.min_score, args.max_rules, templates))
            wall = time.perf_counter() - t0
            s = report.seconds
            for step in report.tbl:
                reference = s[f"train {step.scorer}"] + s[f"segment {step.scorer}"]
                rows.append({"train_chars": step.train_characters, "train_docs": len(step.train_documents),
                             "scorer": step.scorer, "rules": step.rules, "boundary_f1": step.before.f1,
                             "boundary_f1_tbl": step.after.f1, "f1_gain": step.after.f1 - step.before.f1,
                             "errors_ratio": (step.after.gold + step.after.predicted - 2 * step.after.correct)
                             / (step.before.gold + step.before.predicted - 2 * step.before.correct),
                             "tbl_better_docs": step.tests["sign"]["b_better"],
                             "scorer_better_docs": step.tests["sign"]["a_better"],
                             "sign_p": step.tests["sign"]["p_value"], "wilcoxon_p": step.tests["wilcoxon"]["p_value"],
                             "tbl_train_s": step.seconds, "tbl_apply_s": s[f"tbl apply {step.scorer}"],
                             "reference_s": reference, "train_ratio_to_reference": step.seconds / reference})
            runs.append({**report.as_dict(), "wall_seconds": wall})
            print(f"train budget {budget:,}: run {report.run_id}, whole run {wall:.1f} s "
                  f"({report.eval_documents} documents scored, {report.characters:,} characters)", flush=True)
    finally:
        for c in list_corpora(engine):
            if c.name == CORPUS:
                drop_corpus(engine, c.name)
    print(render(rows, "table", title="Reuters alnum, TBL after each scorer: boundary F1, paired tests over "
                                      "documents (boundary-decision error rate), training time vs the "
                                      "scorer's train + segment time (reference)"))
    path = RESULTS / f"whitespace_tbl-{label}.json"
    for run in runs:
        for step in run["tbl"]:
            step["train_documents"] = len(step["train_documents"])
        for scorer in run["scorers"]:
            scorer.pop("documents")
    path.write_text(json.dumps({"rows": rows, "runs": runs}, indent=2, default=float), encoding="utf-8")
    print(f"saved {path}")


if __name__ == "__main__":
    main()
