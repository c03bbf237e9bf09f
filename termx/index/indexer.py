"""`termx index` as a library call: read documents, build the shard in memory, store it, summarise."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine

from termx.errors import InputError
from termx.index.build import DEFAULT_MAX_K, DEFAULT_REP_CAP, build_shard
from termx.index.fold import fold_case as fold
from termx.index.ingest import Document, InputMode, OnInvalid, ReadReport, read_documents
from termx.index.units import Unit
from termx.progress import Progress, Silent, Timings
from termx.storage.store import dependents, get_corpus, require_new_corpus, save_corpus


@dataclass
class IndexSummary:
    """What a build did: sizes and seconds per stage."""

    corpus: str
    unit: str
    max_k: int
    tokens: int
    documents: int
    classes: int
    trivial_classes: int
    empty_documents_skipped: int
    replaced_bytes: int
    seconds: dict[str, float]
    deleted: dict[str, int]  # what --replace removed with the old version: term lists, white space runs, models

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return dict(self.__dict__)


def check_corpus_name(name: str) -> None:
    """A corpus name is 1 to 200 printable characters: no control, format (bidi) or separator characters other
    than the space, since names are shown on terminals and passed around in shells and URLs."""
    if not name or len(name) > 200:
        raise InputError("a corpus name must have 1 to 200 characters")
    bad = next((c for c in name if not c.isprintable()), None)
    if bad is not None:
        shown = bad.encode("unicode_escape").decode("ascii")
        raise InputError(f"a corpus name must be printable: {name!r} holds {shown}",
                         "use letters, digits, spaces and punctuation")


def index_paths(engine: Engine, name: str, paths: list[str], unit: Unit = Unit.byte, max_k: int = DEFAULT_MAX_K,
                mode: InputMode = InputMode.auto, on_invalid: OnInvalid = OnInvalid.reject,
                replace: bool = False, progress: Progress | None = None, fold_case: bool = False) -> IndexSummary:
    """Index files/directories/stdin as corpus `name` (an existing name is an error unless `replace`)."""
    check_corpus_name(name)
    require_new_corpus(engine, name, replace)
    timings = Timings()
    with timings.stage("read", progress or Silent()):
        docs, report = read_documents(paths, mode, on_invalid)
    return index_documents(engine, name, docs, unit, max_k, replace, progress, timings, report,
                           {"paths": paths, "input": mode.value, "invalid": on_invalid.value}, fold_case)


def index_documents(engine: Engine, name: str, docs: Sequence[Document], unit: Unit = Unit.byte,
                    max_k: int = DEFAULT_MAX_K, replace: bool = False, progress: Progress | None = None,
                    timings: Timings | None = None, report: ReadReport | None = None,
                    params: dict[str, Any] | None = None, fold_case: bool = False) -> IndexSummary:
    """Index documents already in memory (the demo and the experiments use this directly).

    `fold_case` indexes the texts lower-cased (termx.index.fold: lengths kept, so offsets are the original's);
    the corpus's params record it and every look-up folds its pattern the same way.
    """
    check_corpus_name(name)
    if max_k < 1:
        raise InputError("`max_k` must be at least 1", params=("max_k",))
    timings = timings if timings is not None else Timings()
    report = report or ReadReport()
    deleted = dependents(engine, name) if replace else {}
    t0 = time.perf_counter()
    if fold_case:
        docs = [Document(d.name, fold(d.text), d.title) for d in docs]
    shard = build_shard(docs, unit, max_k, progress, timings)
    params = {**(params or {}), "unit": unit.value, "max_k": max_k, "rep_cap": DEFAULT_REP_CAP, "fold_case": fold_case,
              "build_seconds": round(time.perf_counter() - t0, 4)}
    save_corpus(engine, name, shard, replace, params, progress, timings)
    info = get_corpus(engine, name)
    return IndexSummary(name, unit.value, max_k, info.tokens, info.documents, info.classes,
                        shard.trivial_classes, report.empty_documents, report.replaced_bytes,
                        {k: round(v, 3) for k, v in timings.items()}, deleted)
