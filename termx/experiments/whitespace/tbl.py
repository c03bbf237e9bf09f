"""The TBL step: per scorer, Brill's learner trained on the scorer's output for a sample of the context
documents, applied to its output on the evaluation documents, and tested against the scorer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from termx.errors import InputError
from termx.evaluation.inputs import SubsetRecord, pair_records
from termx.evaluation.report import compare
from termx.experiments.whitespace.documents import SpacedDocument
from termx.experiments.whitespace.report import ScorerResult, TblResult
from termx.experiments.whitespace.segment import characters, segment_documents
from termx.progress import Progress, Silent
from termx.tbl.learner import Model
from termx.tbl.segmentation import train_segmentation_corrector
from termx.tbl.templates import TEMPLATE_SETS, Template
from termx.wordbreak import Segmenter

TBL_TESTS = ("sign", "wilcoxon")
"""The paired tests of a scorer against its TBL-corrected output, over evaluation documents."""
TBL_SEED = 0
"""Seed of the permutation that orders the context documents for the TBL training sample."""


@dataclass(frozen=True)
class TblSettings:
    """The TBL step: the character budget of each scorer's training sample and the learner's knobs. The defaults
    are what `bench/tune_whitespace_tbl.py --seed 0` chooses on development documents (never scored ones)."""

    train_chars: int = 1_000_000
    min_score: int = 2
    max_rules: int | None = None
    templates: tuple[Template, ...] = TEMPLATE_SETS["chars8_tags"]

    def as_dict(self) -> dict[str, Any]:
        """The settings as stored with the run (templates by name)."""
        return {"train_chars": self.train_chars, "min_score": self.min_score, "max_rules": self.max_rules,
                "templates": [t.name for t in self.templates]}



def check_tbl(tbl: TblSettings) -> None:
    """Reject TBL settings the learner cannot use, before anything is indexed."""
    for name, value in (("train_chars", tbl.train_chars), ("min_score", tbl.min_score),
                        ("max_rules", tbl.max_rules)):
        if value is not None and value < 1:
            raise InputError(f"`tbl.{name}` must be at least 1", params=(f"tbl.{name}",))


def tbl_training_sample(spaced: Sequence[SpacedDocument], n_eval: int, train_chars: int) -> list[int]:
    """Numbers of the context documents (n_eval and after) that train the TBL correctors: a fixed-seed
    permutation of them taken until `train_chars` characters are reached (the last one may overshoot),
    returned in corpus order. Deterministic, and spread over the whole context rather than its first part."""
    order = np.random.default_rng(TBL_SEED).permutation(len(spaced) - n_eval) + n_eval
    chosen, total = [], 0
    for k in order.tolist():
        if total >= train_chars:
            break
        chosen.append(k)
        total += len(spaced[k].text)
    return sorted(chosen)


def join_lines(lines: Sequence[Sequence[str]]) -> list[str]:
    """Lines of words as the learner's spaced lines."""
    return [" ".join(words) for words in lines]


def split_lines(lines: Sequence[str]) -> list[list[str]]:
    """The learner's spaced lines back as lines of words."""
    return [line.split(" ") for line in lines]


def train_corrector(segmenter: Segmenter, docs: Sequence[SpacedDocument], doc_nos: Sequence[int],
                    tbl: TblSettings, progress: Progress | None = None) -> Model:
    """Learn rules that turn the scorer's output on training documents into their original spacing (stages
    reported to `progress`: segmenting the training text, then the learner's)."""
    progress = progress or Silent()
    progress.start("tbl: segment training text", characters(docs))
    predicted = segment_documents(segmenter, docs, doc_nos, advance=progress.advance)
    progress.finish()
    gold = [line for d in docs for line in join_lines(d.lines)]
    pred = [line for lines in predicted for line in join_lines(lines)]
    return train_segmentation_corrector(gold, pred, templates=tbl.templates, min_score=tbl.min_score,
                                        max_rules=tbl.max_rules, progress=progress)


def _subset_records(result: ScorerResult) -> list[SubsetRecord]:
    """A result's compare records as the paired tests read them."""
    return [SubsetRecord(r["id"], n, errors=r["errors"], total=r["total"], outcomes=tuple(r["outcomes"]))
            for n, r in enumerate(result.records, 1)]


def model_name(run_id: int, scorer: str) -> str:
    """The name a run's TBL model for `scorer` is stored under (termx.tbl_model, with the run's corpus)."""
    return f"whitespace-{run_id}-{scorer}"


def tbl_result(run_id: int, scorer: str, model: Model, seconds: float, train_names: list[str],
               train_chars: int, results: Sequence[ScorerResult]) -> TblResult:
    """Test the scorer against its TBL-corrected output (the model is stored with the run, `store_run`)."""
    name = model_name(run_id, scorer)
    by_name = {r.scorer: r for r in results}
    before, after = by_name[scorer], by_name[f"{scorer}+tbl"]
    data = pair_records(_subset_records(before), _subset_records(after), scorer, after.scorer)
    tests = {}
    for row in compare(data, TBL_TESTS):
        better = {"A": scorer, "B": after.scorer, None: None}
        tests[row["test"]] = {"p_value": row["p_value"], "n": row["n"], "ties": row["ties"],
                              "statistic": row["statistic"], "better": better[row["better"]],
                              "favours": better[row["favours"]], "a_better": row["details"].get("a_better"),
                              "b_better": row["details"].get("b_better"), "note": row["note"],
                              "summary": row["summary"]}
    return TblResult(scorer, name, len(model.rules), train_names, train_chars,
                     (model.accuracy_before, model.accuracy_after), before.boundary, after.boundary, tests,
                     round(seconds, 3))

