"""Evaluation metrics: segmentation boundary and word P/R/F1 (SIGHAN bakeoff style), accuracy, per-document
error counts, micro and macro averages."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from termx.errors import EvaluationError


@dataclass(frozen=True)
class PRF:
    """Counts behind precision/recall/F1. With nothing to find and nothing found all three are 1.0; with a zero
    denominator otherwise they are 0.0 (never NaN)."""

    correct: int
    gold: int
    predicted: int

    @property
    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else float(self.gold == 0)

    @property
    def recall(self) -> float:
        return self.correct / self.gold if self.gold else float(self.predicted == 0)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def __add__(self, other: PRF) -> PRF:
        return PRF(self.correct + other.correct, self.gold + other.gold, self.predicted + other.predicted)

    def as_dict(self) -> dict[str, Any]:
        """Counts and the three ratios, the shape every command prints."""
        return {"gold": self.gold, "predicted": self.predicted, "correct": self.correct,
                "precision": self.precision, "recall": self.recall, "f1": self.f1}


def word_spans(words: Sequence[str]) -> list[tuple[int, int]]:
    """(start, end) character offsets of each word in the de-spaced text; empty words are ignored."""
    spans, pos = [], 0
    for w in words:
        if w:
            spans.append((pos, pos + len(w)))
            pos += len(w)
    return spans


def boundaries(words: Sequence[str]) -> set[int]:
    """Offsets of the word boundaries inside the de-spaced text (0 and the text's end are not counted)."""
    return {end for _, end in word_spans(words)[:-1]}


def words_from_boundaries(text: str, cuts: Collection[int]) -> list[str]:
    """The words a set of interior boundary offsets cuts `text` into."""
    if any(not 0 < c < len(text) for c in cuts):
        raise EvaluationError(f"boundary offsets must lie strictly inside the text (1..{len(text) - 1})")
    edges = [0, *sorted(set(cuts)), len(text)]
    return [text[a:b] for a, b in zip(edges, edges[1:], strict=False) if b > a]


def boundary_prf(gold: Collection[int], predicted: Collection[int]) -> PRF:
    """Boundary precision/recall/F1 from two sets of interior boundary offsets of the same text."""
    g, p = set(gold), set(predicted)
    return PRF(len(g & p), len(g), len(p))


def _same_text(gold: Sequence[str], predicted: Sequence[str]) -> None:
    g, p = "".join(gold), "".join(predicted)
    if g != p:
        at = next((i for i, (a, b) in enumerate(zip(g, p, strict=False)) if a != b), min(len(g), len(p)))
        raise EvaluationError(f"gold and predicted words spell different text (first difference at character {at})",
                              "both must segment the same string")


def word_prf(gold: Sequence[str], predicted: Sequence[str]) -> PRF:
    """Word precision/recall/F1: a predicted word is correct when both its ends match a gold word's."""
    _same_text(gold, predicted)
    g, p = word_spans(gold), word_spans(predicted)
    return PRF(len(set(g) & set(p)), len(g), len(p))


def segmentation_prf(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, PRF]:
    """Word and boundary scores of one segmentation of the same string."""
    return {"word": word_prf(gold, predicted), "boundary": boundary_prf(boundaries(gold), boundaries(predicted))}


def boundary_outcomes(gold: Sequence[str], predicted: Sequence[str]) -> list[int]:
    """1/0 per position between two characters: is the boundary decision (cut or no cut) right? The items that
    McNemar and MAPSSWE compare for segmenters."""
    _same_text(gold, predicted)
    g, p = boundaries(gold), boundaries(predicted)
    return [int((i in g) == (i in p)) for i in range(1, len("".join(gold)))]


def segmentation_records(ids: Sequence[str], gold_docs: Sequence[Sequence[str]],
                         predicted_docs: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """One `termx compare` input record per document: boundary-decision errors, total and per-item outcomes."""
    if not len(ids) == len(gold_docs) == len(predicted_docs):
        raise EvaluationError(f"{len(ids)} ids, {len(gold_docs)} gold and {len(predicted_docs)} predicted documents")
    records = []
    for doc_id, gold, pred in zip(ids, gold_docs, predicted_docs, strict=True):
        outcomes = boundary_outcomes(gold, pred)
        records.append({"id": doc_id, "errors": outcomes.count(0), "total": len(outcomes), "outcomes": outcomes})
    return records


def score_lines(gold_lines: Sequence[str], predicted_lines: Sequence[str], gold_name: str = "gold",
                predicted_name: str = "prediction") -> dict[str, Any]:
    """Score a segmented file against its gold file as the SIGHAN bakeoff scorer counts: line i against line i,
    words split on white space, micro-averaged word and boundary P/R/F1 over all lines."""
    if len(gold_lines) != len(predicted_lines):
        raise EvaluationError(f"{gold_name} has {len(gold_lines)} lines but {predicted_name} has "
                              f"{len(predicted_lines)}",
                              "the files must pair up line by line")
    word, boundary = PRF(0, 0, 0), PRF(0, 0, 0)
    for number, (g, p) in enumerate(zip(gold_lines, predicted_lines, strict=True), start=1):
        gw, pw = g.split(), p.split()
        if "".join(gw) != "".join(pw):
            raise EvaluationError(f"line {number}: {gold_name} and {predicted_name} differ once spaces are "
                                  "removed",
                                  "a segmentation may only add or remove white space")
        scores = segmentation_prf(gw, pw)
        word, boundary = word + scores["word"], boundary + scores["boundary"]
    return {"lines": len(gold_lines), "word": word.as_dict(), "boundary": boundary.as_dict()}


def error_count(gold: Sequence[Any], predicted: Sequence[Any]) -> int:
    """Number of positions where a predicted label differs from the gold one (sequences of equal length)."""
    if len(gold) != len(predicted):
        raise EvaluationError(f"gold has {len(gold)} labels but prediction has {len(predicted)}")
    return sum(g != p for g, p in zip(gold, predicted, strict=True))


def error_counts(gold_docs: Sequence[Sequence[Any]], predicted_docs: Sequence[Sequence[Any]]) -> list[int]:
    """Per-document error counts: the per-subset figures the paired tests compare."""
    if len(gold_docs) != len(predicted_docs):
        raise EvaluationError(f"{len(gold_docs)} gold documents but {len(predicted_docs)} predicted")
    return [error_count(g, p) for g, p in zip(gold_docs, predicted_docs, strict=True)]


def accuracy(gold: Sequence[Any], predicted: Sequence[Any]) -> float:
    """Share of labels the prediction gets right."""
    if not gold:
        raise EvaluationError("accuracy of an empty sequence is undefined")
    return 1 - error_count(gold, predicted) / len(gold)


def micro_average(scores: Sequence[PRF]) -> PRF:
    """Pool the counts, then take the ratios: large documents weigh more."""
    total = PRF(0, 0, 0)
    for s in scores:
        total = total + s
    return total


def macro_average(scores: Sequence[PRF]) -> dict[str, float]:
    """Mean of the per-document precision, recall and F1: every document weighs the same."""
    if not scores:
        raise EvaluationError("macro average of no documents is undefined")
    n = len(scores)
    return {"precision": sum(s.precision for s in scores) / n, "recall": sum(s.recall for s in scores) / n,
            "f1": sum(s.f1 for s in scores) / n}
