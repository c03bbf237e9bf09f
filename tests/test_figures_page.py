"""The published figures: docs/figures.md is what bench/published/*.json give, every record is complete and
consistent, and every figure README.md or docs/ quotes from it is the record's value at the quote's rounding.

A quote of a published figure is a Markdown link whose text is the value and whose target is the figure's anchor
in docs/figures.md, e.g. `[.933](docs/figures.md#whitespace-reuters-boundary-f1)` (the mean) or
`[41–71×](docs/figures.md#tbl-speedup-nltk)` (a range: the smallest and largest per-seed value). No data and no
database are needed: the records are the bench scripts' output, committed with the figures they back.
"""

from __future__ import annotations

import importlib.util
import math
import re
import statistics
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from termx.defaults import TERMS_ENGLISH
from termx.wordbreak.model import DEFAULTS

REPOSITORY = Path(__file__).resolve().parents[1]
QUOTE = re.compile(r"\[([^\]]+)\]\((?:docs/|\./)?figures\.md#([a-z0-9-]+)\)")
NUMBER = re.compile(r"^(\d*\.\d+|\d+)(?:[–-](\d*\.\d+|\d+))?(×|%)?$")


def figures_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("figures", REPOSITORY / "bench" / "figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def records() -> dict[str, dict[str, Any]]:
    return {r["figure"]: r for r in figures_module().load()}


def quotes() -> list[tuple[str, str, str]]:
    """(file, quoted text, figure) for every quote in README.md and docs/*.md."""
    out = []
    for path in [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]:
        if path.name == "figures.md":
            continue
        for text, figure in QUOTE.findall(path.read_text(encoding="utf-8")):
            out.append((path.relative_to(REPOSITORY).as_posix(), text, figure))
    return out


def within_rounding(printed: str, value: float) -> bool:
    """`printed` is `value` rounded to the printed digits (half a unit of the last digit either way)."""
    exponent = Decimal(printed).as_tuple().exponent
    assert isinstance(exponent, int)
    return abs(float(printed) - value) <= 0.5 * 10.0 ** exponent + 1e-12


def test_the_page_is_generated_from_the_records() -> None:
    module = figures_module()
    page = (REPOSITORY / "docs" / "figures.md").read_text(encoding="utf-8")
    assert page == module.render(module.load()), "run: python bench/figures.py"


def test_every_record_is_complete_and_consistent() -> None:
    found = records()
    assert found, "no records in bench/published/"
    for name, r in found.items():
        assert (REPOSITORY / "bench" / "published" / f"{name}.json").is_file()
        assert r["status"] in ("protocol", "development", "speed"), name
        assert r["status"] != "development" or r["reason"], name
        assert len(r["per_seed"]) == len(r["seeds"]) >= 3, name
        assert len(set(map(str, r["seeds"]))) == len(r["seeds"]), name
        assert r["mean"] == pytest.approx(statistics.fmean(r["per_seed"]), abs=1e-12), name
        assert r["sd"] == pytest.approx(statistics.stdev(r["per_seed"]), abs=1e-12), name
        assert (r["min"], r["max"]) == (min(r["per_seed"]), max(r["per_seed"])), name
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", r["date"]), name
        assert re.fullmatch(r"[0-9a-f]{7,40}", r["commit"]), name
        assert len(r["load_start"]) == len(r["load_end"]) == 3, name
        assert "bench/" in r["command"] and r["split"] and r["tuning"], name
        assert all(math.isfinite(v) for v in r["per_seed"]), name


def test_every_quote_is_the_record_at_its_rounding() -> None:
    found = records()
    seen = quotes()
    assert seen, "README.md and docs/ quote no published figure"
    for where, text, figure in seen:
        assert figure in found, f"{where}: {text} links to {figure}, which has no record"
        match = NUMBER.match(text.strip().replace(",", ""))
        assert match, f"{where}: the link text {text!r} to {figure} is not a figure"
        low, high, _unit = match.groups()
        r = found[figure]
        if high is None:
            assert within_rounding(low, r["mean"]), f"{where}: {text} vs {figure} mean {r['mean']}"
        else:
            assert within_rounding(low, r["min"]), f"{where}: {text} vs {figure} min {r['min']}"
            assert within_rounding(high, r["max"]), f"{where}: {text} vs {figure} max {r['max']}"


def test_the_readme_quotes_every_headline_figure() -> None:
    """Each record is quoted in README.md, but the baselines and the defaults' records of data sets that also have
    a per-seed tuned one."""
    quoted = {figure for where, _text, figure in quotes() if where == "README.md"}
    found = records()
    baselines = ("-freq-f1", "-freq-boundary-f1", "-adaptation-boundary-f1")
    headline = {name for name in found if not name.endswith(baselines)
                and not (name.endswith("-defaults") and name.removesuffix("-defaults") in found)}
    assert headline <= quoted, f"not quoted in README.md: {sorted(headline - quoted)}"


def test_the_defaults_are_what_the_tuning_printed_for_seed_0() -> None:
    """docs/evaluation.md, protocol step 1: the code's defaults are what the tuning script chose on seed 0's
    devtest part (the records of a per-seed tuning hold each seed's choice)."""
    found = records()
    tuned = [(key, script) for key, script in (("pku", "unspaced"), ("ja", "kana"))
             if f"segment-{key}-word-f1" in found]
    assert tuned, "no record of a per-seed tuning"
    for key, script in tuned:
        r = found[f"segment-{key}-word-f1"]
        chosen = r["chosen_per_seed"][0]
        defaults = DEFAULTS[script].as_dict()
        assert {k: defaults[k] for k in chosen} == chosen, key
        assert r["seed0_choice_equals_defaults"], key


def test_the_english_term_flags_are_what_the_tuning_chose_for_seed_0() -> None:
    """The flags docs/terms.md gives for English term lists (termx.defaults.TERMS_ENGLISH) are what
    bench/tune_terms.py chose on seed 0's development files, as bench/published_terms.py recorded it."""
    chosen = records()["terms-acter-corp-f1"]["chosen_per_seed"][0]
    assert records()["terms-acter-wind-f1"]["chosen_per_seed"][0] == chosen
    assert {k: TERMS_ENGLISH[k] for k in chosen if k != "dev_f1"} == {k: v for k, v in chosen.items() if k != "dev_f1"}

