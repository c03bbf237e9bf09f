"""The slides' white space recovery experiment, end to end: delete the white space of spaced text, index the
de-spaced documents, break them into words with no dictionary, and score against the original spacing.

Conditions: `alnum` lower-cases every white-space token and keeps only its letters and digits (tokens left
empty are dropped), so no punctuation hints remain; `raw` deletes only the white space. The first `eval_docs`
documents are scored (boundaries inside a scored line; words SIGHAN style, both ends right); every document
is unlabelled context in the index. Pseudo-documents: `lines_per_doc` consecutive lines form one document
(df_k needs documents) while each line is still segmented and scored on its own.

The TBL step (`tbl=TblSettings()`, `termx whitespace --tbl`): per scorer, Brill's learner is trained on the
scorer's output for a deterministic sample of the context documents (their spacing is free supervision; never an
evaluated document), and the rules, applied to the scorer's output on the evaluation documents, give an extra
result `<scorer>+tbl` (kind "tbl") with paired tests against the scorer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from sqlalchemy.engine import Engine

from termx.errors import CorpusExists, InputError
from termx.evaluation.inputs import SubsetRecord, pair_records
from termx.evaluation.metrics import PRF, micro_average, segmentation_prf, segmentation_records
from termx.evaluation.report import compare
from termx.index.indexer import index_documents
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.progress import Progress, Silent, Timings
from termx.storage.loaded import load_index
from termx.storage.store import get_corpus, list_corpora
from termx.tbl.learner import Model
from termx.tbl.segmentation import correct_segmentation, train_segmentation_corrector
from termx.tbl.store import save_model
from termx.tbl.templates import DEFAULT_TEMPLATES, Template
from termx.wordbreak import DEFAULT_MAX_LEN, Scorer, Segmenter, scorer_params

BASELINES = ("no-boundaries", "letter-change")
"""Trivial baselines: no boundary at all; a boundary wherever a letter meets a non-letter."""

TBL_TESTS = ("sign", "wilcoxon")
"""The paired tests of a scorer against its TBL-corrected output, over evaluation documents."""
TBL_SEED = 0
"""Seed of the permutation that orders the context documents for the TBL training sample."""


class Condition(str, Enum):
    """What is deleted from the spaced text."""

    alnum = "alnum"
    raw = "raw"


def gold_words(line: str, condition: Condition) -> list[str]:
    """The gold words of a spaced line under `condition`."""
    tokens = line.split()
    if condition is Condition.alnum:
        tokens = ["".join(ch for ch in t.lower() if ch.isalnum()) for t in tokens]
    return [t for t in tokens if t]


@dataclass
class SpacedDocument:
    """A document's gold words, line by line (one line unless it is a pseudo-document of several lines)."""

    name: str
    lines: list[list[str]]

    @property
    def text(self) -> str:
        """The de-spaced text that gets indexed."""
        return "".join("".join(words) for words in self.lines)


def spaced_documents(docs: Sequence[Document], condition: Condition,
                     lines_per_doc: int | None = None) -> list[SpacedDocument]:
    """Gold words of every document; with `lines_per_doc`, each input document is one line and that many
    consecutive lines form a pseudo-document. Documents (or lines) without words are dropped."""
    if lines_per_doc is not None and lines_per_doc < 1:
        raise InputError("--lines-per-doc must be at least 1")
    if lines_per_doc is None:
        out = [SpacedDocument(d.name, [gold_words(d.text, condition)]) for d in docs]
        return [d for d in out if d.lines[0]]
    lines = [(d.name, w) for d in docs if (w := gold_words(d.text, condition))]
    return [SpacedDocument(lines[k][0], [w for _, w in lines[k:k + lines_per_doc]])
            for k in range(0, len(lines), lines_per_doc)]


@dataclass
class ScorerResult:
    """One scorer's (or baseline's) scores: overall (pooled counts) and per evaluation document."""

    scorer: str
    kind: str                        # "scorer" or "baseline"
    per_document: list[dict[str, PRF]]
    names: list[str]
    records: list[dict[str, Any]]    # `termx compare` JSON lines: boundary-decision errors per document
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def boundary(self) -> PRF:
        """Boundary counts pooled over documents."""
        return micro_average([d["boundary"] for d in self.per_document])

    @property
    def word(self) -> PRF:
        """Word counts pooled over documents."""
        return micro_average([d["word"] for d in self.per_document])

    def as_dict(self) -> dict[str, Any]:
        """The JSON object of one scorer."""
        return {"scorer": self.scorer, "kind": self.kind, **self.params, "boundary": self.boundary.as_dict(),
                "word": self.word.as_dict(),
                "documents": [{"id": n, "boundary": d["boundary"].as_dict(), "word": d["word"].as_dict()}
                              for n, d in zip(self.names, self.per_document, strict=True)]}

    def row(self) -> dict[str, Any]:
        """The table row of one scorer."""
        b, w = self.boundary, self.word
        return {"scorer": self.scorer, "kind": self.kind, "boundary_p": b.precision, "boundary_r": b.recall,
                "boundary_f1": b.f1, "word_p": w.precision, "word_r": w.recall, "word_f1": w.f1,
                "documents": len(self.per_document)}


