"""The published-figure tests cannot pass CI unchecked: without their data they skip, except under
TERMX_REQUIRE_DATA=1 (set by .ci/run), where they fail."""

from __future__ import annotations

from pathlib import Path

import pytest

CI_SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "run"


def test_missing_data_skips_for_developers_and_fails_in_ci(request: pytest.FixtureRequest,
                                                            monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "reuters21578.jsonl").write_text("", encoding="utf-8")
    monkeypatch.setenv("TERMX_DATA", str(tmp_path))
    monkeypatch.delenv("TERMX_REQUIRE_DATA", raising=False)
    need = request.getfixturevalue("shared_data")
    assert need("en/reuters21578.jsonl") == tmp_path
    with pytest.raises(pytest.skip.Exception, match="en/acter"):
        need("en/reuters21578.jsonl", "en/acter")
    monkeypatch.setenv("TERMX_REQUIRE_DATA", "1")
    with pytest.raises(pytest.fail.Exception, match="en/acter"):
        need("en/acter")


def test_ci_requires_the_data() -> None:
    lines = CI_SCRIPT.read_text(encoding="utf-8").splitlines()
    assert "export TERMX_REQUIRE_DATA=1" in lines
    assert lines.index("export TERMX_REQUIRE_DATA=1") < next(n for n, line in enumerate(lines) if "pytest" in line)
