"""`termx demo`: what termx is for, on docstrings of Python's standard library (present wherever Python is):
terms ranked by adaptation beside frequency, a concordance, and unspaced text broken into words."""

from __future__ import annotations

import ast
import sysconfig
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from termx.defaults import DEMO_CORPUS, DEMO_TOP, Unit
from termx.index.ingest import Document
from termx.progress import Progress


def stdlib_docstrings(limit: int | None = None) -> list[Document]:
    """One document per stdlib module: its module, class and function docstrings joined by blank lines."""
    root = Path(sysconfig.get_paths()["stdlib"])
    docs = []
    for path in sorted(root.glob("*.py")) + sorted(root.glob("*/*.py")):
        if "test" in path.parts[-2:] or path.name.startswith("test_") or "site-packages" in path.parts:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        nodes = [tree] + [n for n in ast.walk(tree)
                          if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
        texts = [d.strip() for n in nodes if (d := ast.get_docstring(n))]
        text = "\n\n".join(t for t in texts if "\0" not in t)
        if text:
            docs.append(Document(str(path.relative_to(root)), text))
        if limit and len(docs) >= limit:
            break
    return docs


DEMO_SENTENCE = "returnanewlistcontainingalltheitemsfromtheiterable"
"""An unspaced sentence for the word-breaking part of the demo (not a docstring of the corpus verbatim)."""
RANKINGS = ("adaptation", "freq", "ridf")
"""Adaptation beside its baseline (frequency) and the reference-free ranking that scored best on ACTER corp."""


@dataclass
class DemoReport:
    """What `termx demo` shows: the corpus, top terms per ranking, a concordance, a sentence broken into words."""

    corpus: str
    documents: int
    tokens: int
    indexed: bool                                  # False when an existing demo corpus was reused
    terms: dict[str, list[dict[str, Any]]]         # ranking -> rows of termx terms
    term: str                                      # the term the concordance shows
    concordance: list[dict[str, Any]]
    sentence: str
    words: list[str]
    model_source: str                              # trained / database / cache / memory


def run_demo(engine: Engine, corpus: str = DEMO_CORPUS, top: int = DEMO_TOP, rebuild: bool = False,
             progress: Progress | None = None) -> DemoReport:
    """Index the stdlib docstrings (unless that corpus exists), rank terms three ways, show the top adaptation
    term in context and break DEMO_SENTENCE into words with the corpus's stored branching model."""
    from termx.errors import CorpusNotFound
    from termx.lookup import concordance
    from termx.storage.corpora import get_corpus
    from termx.storage.index_loader import load_index
    from termx.storage.indexer import index_documents
    from termx.terms import extract_terms
    from termx.wordbreak.corpus_model import segment_model

    indexed = rebuild
    if not rebuild:
        try:
            get_corpus(engine, corpus)
        except CorpusNotFound:
            indexed = True
    if indexed:
        index_documents(engine, corpus, stdlib_docstrings(), Unit.byte, replace=True, progress=progress)
    info = get_corpus(engine, corpus)
    terms = {rank: extract_terms(engine, corpus, rank, top, min_len=4, progress=progress) for rank in RANKINGS}
    term = terms["adaptation"][0]["term"] if terms["adaptation"] else ""
    lines = concordance(load_index(engine, corpus), term, 30, 30, 5) if term else []
    model, source = segment_model(engine, corpus, progress=progress)
    return DemoReport(corpus, info.documents, info.tokens, indexed, terms, term, lines, DEMO_SENTENCE,
                      model.segment_lines([DEMO_SENTENCE])[0], source)
