"""The CLI and the HTTP app are thin mappings of the library face (issue 28): no module of termx/cli or termx/serve
imports a storage or algorithm module, anywhere in it, and the defaults of the commands (and of `termx serve`) are
the ones the Corpus methods state."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import typer

from termx.api import Corpus
from termx.cli import app
from termx.serve.app import ConcordanceRequest, TermsRequest

TERMX = Path(__file__).resolve().parents[1] / "termx"
CLI = TERMX / "cli"
BELOW_THE_FACE = ("termx.storage", "termx.index", "termx.jdf", "termx.wordbreak", "termx.terms", "termx.studies",
                  "termx.tbl", "termx.evaluation", "termx.experiments", "termx.lookup")
MAPPINGS = sorted([*CLI.glob("*.py"), *(TERMX / "serve").rglob("*.py")])
"""Every module of the CLI and of the HTTP app (a new one is held to the face as soon as it exists)."""


def _imports(tree: ast.Module) -> list[str]:
    """The modules imported anywhere in `tree` (at the top, inside functions, under TYPE_CHECKING)."""
    found: list[str] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.module:
            found += [n.module, *(f"{n.module}.{a.name}" for a in n.names)]
        elif isinstance(n, ast.Import):
            found += [a.name for a in n.names]
    return found


def _below(module: str) -> bool:
    return any(module == b or module.startswith(b + ".") for b in BELOW_THE_FACE)


def test_every_cli_and_http_module_imports_only_the_face() -> None:
    assert len(MAPPINGS) > 15 and CLI / "commands_studies.py" in MAPPINGS
    offenders = {p.relative_to(TERMX).as_posix(): [m for m in _imports(ast.parse(p.read_text())) if _below(m)]
                 for p in MAPPINGS}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_check_sees_every_kind_of_import() -> None:
    text = ("import termx.storage.db\nfrom termx import lookup\ndef f():\n    from termx.tbl.templates import x\n"
            "if TYPE_CHECKING:\n    from termx.index.ingest import Document\n")
    assert [m for m in _imports(ast.parse(text)) if _below(m)] == [
        "termx.storage.db", "termx.lookup", "termx.tbl.templates", "termx.tbl.templates.x", "termx.index.ingest",
        "termx.index.ingest.Document"]


def test_commands_that_read_a_corpus_reach_it_through_the_face() -> None:
    for name in ("commands_lookup.py", "commands_terms.py", "commands_segment.py", "commands_studies.py",
                 "commands_tbl.py", "commands_jdf.py", "commands_index.py"):
        modules = _imports(ast.parse((CLI / name).read_text()))
        assert "termx.database" in modules or "termx.api" in modules, name


def _cli_defaults(command: str) -> dict[str, object]:
    """The default of each option of a CLI command, by parameter name."""
    params = typer.main.get_command(app).commands[command].params  # type: ignore[attr-defined]
    return {p.name: p.default for p in params}


def _library_defaults(method: object) -> dict[str, object]:
    return {k: p.default for k, p in inspect.signature(method).parameters.items()  # type: ignore[arg-type]
            if p.default is not inspect.Parameter.empty}


def test_lookup_and_terms_defaults_are_the_library_defaults() -> None:
    concordance = _library_defaults(Corpus.concordance)
    assert {k: _cli_defaults("concordance")[k] for k in ("left", "right", "limit")} == \
        {k: concordance[k] for k in ("left", "right", "limit")}
    assert {k: ConcordanceRequest.model_fields[k].default for k in ("left", "right", "limit")} == \
        {k: concordance[k] for k in ("left", "right", "limit")}
    assert _cli_defaults("class")["limit"] == _library_defaults(Corpus.classes)["limit"]
    terms, cli = _library_defaults(Corpus.terms), _cli_defaults("terms")
    shown = {"top": cli["limit"], "rank": cli["rank"], **{k: cli[k] for k in ("min_df", "min_len", "max_len")}}
    assert shown == {k: terms[k] for k in shown}
    assert {k: TermsRequest.model_fields[k].default for k in shown} == {k: terms[k] for k in shown}
