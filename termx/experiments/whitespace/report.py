"""What a run reports: every scorer's scores (pooled and per document), the TBL steps, and the whole run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from termx.evaluation.metrics import PRF, micro_average, segmentation_prf, segmentation_records
from termx.experiments.whitespace.documents import SpacedDocument


def prf_columns(prefix: str, prf: PRF) -> dict[str, float]:
    """The table columns <prefix>_p, <prefix>_r, <prefix>_f1 of one set of counts."""
    return {f"{prefix}_p": prf.precision, f"{prefix}_r": prf.recall, f"{prefix}_f1": prf.f1}


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
        return {"scorer": self.scorer, "kind": self.kind, **prf_columns("boundary", self.boundary),
                **prf_columns("word", self.word), "documents": len(self.per_document)}



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
    deleted: dict[str, int] = field(default_factory=dict)  # what `replace` removed with the corpus's old version

    def as_dict(self) -> dict[str, Any]:
        """The JSON report (`termx whitespace --format json`)."""
        return {"run_id": self.run_id, "corpus": self.corpus, "condition": self.condition, "unit": self.unit,
                "eval_documents": self.eval_documents, "context_documents": self.context_documents,
                "characters": self.characters, "seconds": self.seconds,
                "scorers": [r.as_dict() for r in self.results], "tbl": [t.as_dict() for t in self.tbl],
                "deleted": self.deleted}


def score_result(name: str, kind: str, docs: Sequence[SpacedDocument],
                 predicted: Sequence[Sequence[Sequence[str]]], params: dict[str, Any]) -> ScorerResult:
    """Score predicted words against the documents' gold words: each document's line scores pooled; the
    compare record counts wrong boundary decisions over its lines."""
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