@dataclass(frozen=True)
class TblSettings:
    """The TBL step: the character budget of each scorer's training sample and the learner's knobs."""

    train_chars: int = 300_000
    min_score: int = 2
    max_rules: int | None = None
    templates: tuple[Template, ...] = DEFAULT_TEMPLATES

    def as_dict(self) -> dict[str, Any]:
        """The settings as stored with the run (templates by name)."""
        return {"train_chars": self.train_chars, "min_score": self.min_score, "max_rules": self.max_rules,
                "templates": [t.name for t in self.templates]}


@dataclass
class TblResult:
    """One scorer's TBL step: the stored model, its training sample, boundary scores before and after, and the
    sign test and Wilcoxon over evaluation documents (A = the scorer, B = `<scorer>+tbl`)."""

    scorer: str
    model: str
    rules: int
    train_documents: list[str]
    train_characters: int
    training_accuracy: tuple[float, float]
    before: PRF
    after: PRF
    tests: dict[str, dict[str, Any]]
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        """The JSON object of one scorer's TBL step."""
        return {"scorer": self.scorer, "corrected": f"{self.scorer}+tbl", "model": self.model, "rules": self.rules,
                "train_documents": self.train_documents, "train_characters": self.train_characters,
                "training_accuracy": {"before": self.training_accuracy[0], "after": self.training_accuracy[1]},
                "before": self.before.as_dict(), "after": self.after.as_dict(),
                "measure": "boundary-decision error rate per document (errors / total); A = scorer, B = scorer+tbl",
                **self.tests, "seconds": self.seconds}

    def row(self) -> dict[str, Any]:
        """The table row of one scorer's TBL step."""
        sign, wilcoxon = self.tests["sign"], self.tests["wilcoxon"]
        return {"scorer": self.scorer, "rules": self.rules, "train_docs": len(self.train_documents),
                "train_chars": self.train_characters, "boundary_f1": self.before.f1,
                "boundary_f1_tbl": self.after.f1, "tbl_better_docs": sign["b_better"],
                "scorer_better_docs": sign["a_better"], "sign_p": sign["p_value"], "wilcoxon_p": wilcoxon["p_value"],
                "better": sign["better"] if sign["better"] == wilcoxon["better"] else None,
                "train_s": self.seconds}


