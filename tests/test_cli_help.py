"""Every command has help text, answers --help, and is documented in the README."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from termx.cli import app

ROOT = Path(__file__).resolve().parent.parent


def _commands() -> list[tuple[str, ...]]:
    """Paths of every command and sub-command, e.g. ("index",), ("tbl", "train")."""
    paths = []

    def walk(cmd, prefix: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
        for name, sub in getattr(cmd, "commands", {}).items():
            paths.append(prefix + (name,))
            walk(sub, prefix + (name,))

    walk(typer.main.get_command(app), ())
    return paths


@pytest.mark.parametrize("path", _commands(), ids=" ".join)
def test_command_has_help(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]
    assert (command.help or "").strip(), f"termx {' '.join(path)} has no help text"


def test_readme_documents_every_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [" ".join(p) for p in _commands() if f"termx {' '.join(p)}" not in readme]
    assert not missing, f"README.md does not mention: {missing}"
