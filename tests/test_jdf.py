"""Exact jdf against brute force (three units), the contingency table, the measures, and the CLI contract."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from typer.testing import CliRunner

from termx.cli import app
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.jdf.measures import association, chi2_1_sf
from termx.jdf.pairs import Part, jdf_pairs
from termx.storage.indexer import index_documents
from tests.jdf_oracle import brute_documents, loaded

TEXTS = st.lists(st.text(alphabet="ab_c", min_size=1, max_size=12), min_size=1, max_size=6)


def _pattern(texts: list[str], draw_doc: int, start: int, length: int) -> str:
    t = texts[draw_doc % len(texts)]
    s = start % len(t)
    return t[s: s + 1 + length % 4]


@settings(max_examples=60, deadline=None)
@given(TEXTS, st.sampled_from(list(Unit)), st.lists(st.tuples(st.integers(0, 9), st.integers(0, 20),
                                                              st.integers(0, 5)), min_size=2, max_size=6))
def test_exact_jdf_equals_brute_force(texts: list[str], unit: Unit, picks: list[tuple[int, int, int]]) -> None:
    if unit is Unit.word:
        texts = [t.replace("_", " ") for t in texts]
    if not any(t.strip() for t in texts) and unit is Unit.word:
        return
    index = loaded(texts, unit)
    patterns = [p for p in (_pattern(texts, *pk) for pk in picks) if p.strip()] + ["abcab"]
    if len(patterns) < 2:
        return
    rows = jdf_pairs([Part(index)], patterns[0], patterns[1:])
    x_docs = brute_documents(texts, unit, patterns[0])
    for row, y in zip(rows, patterns[1:], strict=True):
        y_docs = brute_documents(texts, unit, y)
        assert (row["df_x"], row["df_y"], row["jdf"]) == (len(x_docs), len(y_docs), len(x_docs & y_docs))
        assert sum(row["table"].values()) == row["documents"] == len(texts)
        assert min(row["table"].values()) >= 0
        assert row["method"] == "exact"


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 60), st.integers(1, 60), st.integers(0, 60), st.integers(61, 200))
def test_measures_against_scipy(df_x: int, df_y: int, a: int, d: int) -> None:
    a = min(a, df_x, df_y)
    a = max(a, df_x + df_y - d)
    m = association(df_x, df_y, a, d)
    t = m["table"]
    observed = np.array([[t["x_and_y"], t["x_only"]], [t["y_only"], t["neither"]]])
    assert observed.sum() == d and observed.min() >= 0
    g, p, _, _ = sps.chi2_contingency(observed, correction=False, lambda_="log-likelihood")
    assert m["g2"] == pytest.approx(g, abs=1e-9)
    assert m["p_value"] == pytest.approx(p, abs=1e-9)
    assert m["lift"] == pytest.approx(a * d / (df_x * df_y))
    assert m["dice"] == pytest.approx(2 * a / (df_x + df_y))
    assert (m["pmi"] is None) == (a == 0)
    if a:
        assert m["pmi"] == pytest.approx(math.log2(m["lift"]))


def test_chi2_tail() -> None:
    for x in (0.0, 0.5, 3.841458820694124, 10.0):
        assert chi2_1_sf(x) == pytest.approx(sps.chi2.sf(x, 1), abs=1e-12)


def test_undefined_and_same_string() -> None:
    index = loaded(["Hi_Ho_Hi_Ho", "Hi_Ho", "Hi"], Unit.byte)
    zz, same = jdf_pairs([Part(index)], "Ho", ["zz", "Ho"])
    assert (zz["jdf"], zz["pmi"], zz["g2"], zz["p_value"]) == (0, None, None, None)
    assert "does not occur" in zz["note"]
    assert same["jdf"] == same["df_x"] == 2 and "same string" in same["note"]


@pytest.fixture
def hiho(engine, db_env):  # type: ignore[no-untyped-def]
    docs = [Document(str(n), t) for n, t in enumerate(["Hi_Ho_Hi_Ho", "Hi_Ho", "Hi"], 1)]
    index_documents(engine, "c_hiho", docs, Unit.byte, replace=True)
    return engine


def test_cli_contract_example(hiho) -> None:  # type: ignore[no-untyped-def]
    runner = CliRunner()
    r = runner.invoke(app, ["jdf", "c_hiho", "Ho", "i", "--exact", "--format", "json"])
    assert r.exit_code == 0, r.output
    row = json.loads(r.stdout)[0]
    assert (row["df_x"], row["df_y"], row["jdf"], row["documents"]) == (2, 3, 2, 3)
    for key in ("x", "y", "pmi", "dice", "g2", "p_value", "method"):
        assert key in row
    r = runner.invoke(app, ["jdf", "c_hiho", "Ho", "i", "--sketch"])
    assert r.exit_code == 1 and "no sketches" in r.stderr
    r = runner.invoke(app, ["jdf", "c_hiho", "Ho", "i", "--exact", "--sketch"])
    assert r.exit_code == 1 and r.stderr.startswith("Error:")


def test_cli_sketch_fallback_below_threshold(hiho) -> None:  # type: ignore[no-untyped-def]
    runner = CliRunner()
    r = runner.invoke(app, ["sketch", "c_hiho", "--threshold", "3", "--k", "2", "-q"])
    assert r.exit_code == 0, r.output
    rows = json.loads(runner.invoke(app, ["jdf", "c_hiho", "H", "Ho", "i", "--sketch", "-f", "json"]).stdout)
    ho, i = rows
    assert ho["method"] == "exact" and "below the sketch threshold" in ho["note"] and ho["jdf"] == 2
    assert i["method"] == "sketch" and i["interval"][0] <= i["jdf"] <= i["interval"][1]
    assert i["stderr"] is not None


def test_sql_jdf_matches_python(hiho) -> None:  # type: ignore[no-untyped-def]
    import sqlalchemy as sa

    from termx.jdf.pairs import load_parts

    parts = load_parts(hiho, "c_hiho", with_sketches=False)
    for x, y in (("Ho", "i"), ("H", "_"), ("Ho_Hi_Ho", "Hi"), ("Ho", "zz"), ("i_", "o")):
        py = jdf_pairs(parts, x, [y])[0]
        with hiho.connect() as conn:
            row = conn.execute(sa.text("SELECT * FROM termx.jdf('c_hiho', :x, :y)"), {"x": x, "y": y}).mappings().one()
        assert (row["df_x"], row["df_y"], row["jdf"], row["documents"]) == \
            (py["df_x"], py["df_y"], py["jdf"], py["documents"])
        assert row["x_and_y"] + row["x_only"] + row["y_only"] + row["neither"] == row["documents"]
        for key in ("pmi", "dice", "lift", "g2", "p_value"):
            assert (row[key] is None) == (py[key] is None)
            if py[key] is not None:
                assert row[key] == pytest.approx(py[key], rel=1e-6, abs=1e-6)