@dataclass
class WhitespaceReport:
    """A whole run: where it is stored, what was scored, every scorer's results and the TBL steps (if asked)."""

    run_id: int
    corpus: str
    condition: str
    unit: str
    eval_documents: int
    context_documents: int
    characters: int
    results: list[ScorerResult]
    seconds: dict[str, float]
    tbl: list[TblResult] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The JSON report (`termx whitespace --format json`)."""
        return {"run_id": self.run_id, "corpus": self.corpus, "condition": self.condition, "unit": self.unit,
                "eval_documents": self.eval_documents, "context_documents": self.context_documents,
                "characters": self.characters, "seconds": self.seconds,
                "scorers": [r.as_dict() for r in self.results], "tbl": [t.as_dict() for t in self.tbl]}


def run_whitespace(engine: Engine, docs: Sequence[Document], corpus: str, *, unit: Unit = Unit.byte,
                   scorers: Sequence[Scorer] = (Scorer.branching, Scorer.adaptation, Scorer.freq),
                   eval_docs: int | None = None, condition: Condition = Condition.alnum,
                   lines_per_doc: int | None = None,
                   max_len: int = DEFAULT_MAX_LEN, results_dir: str | Path | None = None, replace: bool = False,
                   options: Mapping[str, Mapping[str, float]] | None = None, progress: Progress | None = None,
                   tbl: TblSettings | None = None) -> WhitespaceReport:
    """Run the experiment on spaced documents and store it. `options` maps a scorer name to parameter
    overrides; `tbl` adds a TBL-corrected `<scorer>+tbl` result per scorer, its model stored as
    `whitespace-<run_id>-<scorer>`."""
    if unit is Unit.word:
        raise InputError("white space recovery needs --unit byte or char")
    if not scorers:
        raise InputError("no scorers given", "e.g. --scorers adaptation,freq")
    options = options or {}
    for scorer in scorers:
        scorer_params(scorer, options.get(scorer.value, {}))  # bad parameters fail before the index is built
    if tbl is not None:
        _check_tbl(tbl)
    if not replace and any(c.name == corpus for c in list_corpora(engine)):
        raise CorpusExists(f"corpus {corpus!r} already exists", "use --replace to rebuild it, or termx drop")
    progress = progress or Silent()
    timings = Timings()
    with timings.stage("despace", progress):
        spaced = spaced_documents(docs, condition, lines_per_doc)
    if not spaced:
        raise InputError("no words to recover", "every document is empty under this condition")
    n_eval = len(spaced) if eval_docs is None else eval_docs
    if not 1 <= n_eval <= len(spaced):
        raise InputError(f"--eval-docs must be between 1 and {len(spaced)} (the documents with words)")
    train_nos = tbl_training_sample(spaced, n_eval, tbl.train_chars) if tbl is not None else []
    if tbl is not None and not train_nos:
        raise InputError("--tbl needs documents that are not evaluated to train on",
                         f"set --eval-docs below {len(spaced)}")
    index_documents(engine, corpus, [Document(d.name, d.text) for d in spaced], unit, replace=replace,
                    progress=progress, timings=timings,
                    params={"whitespace": {"condition": condition.value, "lines_per_doc": lines_per_doc}})
    with timings.stage("load", progress):
        index = load_index(engine, corpus, "termx whitespace")
    evaluated = spaced[:n_eval]
    results = [_baseline(name, evaluated) for name in BASELINES]
    models: dict[str, tuple[Model, float]] = {}
    for scorer in scorers:
        with timings.stage(f"train {scorer.value}", progress):
            segmenter = Segmenter(index, scorer, max_len, options.get(scorer.value), progress)
        with timings.stage(f"segment {scorer.value}", progress):
            predicted = _segment_documents(segmenter, evaluated, range(n_eval))
        results.append(_result(scorer.value, "scorer", evaluated, predicted, {"params": segmenter.params}))
        if tbl is None:
            continue
        with timings.stage(f"tbl train {scorer.value}", progress):
            model = _train_corrector(segmenter, [spaced[k] for k in train_nos], train_nos, tbl)
        models[scorer.value] = model, timings[f"tbl train {scorer.value}"]
        with timings.stage(f"tbl apply {scorer.value}", progress):
            corrected = [_split_lines(correct_segmentation(model, _join_lines(lines))) for lines in predicted]
        results.append(_result(f"{scorer.value}+tbl", "tbl", evaluated, corrected,
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
        run_id = store_run(engine, corpus, params, results)
        steps = [_tbl_result(run_id, engine, scorer, model, seconds, [spaced[k].name for k in train_nos],
                             sum(len(spaced[k].text) for k in train_nos), results)
                 for scorer, (model, seconds) in models.items()]
    return WhitespaceReport(run_id, corpus, condition.value, unit.value, n_eval, len(spaced) - n_eval,
                            sum(len(d.text) for d in evaluated), results,
                            {k: round(v, 3) for k, v in timings.items()}, steps)


def _check_tbl(tbl: TblSettings) -> None:
    """Reject TBL settings the learner cannot use, before anything is indexed."""
    if tbl.train_chars < 1:
        raise InputError("--tbl-train-chars must be at least 1")
    if tbl.min_score < 1:
        raise InputError("--tbl-min-score must be at least 1")
    if tbl.max_rules is not None and tbl.max_rules < 1:
        raise InputError("--tbl-max-rules must be at least 1")


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


def _join_lines(lines: Sequence[Sequence[str]]) -> list[str]:
    return [" ".join(words) for words in lines]


def _split_lines(lines: Sequence[str]) -> list[list[str]]:
    return [line.split(" ") for line in lines]


def _train_corrector(segmenter: Segmenter, docs: Sequence[SpacedDocument], doc_nos: Sequence[int],
                     tbl: TblSettings) -> Model:
    """Learn rules that turn the scorer's output on training documents into their original spacing."""
    predicted = _segment_documents(segmenter, docs, doc_nos)
    gold = [line for d in docs for line in _join_lines(d.lines)]
    pred = [line for lines in predicted for line in _join_lines(lines)]
    return train_segmentation_corrector(gold, pred, templates=tbl.templates, min_score=tbl.min_score,
                                        max_rules=tbl.max_rules)


def _subset_records(result: ScorerResult) -> list[SubsetRecord]:
    return [SubsetRecord(r["id"], n, errors=r["errors"], total=r["total"], outcomes=tuple(r["outcomes"]))
            for n, r in enumerate(result.records, 1)]


def _tbl_result(run_id: int, engine: Engine, scorer: str, model: Model, seconds: float, train_names: list[str],
                train_chars: int, results: Sequence[ScorerResult]) -> TblResult:
    """Store a scorer's model under the run's name for it and test the scorer against its corrected output."""
    name = f"whitespace-{run_id}-{scorer}"
    save_model(engine, name, model, replace=True)
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


