"""Readers for evaluation inputs: per-subset JSON-lines records for `termx compare` and segmented text files for
`termx segscore`. Every complaint names the file and line."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from termx.errors import EvaluationError, InputError
from termx.line_reader import parse_json_line, read_lines, source_name


@dataclass(frozen=True)
class SubsetRecord:
    """One subset's figures for one system: `errors` (lower is better, optional `total`) or `score`."""

    id: str
    line: int
    errors: float | None = None
    total: float | None = None
    score: float | None = None
    outcomes: tuple[int, ...] | None = None


@dataclass(frozen=True)
class PairedRecords:
    """Two systems' records matched by id, in A's order; `a`/`b` hold the measure (errors, error rate or score)."""

    ids: list[str]
    measure: str
    higher_is_better: bool
    a: NDArray[np.float64]
    b: NDArray[np.float64]
    a_errors: NDArray[np.float64] | None
    b_errors: NDArray[np.float64] | None
    totals: NDArray[np.float64] | None
    a_outcomes: list[list[int]] | None
    b_outcomes: list[list[int]] | None
    a_name: str = "A"
    b_name: str = "B"


def _shown(value: object) -> str:
    """A value for a message, cut short (a JSON number may have thousands of digits)."""
    text = json.dumps(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _finite(value: float) -> bool:
    """Finite and representable as a float (a 400-digit JSON integer is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _number(obj: dict[str, Any], key: str, where: str, *, positive: bool = False,
            non_negative: bool = False) -> float | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
        raise InputError(f"{where}: `{key}` must be a finite number (got {_shown(value)})")
    if positive and value <= 0:
        raise InputError(f"{where}: `{key}` must be positive (got {value})")
    if non_negative and value < 0:
        raise InputError(f"{where}: `{key}` must not be negative (got {value})")
    return float(value)


def _record(obj: Any, where: str, line: int) -> SubsetRecord:
    if not isinstance(obj, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    doc_id = obj.get("id")
    if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)):
        raise InputError(f"{where}: missing or invalid `id` (a string or integer)")
    if ("errors" in obj) == ("score" in obj):
        raise InputError(f"{where}: give exactly one of `errors` (lower is better) or `score` (higher is better)")
    if "total" in obj and "errors" not in obj:
        raise InputError(f"{where}: `total` goes with `errors`, not with `score`")
    outcomes = obj.get("outcomes")
    if outcomes is not None:
        if not isinstance(outcomes, list) or any(isinstance(v, bool) or v not in (0, 1) for v in outcomes):
            raise InputError(f"{where}: `outcomes` must be a list of 0/1 (1 = right)")
        outcomes = tuple(int(v) for v in outcomes)
    return SubsetRecord(str(doc_id), line, _number(obj, "errors", where, non_negative=True),
                        _number(obj, "total", where, positive=True), _number(obj, "score", where), outcomes)


def read_records(path: str | Path) -> list[SubsetRecord]:
    """Parse a JSON-lines file of per-subset records (blank lines skipped); ids must be unique."""
    records: list[SubsetRecord] = []
    seen: dict[str, int] = {}
    for number, text in enumerate(read_lines(path), start=1):
        if not text.strip():
            continue
        where = f"{source_name(path)}:{number}"
        rec = _record(parse_json_line(text, where), where, number)
        if rec.id in seen:
            raise InputError(f"{where}: duplicate id {rec.id!r} (first on line {seen[rec.id]})")
        seen[rec.id] = number
        records.append(rec)
    if not records:
        raise InputError(f"{source_name(path)} holds no records",
                         "one JSON object per line, e.g. {\"id\": \"s1\", \"errors\": 3}")
    return records


def pair_records(a: list[SubsetRecord], b: list[SubsetRecord], a_name: str = "A",
                 b_name: str = "B") -> PairedRecords:
    """Match two systems' records by id and check they measure the same thing the same way."""
    by_id = {r.id: r for r in b}
    for r in a:
        if r.id not in by_id:
            raise EvaluationError(f"id {r.id!r} ({a_name}:{r.line}) is missing from {b_name}",
                                  "both files must list the same subsets")
    a_ids = {r.id for r in a}
    for r in b:
        if r.id not in a_ids:
            raise EvaluationError(f"id {r.id!r} ({b_name}:{r.line}) is missing from {a_name}",
                                  "both files must list the same subsets")
    pairs = [(r, by_id[r.id]) for r in a]
    first = a[0]
    uses_errors, has_total = first.errors is not None, first.total is not None
    has_outcomes = first.outcomes is not None
    for ra, rb in pairs:
        for name, r in ((a_name, ra), (b_name, rb)):
            if (r.errors is not None) != uses_errors:
                raise EvaluationError(f"{name}:{r.line} uses `{'score' if uses_errors else 'errors'}` but "
                                      f"{a_name}:{first.line} uses `{'errors' if uses_errors else 'score'}`",
                                      "every record must use the same measure")
            if (r.total is not None) != has_total:
                raise EvaluationError(f"{name}:{r.line}: `total` must be given for every record or for none")
            if (r.outcomes is not None) != has_outcomes:
                raise EvaluationError(f"{name}:{r.line}: `outcomes` must be given for every record or for none")
        if ra.total != rb.total:
            raise EvaluationError(f"id {ra.id!r}: total {ra.total:g} ({a_name}:{ra.line}) differs from "
                                  f"{rb.total:g} ({b_name}:{rb.line})", "both systems must score the same items")
        if ra.outcomes is not None and rb.outcomes is not None and len(ra.outcomes) != len(rb.outcomes):
            raise EvaluationError(f"id {ra.id!r}: {len(ra.outcomes)} outcomes ({a_name}:{ra.line}) but "
                                  f"{len(rb.outcomes)} ({b_name}:{rb.line})", "both systems must score the same items")

    def column(field: str, side: int) -> NDArray[np.float64]:
        return np.array([getattr(p[side], field) for p in pairs], dtype=np.float64)

    totals = column("total", 0) if has_total else None
    a_err: NDArray[np.float64] | None = None
    b_err: NDArray[np.float64] | None = None
    if uses_errors:
        a_err, b_err = column("errors", 0), column("errors", 1)
        a_val, b_val = (a_err / totals, b_err / totals) if totals is not None else (a_err, b_err)
        measure = "error rate" if totals is not None else "errors"
    else:
        a_val, b_val, measure = column("score", 0), column("score", 1), "score"
    return PairedRecords(
        ids=[ra.id for ra, _ in pairs], measure=measure, higher_is_better=not uses_errors, a=a_val, b=b_val,
        a_errors=a_err, b_errors=b_err, totals=totals,
        a_outcomes=[list(ra.outcomes or ()) for ra, _ in pairs] if has_outcomes else None,
        b_outcomes=[list(rb.outcomes or ()) for _, rb in pairs] if has_outcomes else None,
        a_name=a_name, b_name=b_name)
