"""The experiment's run: de-space, index, segment with every scorer (and the baselines), score against the
original spacing, optionally correct with TBL, write result files and store the run."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path

from sqlalchemy.engine import Engine

from termx.defaults import WHITESPACE_SCORERS
from termx.errors import InputError, TermxError
from termx.evaluation.baselines import SEGMENTATION_BASELINES
from termx.experiments.whitespace.documents import Condition, SpacedDocument, spaced_documents
from termx.experiments.whitespace.files import write_records
from termx.experiments.whitespace.report import ScorerResult, WhitespaceReport, score_result
from termx.experiments.whitespace.run_store import store_run
from termx.experiments.whitespace.segment import characters, segment_documents
from termx.experiments.whitespace.tbl import (
    TblSettings,
    check_tbl,
    join_lines,
    split_lines,
    tbl_result,
    tbl_training_sample,
    train_corrector,
)
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.progress import Progress, Silent, Timings
from termx.storage.corpora import drop_corpus, require_new_corpus
from termx.storage.indexer import index_documents
from termx.tbl.learner import Model, rule_keys_fit
from termx.tbl.segmentation import correct_segmentation
from termx.wordbreak import DEFAULT_MAX_LEN, Scorer, Segmenter, scorer_params
from termx.wordbreak.corpus_index import corpus_index

BASELINES = tuple(SEGMENTATION_BASELINES)
"""Trivial baselines scored in every run: no boundary at all; a boundary wherever a letter meets a non-letter."""


def run_whitespace(engine: Engine, docs: Sequence[Document], corpus: str, *, unit: Unit = Unit.byte,
                   scorers: Sequence[Scorer] = WHITESPACE_SCORERS,
                   eval_docs: int | None = None, condition: Condition = Condition.alnum,
                   lines_per_doc: int | None = None,
                   max_len: int = DEFAULT_MAX_LEN, results_dir: str | Path | None = None, replace: bool = False,
                   options: Mapping[str, Mapping[str, float]] | None = None, progress: Progress | None = None,
                   tbl: TblSettings | None = None, shard_size: int | None = None) -> WhitespaceReport:
    """Run the experiment on spaced documents and store it. `options` maps a scorer name to parameter
    overrides; `tbl` adds a TBL-corrected `<scorer>+tbl` result per scorer, its model stored as
    `whitespace-<run_id>-<scorer>`. `shard_size` indexes the de-spaced text as shards of at most that many bytes
    (their statistics summed: the results equal those of one shard)."""
    if unit is Unit.word:
        raise InputError("white space recovery needs `unit` byte or char", params=("unit",))
    if not scorers:
        raise InputError("no scorers given", "e.g. `scorers=adaptation,freq`", ("scorers",))
    options = options or {}
    for scorer in scorers:
        if scorer is Scorer.words:
            raise InputError("the words scorer counts the words of a spaced corpus; this experiment's corpus has "
                             "no spaces", "use it with `termx segment CORPUS --scorer words`", ("scorers",))
        scorer_params(scorer, options.get(scorer.value, {}))  # bad parameters fail before the index is built
    if tbl is not None:
        check_tbl(tbl)
    require_new_corpus(engine, corpus, replace)
    progress = progress or Silent()
    timings = Timings()
    with timings.stage("despace", progress):
        spaced = spaced_documents(docs, condition, lines_per_doc)
    if not spaced:
        raise InputError("no words to recover", "every document is empty under this condition")
    n_eval = len(spaced) if eval_docs is None else eval_docs
    if not 1 <= n_eval <= len(spaced):
        raise InputError(f"`eval_docs` must be between 1 and {len(spaced)} (the documents with words)",
                         params=("eval_docs",))
    train_nos = tbl_training_sample(spaced, n_eval, tbl.train_chars) if tbl is not None else []
    if tbl is not None and not train_nos:
        raise InputError("`tbl` needs documents that are not evaluated to train on",
                         f"set `eval_docs` below {len(spaced)}", ("tbl", "eval_docs"))
    if tbl is not None and not rule_keys_fit(tbl.templates, 2, len(set().union(*(spaced[k].text for k in train_nos)))):
        raise InputError("the TBL templates have too many rules for the training text's distinct characters",
                         "choose a set with shorter character contexts, e.g. `tbl.templates=brill` or chars4",
                         ("tbl.templates",))
    summary = index_documents(engine, corpus, [Document(d.name, d.text) for d in spaced], unit, replace=replace,
                              progress=progress, timings=timings, shard_size=shard_size,
                              params={"whitespace": {"condition": condition.value, "lines_per_doc": lines_per_doc}})
    try:
        with timings.stage("load", progress):
            index = corpus_index(engine, corpus)
        evaluated = spaced[:n_eval]
        results = [_baseline(name, evaluated) for name in BASELINES]
        models: dict[str, tuple[Model, float]] = {}
        for scorer in scorers:
            with timings.stage(f"train {scorer.value}", progress):
                segmenter = Segmenter(index, scorer, max_len, options.get(scorer.value), progress)
            with timings.stage(f"segment {scorer.value}", progress, characters(evaluated)) as advance:
                predicted = segment_documents(segmenter, evaluated, range(n_eval), advance=advance)
            results.append(score_result(scorer.value, "scorer", evaluated, predicted, {"params": segmenter.params}))
            if tbl is None:
                continue
            with timings.stage(f"tbl train {scorer.value}", progress):
                model = train_corrector(segmenter, [spaced[k] for k in train_nos], train_nos, tbl, progress)
            models[scorer.value] = model, timings[f"tbl train {scorer.value}"]
            with timings.stage(f"tbl apply {scorer.value}", progress, len(model.rules)) as advance:
                fixed = iter(split_lines(correct_segmentation(model, [line for lines in predicted
                                                                      for line in join_lines(lines)], advance)))
                corrected = [[next(fixed) for _ in lines] for lines in predicted]  # one pass per rule, all lines
            results.append(score_result(f"{scorer.value}+tbl", "tbl", evaluated, corrected,
                                        {"params": segmenter.params, "rules": len(model.rules)}))
        if results_dir is not None:
            write_records(results, results_dir)
        params = {"condition": condition.value, "unit": unit.value, "scorers": [s.value for s in scorers],
                  "options": {k: dict(v) for k, v in options.items()},
                  "max_len": max_len, "lines_per_doc": lines_per_doc, "eval_docs": n_eval,
                  "documents": len(spaced), "results_dir": str(results_dir) if results_dir is not None else None,
                  "tbl": None if tbl is None else {**tbl.as_dict(), "train_documents": len(train_nos)},
                  "seconds": {k: round(v, 3) for k, v in timings.items()}}
        with timings.stage("store", progress):
            run_id = store_run(engine, corpus, params, results, {s: m for s, (m, _) in models.items()})
            steps = [tbl_result(run_id, scorer, model, seconds, [spaced[k].name for k in train_nos],
                                sum(len(spaced[k].text) for k in train_nos), results)
                     for scorer, (model, seconds) in models.items()]
    except BaseException:  # all or nothing: the index built for this run goes with it
        with contextlib.suppress(TermxError):
            drop_corpus(engine, corpus)
        raise
    return WhitespaceReport(run_id, corpus, condition.value, unit.value, n_eval, len(spaced) - n_eval,
                            sum(len(d.text) for d in evaluated), results,
                            {k: round(v, 3) for k, v in timings.items()}, steps, summary.deleted)


def _baseline(name: str, docs: Sequence[SpacedDocument]) -> ScorerResult:
    """A trivial baseline's result, each line segmented on its own."""
    words = SEGMENTATION_BASELINES[name]
    return score_result(name, "baseline", docs, [[words("".join(w)) for w in d.lines] for d in docs], {})