def _segment_documents(segmenter: Segmenter, docs: Sequence[SpacedDocument],
                       doc_nos: Sequence[int]) -> list[list[list[str]]]:
    """Predicted words of each line of the corpus documents numbered `doc_nos` (the class-tree path: the text
    is in the corpus), all lines in one batch."""
    index = segmenter.index
    spans = []
    for d, doc in zip(doc_nos, docs, strict=True):
        start = int(index.doc_start[d])
        for words in doc.lines:
            text = "".join(words)
            size = len(text.encode("utf-8")) if index.unit is Unit.byte else len(text)
            spans.append((start, start + size))
            start += size
    found = iter(zip(spans, segmenter.corpus_spans(spans), strict=True))
    out = []
    for doc in docs:
        lines = []
        for _ in doc.lines:
            (start, stop), cuts = next(found)
            edges = [0, *cuts.tolist(), stop - start]
            lines.append([index.decode(index.tokens[start + a:start + b]) for a, b in zip(edges, edges[1:],
                                                                                          strict=False)])
        out.append(lines)
    return out


def letter_change_words(text: str) -> list[str]:
    """The letter-change baseline: a boundary wherever a letter meets a non-letter."""
    if not text:
        return []
    words, begin = [], 0
    for k in range(1, len(text)):
        if text[k].isalpha() != text[k - 1].isalpha():
            words.append(text[begin:k])
            begin = k
    words.append(text[begin:])
    return words


def _baseline(name: str, docs: Sequence[SpacedDocument]) -> ScorerResult:
    lines = [[["".join(w)] if name == "no-boundaries" else letter_change_words("".join(w)) for w in d.lines]
             for d in docs]
    return _result(name, "baseline", docs, lines, {})


def _result(name: str, kind: str, docs: Sequence[SpacedDocument], predicted: Sequence[Sequence[Sequence[str]]],
            params: dict[str, Any]) -> ScorerResult:
    """Pool each document's line scores; the compare record counts wrong boundary decisions over its lines."""
    per_doc = []
    for doc, lines in zip(docs, predicted, strict=True):
        b, w = PRF(0, 0, 0), PRF(0, 0, 0)
        for gold, pred in zip(doc.lines, lines, strict=True):
            s = segmentation_prf(gold, pred)
            b, w = b + s["boundary"], w + s["word"]
        per_doc.append({"boundary": b, "word": w})
    names = [d.name for d in docs]
    gold_flat = [[w for line in d.lines for w in line] for d in docs]
    pred_flat = [[w for line in lines for w in line] for lines in predicted]
    records = segmentation_records(names, gold_flat, pred_flat)
    return ScorerResult(name, kind, per_doc, names, records, params)


def write_records(results: Sequence[ScorerResult], results_dir: str | Path) -> list[Path]:
    """One JSON-lines file per scorer (`<scorer>.jsonl`) in the evaluation toolkit's record format."""
    folder = Path(results_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {folder}: {exc.strerror}") from None
    paths = []
    for r in results:
        path = folder / f"{r.scorer}.jsonl"
        path.write_text("".join(json.dumps(rec) + "\n" for rec in r.records), encoding="utf-8")
        paths.append(path)
    return paths


def store_run(engine: Engine, corpus: str, params: dict[str, Any], results: Sequence[ScorerResult]) -> int:
    """Insert the run and COPY its per-document counts (termx.seg_run, termx.seg_score); returns the run id."""
    corpus_id = get_corpus(engine, corpus).id
    raw = engine.raw_connection()
    try:
        conn: psycopg.Connection = raw.driver_connection  # type: ignore[assignment]
        with conn.transaction():
            run_id = conn.execute("INSERT INTO termx.seg_run (corpus_id, params) VALUES (%s, %s) RETURNING id",
                                  (corpus_id, json.dumps(params))).fetchone()[0]  # type: ignore[index]
            with conn.cursor().copy("COPY termx.seg_score (run_id, scorer, kind, doc_no, doc_name, b_tp, b_fp,"
                                    " b_fn, w_tp, w_fp, w_fn) FROM STDIN") as copy:
                for r in results:
                    for n, (name, d) in enumerate(zip(r.names, r.per_document, strict=True)):
                        b, w = d["boundary"], d["word"]
                        copy.write_row((run_id, r.scorer, r.kind, n, name, b.correct, b.predicted - b.correct,
                                        b.gold - b.correct, w.correct, w.predicted - w.correct, w.gold - w.correct))
        raw.commit()
    finally:
        raw.close()
    return int(run_id)


def stored_scores(engine: Engine, run_id: int) -> list[dict[str, Any]]:
    """Overall scores of a stored run, per scorer, from sql/segment_scores.sql."""
    from termx.storage.sqlfiles import run_sql

    return run_sql(engine, "segment_scores", {"run": run_id})
