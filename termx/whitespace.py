"""The slides' white space recovery experiment, end to end: delete the white space of spaced text, index the
de-spaced documents, break them into words with no dictionary, and score against the original spacing.

Conditions: `alnum` lower-cases every white-space token and keeps only its letters and digits (tokens left
empty are dropped), so no punctuation hints remain; `raw` deletes only the white space. The first `eval_docs`
documents are scored (boundaries inside a scored line; words SIGHAN style, both ends right); every document
is unlabelled context in the index. Pseudo-documents: `lines_per_doc` consecutive lines form one document
(df_k needs documents) while each line is still segmented and scored on its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy.engine import Engine

from termx.errors import CorpusExists, InputError
from termx.evaluation.metrics import PRF, micro_average, segmentation_prf, segmentation_records
from termx.indexer import index_documents
from termx.ingest import Document
from termx.loaded import load_index
from termx.progress import Progress, Silent, Timings
from termx.store import get_corpus, list_corpora
from termx.units import Unit
from termx.wordbreak import DEFAULT_MAX_LEN, Scorer, Segmenter, scorer_params

BASELINES = ("no-boundaries", "letter-change")
"""Trivial baselines: no boundary at all; a boundary wherever a letter meets a non-letter."""

Corrector = Callable[[list[list[str]]], list[list[str]]]
"""A post-correction of predicted lines (lists of words), e.g. a TBL model: applied to every scorer's output."""


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


@dataclass
class WhitespaceReport:
    """A whole run: where it is stored, what was scored, and every scorer's results."""

    run_id: int
    corpus: str
    condition: str
    unit: str
    eval_documents: int
    context_documents: int
    characters: int
    results: list[ScorerResult]
    seconds: dict[str, float]

    def as_dict(self) -> dict[str, Any]:
        """The JSON report (`termx whitespace --format json`)."""
        return {"run_id": self.run_id, "corpus": self.corpus, "condition": self.condition, "unit": self.unit,
                "eval_documents": self.eval_documents, "context_documents": self.context_documents,
                "characters": self.characters, "seconds": self.seconds,
                "scorers": [r.as_dict() for r in self.results]}


def run_whitespace(engine: Engine, docs: Sequence[Document], corpus: str, *, unit: Unit = Unit.byte,
                   scorers: Sequence[Scorer] = (Scorer.branching, Scorer.adaptation, Scorer.freq),
                   eval_docs: int | None = None, condition: Condition = Condition.alnum,
                   lines_per_doc: int | None = None,
                   max_len: int = DEFAULT_MAX_LEN, results_dir: str | Path | None = None, replace: bool = False,
                   options: Mapping[str, Mapping[str, float]] | None = None, progress: Progress | None = None,
                   correct: Corrector | None = None) -> WhitespaceReport:
    """Run the experiment on spaced documents and store it. `options` maps a scorer name to parameter
    overrides; `correct` post-edits every scorer's output."""
    if unit is Unit.word:
        raise InputError("white space recovery needs --unit byte or char")
    if not scorers:
        raise InputError("no scorers given", "e.g. --scorers adaptation,freq")
    options = options or {}
    for scorer in scorers:
        scorer_params(scorer, options.get(scorer.value, {}))  # bad parameters fail before the index is built
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
    index_documents(engine, corpus, [Document(d.name, d.text) for d in spaced], unit, replace=replace,
                    progress=progress, timings=timings,
                    params={"whitespace": {"condition": condition.value, "lines_per_doc": lines_per_doc}})
    with timings.stage("load", progress):
        index = load_index(engine, corpus)
    evaluated = spaced[:n_eval]
    results = [_baseline(name, evaluated) for name in BASELINES]
    for scorer in scorers:
        with timings.stage(f"train {scorer.value}", progress):
            segmenter = Segmenter(index, scorer, max_len, options.get(scorer.value), progress)
        with timings.stage(f"segment {scorer.value}", progress):
            predicted = _segment_documents(segmenter, evaluated)
            if correct is not None:
                predicted = [correct(lines) for lines in predicted]
        results.append(_result(scorer.value, "scorer", evaluated, predicted, {"params": segmenter.params}))
    if results_dir is not None:
        write_records(results, results_dir)
    params = {"condition": condition.value, "unit": unit.value, "scorers": [s.value for s in scorers],
              "options": {k: dict(v) for k, v in options.items()},
              "max_len": max_len, "lines_per_doc": lines_per_doc, "eval_docs": n_eval,
              "documents": len(spaced), "results_dir": str(results_dir) if results_dir is not None else None,
              "corrected": correct is not None, "seconds": {k: round(v, 3) for k, v in timings.items()}}
    with timings.stage("store", progress):
        run_id = store_run(engine, corpus, params, results)
    return WhitespaceReport(run_id, corpus, condition.value, unit.value, n_eval, len(spaced) - n_eval,
                            sum(len(d.text) for d in evaluated), results,
                            {k: round(v, 3) for k, v in timings.items()})


def _segment_documents(segmenter: Segmenter, docs: Sequence[SpacedDocument]) -> list[list[list[str]]]:
    """Predicted words of each line of corpus documents 0..len(docs)-1 (the class-tree path: the text is in the
    corpus), all lines in one batch."""
    index = segmenter.index
    spans = []
    for d, doc in enumerate(docs):
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
    from termx.sqlfiles import run_sql

    return run_sql(engine, "segment_scores", {"run": run_id})
