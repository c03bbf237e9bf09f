"""Count the SQL statements written in Python strings under termx/, per module (issue 28: "≤ 10").

A statement is a string constant (an f-string's literal parts joined, or implicitly concatenated pieces) whose first
word is an SQL statement keyword. Docstrings are skipped. Run: python bench/count_sql.py [root]
"""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from pathlib import Path

KEYWORDS = ("SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "ALTER", "DROP", "WITH", "COPY", "SET", "LOCK",
            "TRUNCATE", "ANALYZE", "VACUUM", "GRANT", "REVOKE", "REFRESH", "EXPLAIN")
STATEMENT_RE = re.compile(rf"^\s*\(?\s*(?:{'|'.join(KEYWORDS)})\b(?=[\s(;]|$)")


def _text(node: ast.AST) -> str | None:
    """The literal text of a string constant or f-string (formatted parts as `{}`), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)  # type: ignore[misc]
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def statements(path: Path) -> list[tuple[int, str]]:
    """(line, first line of text) of every SQL statement written in a string in the Python file `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    inner = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    found = []
    for node in ast.walk(tree):
        if id(node) in skip or id(node) in inner:
            continue
        text = _text(node)
        if text is not None and STATEMENT_RE.match(text) and len(text.split()) > 1:
            found.append((node.lineno, text.strip().splitlines()[0][:70]))  # type: ignore[attr-defined]
    return sorted(found)


def main(root: str = "termx") -> None:
    """Print the count per module, most first, and the total."""
    counts: Counter[str] = Counter()
    for path in sorted(Path(root).rglob("*.py")):
        n = len(statements(path))
        if n:
            counts[str(path)] = n
    for module, n in counts.most_common():
        print(f"{n:4d}  {module}")
    print(f"{sum(counts.values()):4d}  total")


if __name__ == "__main__":
    main(*sys.argv[1:])
