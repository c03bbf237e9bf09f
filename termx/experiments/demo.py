"""The demo corpus: docstrings of Python's standard library, present on every machine with Python."""

from __future__ import annotations

import ast
import sysconfig
import warnings
from pathlib import Path

from termx.index.ingest import Document


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
