"""The layers of docs/design.md ("The layers") hold: imports point one way and form no cycle, between modules or
between packages, counting every import (inside functions and under TYPE_CHECKING too)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "termx"
MAX_LINES = 450
"""No module over this many lines (issue 28: small modules with one job each)."""

ENGINE = ("termx.index",)
STORAGE = ("termx.storage",)
FACE = ("termx.api", "termx.database", "termx.face")
FRONTS = ("termx.cli", "termx.serve", "termx.daemon", "termx.__main__")
CAPABILITIES = ("termx.lookup", "termx.terms", "termx.wordbreak", "termx.jdf", "termx.studies", "termx.tbl",
                "termx.evaluation", "termx.experiments")


def _modules() -> dict[str, Path]:
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = path
    return mods


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """The termx modules a file imports, by any import statement anywhere in it."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out.update(n for n in names if n in MODULES)
    return out


EDGES = {m: _imports(p) - {m} for m, p in MODULES.items()}


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_another_that_imports_it_back() -> None:
    assert _cycles(EDGES) == []


def test_no_package_cycle() -> None:
    packages: dict[str, set[str]] = {}
    for m, targets in EDGES.items():
        packages.setdefault(_package(m), set()).update(_package(t) for t in targets if _package(t) != _package(m))
    assert _cycles(packages) == []


@pytest.mark.parametrize(("layer", "forbidden"), [
    (ENGINE, STORAGE + FACE + FRONTS + CAPABILITIES),
    (STORAGE, FACE + FRONTS + CAPABILITIES),
    (CAPABILITIES, FACE + FRONTS),
    (FACE, FRONTS),
])
def test_imports_point_down_the_layers(layer: tuple[str, ...], forbidden: tuple[str, ...]) -> None:
    upward = sorted(f"{m} -> {t}" for m, targets in EDGES.items() if _within(m, layer)
                    for t in targets if _within(t, forbidden))
    assert upward == []


def test_the_engine_holds_no_database_code() -> None:
    drivers = {"sqlalchemy", "psycopg", "alembic"}
    found = []
    for m, path in MODULES.items():
        if not _within(m, ENGINE):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            found += [f"{m}: {n}" for n in names if n.split(".")[0] in drivers]
    assert found == []


def test_no_module_over_450_lines() -> None:
    long = sorted(f"{p.relative_to(ROOT)}: {n}" for p in MODULES.values() if (n := len(p.read_text().splitlines()))
                  > MAX_LINES)
    assert long == []


def test_the_readme_layout_names_every_part_of_the_package() -> None:
    """README's Development block names every package and top-level module of termx/ (a new one is listed)."""
    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index("## Development"):]
    packages = [f"termx/{p.name}/" for p in PACKAGE.iterdir() if (p / "__init__.py").exists()]
    modules = [p.name for p in PACKAGE.glob("*.py") if p.name not in {"__init__.py", "__main__.py"}]
    assert packages and modules
    missing = sorted(name for name in packages + modules if name not in block)
    assert missing == []
