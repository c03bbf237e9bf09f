"""The experiments on the face: the white space recovery experiment (`termx whitespace`, docs/design.md, "White
space recovery") and the one-screen demo (`termx demo`). Both build a corpus, so they are methods of
`termx.Database`; each returns its report (a dataclass with as_dict() and per-result row() records)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from termx.defaults import DEFAULT_MAX_LEN, DEMO_CORPUS, DEMO_TOP, WHITESPACE_SCORERS, Condition, Scorer, Unit

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from termx.experiments.demo import DemoReport
    from termx.experiments.whitespace import WhitespaceReport
    from termx.progress import Progress

class Experiments:
    """The experiment capability of a Database (needs its `engine`)."""

    engine: Engine

    def whitespace(self, corpus: str, paths: Iterable[str | os.PathLike[str]] | str, *, input: str = "auto",
                   unit: Unit | str = Unit.byte, scorers: Iterable[Scorer | str] = WHITESPACE_SCORERS,
                   eval_docs: int | None = None, condition: Condition | str = Condition.alnum,
                   lines_per_doc: int | None = None, max_len: int = DEFAULT_MAX_LEN,
                   params: Mapping[str, Mapping[str, float]] | None = None, results: str | Path | None = None,
                   replace: bool = False, tbl: Mapping[str, Any] | None = None,
                   progress: Progress | None = None) -> WhitespaceReport:
        """Delete the white space of the spaced documents under `paths` (split as `input` says, as in index()),
        index the de-spaced text as `corpus`, break it into words with each of `scorers` (`params`: per scorer
        name, its parameter overrides) and score against the spacing; the run is stored. `results`: a folder for
        per-document records (termx compare). `tbl`: also correct each scorer with TBL, with these overrides of
        the TblSettings defaults (train_chars, min_score, max_rules, templates: a set name); None: no TBL."""
        from termx.experiments.whitespace import TblSettings, run_whitespace
        from termx.index.ingest import InputMode, read_documents
        from termx.wordbreak.segmenter import Scorer

        settings = None
        if tbl is not None:
            from dataclasses import replace as with_values

            from termx.tbl.templates import template_set

            given = {k: v for k, v in tbl.items() if v is not None}
            if "templates" in given:
                given["templates"] = template_set(given["templates"])
            settings = with_values(TblSettings(), **given)
        sources = [os.fspath(paths)] if isinstance(paths, (str, os.PathLike)) else [os.fspath(p) for p in paths]
        docs, _ = read_documents(sources, InputMode(input))
        return run_whitespace(self.engine, docs, corpus, unit=Unit(unit), scorers=[Scorer(s) for s in scorers],
                              eval_docs=eval_docs, condition=Condition(condition), lines_per_doc=lines_per_doc,
                              max_len=max_len, results_dir=results, replace=replace, options=params,
                              progress=progress, tbl=settings)

    def demo(self, corpus: str = DEMO_CORPUS, top: int = DEMO_TOP, rebuild: bool = False,
             progress: Progress | None = None) -> DemoReport:
        """Index Python's stdlib docstrings as `corpus` (unless it exists, or with `rebuild`), rank `top` terms by
        adaptation, freq and RIDF (report.terms, in that order), show the first in context and break an unspaced
        sentence into words (`termx demo`)."""
        from termx.experiments.demo import run_demo

        return run_demo(self.engine, corpus, top, rebuild, progress)
