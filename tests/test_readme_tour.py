"""The README's tour works on the data it names: every pattern its look-ups show occurs in Reuters-21578 (in at
least MIN_DF stories), and the numbers of stories the tour states are the real ones.

Counted with Python over the JSON lines' "text" fields (what `termx index` reads), no index needed. The data is
found as bench/_data.py finds it ($TERMX_DATA, else ../shared/data next to the repository); the tests that need
it skip where it is absent.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
REUTERS = Path(os.environ.get("TERMX_DATA") or REPOSITORY.parent / "shared" / "data") / "en" / "reuters21578.jsonl"
MIN_DF = 20
LOOKUPS = ("stats", "concordance", "class")
VALUE_OPTIONS = {"-l", "--left", "-r", "--right", "-n", "--limit", "-f", "--format", "--db"}


def readme_section(title: str) -> str:
    """The text of one `## title` section of README.md."""
    text = (REPOSITORY / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start: end if end >= 0 else len(text)]


def tour_patterns() -> list[str]:
    """The patterns of the tour's look-up commands on `reuters` (and of the Python API example's stats call)."""
    tour = readme_section("A tour")
    block = tour[tour.index("```bash\n") + 8:]
    patterns = []
    for line in block[: block.index("```")].splitlines():
        args = shlex.split(line, comments=True)
        if args[:1] != ["termx"] or len(args) < 3 or args[1] not in LOOKUPS or args[2] != "reuters":
            continue
        rest = iter(args[3:])
        for arg in rest:
            if arg in VALUE_OPTIONS:
                next(rest)
            elif not arg.startswith("-"):
                patterns.append(arg)
    for call in re.findall(r"corpus\.stats\((\[[^\]]*\])\)", readme_section("Python API and HTTP")):
        patterns.extend(ast.literal_eval(call))
    return list(dict.fromkeys(patterns))


def stated_document_counts() -> dict[str, int]:
    """What the tour's prose says: "*pattern* is in N stories"."""
    found = re.findall(r"\*([^*]+)\*,? (?:which )?is in ([\d,]+) stories", readme_section("A tour"))
    return {pattern: int(n.replace(",", "")) for pattern, n in found}


@pytest.fixture(scope="module")
def stories() -> list[str]:
    if not REUTERS.exists():
        pytest.skip(f"the Reuters-21578 data is absent ({REUTERS}; set TERMX_DATA)")
    with REUTERS.open(encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f]


def test_the_tour_parses() -> None:
    assert len(tour_patterns()) >= 3
    assert set(stated_document_counts()) <= set(tour_patterns()) and stated_document_counts()


def test_every_tour_pattern_occurs_in_reuters(stories: list[str]) -> None:
    assert len(stories) == 19043  # the file PROVENANCE.md describes
    for pattern in tour_patterns():
        df = sum(pattern in text for text in stories)
        assert df >= MIN_DF, f"{pattern!r} is in {df} Reuters stories; the tour needs patterns that occur"


def test_the_tour_states_true_counts(stories: list[str]) -> None:
    for pattern, stated in stated_document_counts().items():
        assert sum(pattern in text for text in stories) == stated, pattern
