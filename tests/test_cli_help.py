"""Every command has help text, answers --help, and is documented in the README."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from termx.cli import app
from termx.storage.db import get_engine

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
    """Commands that cap how many rows they list call it --limit (-n); `terms` and `related` keep --top as an alias."""
    root = typer.main.get_command(app)
    for name in ("concordance", "class", "terms", "related"):
        opts = {o for p in root.commands[name].params for o in p.opts}  # type: ignore[attr-defined]
        assert {"--limit", "-n"} <= opts, name
    for name in ("terms", "related"):
        assert "--top" in {o for p in root.commands[name].params for o in p.opts}  # type: ignore[attr-defined]


PASSES_OPTIONS_ON = {("db", "psql")}  # its options go to psql (whose -q and -v are its own)


def _leaf(path: tuple[str, ...]):  # type: ignore[no-untyped-def]
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]
    return command


@pytest.mark.parametrize("path", [p for p in _commands() if not hasattr(_leaf(p), "commands")], ids=" ".join)
def test_every_command_takes_quiet_and_verbose(path: tuple[str, ...]) -> None:
    if path in PASSES_OPTIONS_ON:
        pytest.skip("passes its options on to another program")
    opts = {o for p in _leaf(path).params for o in getattr(p, "opts", [])}
    assert {"--quiet", "-q", "--verbose", "-v"} <= opts, f"termx {' '.join(path)} lacks --quiet or -v"
    assert CliRunner().invoke(app, [*path, "--quiet", "--help"]).exit_code == 0


def test_quiet_before_or_after_the_command(db_env: str, tmp_path: Path) -> None:
    """`termx --quiet CMD` and `termx CMD --quiet` both silence a command's notices (drop: "dropped ..."), and
    a later command without it speaks again (the verbosity is per command, not left over)."""
    (tmp_path / "a.txt").write_text("Hi_Ho_Hi_Ho", encoding="utf-8")
    runner = CliRunner()
    for before, after in ((["--quiet"], []), ([], ["--quiet"]), (["-q"], []), ([], ["-q"]), ([], [])):
        built = runner.invoke(app, [*before, "index", str(tmp_path), "--corpus", "quiet-cli", "--replace",
                                    "--format", "json", *after])
        assert built.exit_code == 0, built.output
        dropped = runner.invoke(app, [*before, "drop", "quiet-cli", *after])
        assert dropped.exit_code == 0, dropped.output
        if before or after:
            assert built.stderr == dropped.stderr == "", (before, after)
        else:
            assert dropped.stderr == "dropped quiet-cli\n"


def test_quiet_silences_the_temporary_server_notice(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded server's notice (a log record of the `termx` logger) reaches stderr through the CLI's
    notice, so --quiet silences it; without --quiet it is said."""
    from termx.storage import embedded

    def started() -> str:  # what embedded_url says when it starts a temporary server, without starting one
        embedded.log.warning("termx: started a temporary embedded PostgreSQL for this command")
        return database_url

    monkeypatch.delenv("TERMX_DATABASE_URL", raising=False)
    monkeypatch.setattr(embedded, "embedded_url", started)
    for args in (["--quiet", "corpora"], ["corpora", "--quiet"], ["db", "upgrade", "-q"], ["corpora"]):
        get_engine.cache_clear()  # each command resolves the embedded server's URL anew
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
        assert ("started a temporary embedded PostgreSQL" in result.stderr) == (args == ["corpora"]), args
        assert result.stderr == "" or args == ["corpora"], (args, result.stderr)
    get_engine.cache_clear()


def test_verbose_shows_the_seconds_of_each_stage(db_env: str, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Hi_Ho_Hi_Ho", encoding="utf-8")
    args = ["index", str(tmp_path), "--corpus", "verbose-cli", "--replace", "--format", "json"]
    for argv in (["-v", *args], [*args, "--verbose"]):
        result = CliRunner().invoke(app, argv)
        assert result.exit_code == 0, result.output
        assert "termx: suffix array: " in result.stderr and " s" in result.stderr, result.stderr
    assert CliRunner().invoke(app, ["drop", "verbose-cli", "-q"]).exit_code == 0
