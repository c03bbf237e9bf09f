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


def test_help_lists_commands_in_groups() -> None:
    """`termx --help` shows the panels in PANELS order, every command in one of them, and README uses them."""
    from termx.cli import PANELS

    root = typer.main.get_command(app)
    panels = {name: getattr(cmd, "rich_help_panel", None) for name, cmd in root.commands.items()}  # type: ignore[attr-defined]
    assert not [n for n, p in panels.items() if p not in PANELS], panels
    listed = root.list_commands(None)  # type: ignore[attr-defined, arg-type]
    assert [PANELS.index(panels[n]) for n in listed] == sorted(PANELS.index(panels[n]) for n in listed)
    out = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).stdout
    shown = [p for p in PANELS if p in set(panels.values())]
    positions = [out.index(f"─ {p} ") for p in shown]
    assert positions == sorted(positions), out
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(f"| {p} |" in readme for p in shown)


def test_limit_is_the_same_option_everywhere() -> None:
    """Commands that cap how many rows they list call it --limit (-n); `terms` keeps --top as an alias."""
    root = typer.main.get_command(app)
    for name in ("concordance", "class", "terms"):
        params = {p.name: p for p in root.commands[name].params}  # type: ignore[attr-defined]
        assert "--limit" in params["limit"].opts and "-n" in params["limit"].opts, name
    assert "--top" in {o for p in root.commands["terms"].params for o in p.opts}  # type: ignore[attr-defined]
