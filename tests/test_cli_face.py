"""The look-up, terms and segment commands are thin mappings of the library face (issue 28): they import no storage
or algorithm module, and their defaults (and `termx serve`'s) are the ones the Corpus methods state."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import typer

from termx.api import Corpus
from termx.cli import app
from termx.serve.app import ConcordanceRequest, TermsRequest

CLI = Path(__file__).resolve().parents[1] / "termx" / "cli"
BELOW_THE_FACE = ("termx.storage", "termx.index", "termx.jdf", "termx.wordbreak", "termx.terms", "termx.studies",
                  "termx.tbl", "termx.evaluation", "termx.experiments", "termx.lookup")
FACE_ONLY = {"commands_lookup.py": None, "commands_terms.py": None, "commands_segment.py": {"whitespace"}}
"""The command modules held to the face, with the functions still exempt (None: none)."""


def _imports(tree: ast.Module, exempt: set[str]) -> list[str]:
    """The modules imported anywhere in `tree` but inside the functions named in `exempt`."""
    skipped = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name in exempt
               for n in ast.walk(f)}
    return [n.module for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.module and id(n) not in skipped]


def test_lookup_terms_and_segment_commands_import_only_the_face() -> None:
    for name, exempt in FACE_ONLY.items():
        modules = _imports(ast.parse((CLI / name).read_text()), exempt or set())
        assert "termx.database" in modules or "termx.api" in modules
        assert [m for m in modules if m.startswith(BELOW_THE_FACE)] == [], name


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
