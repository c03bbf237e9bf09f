"""The adaptation studies on hand-worked examples: freq* bins, method-1 tables, Pr(k) summaries, plots, CLI."""

from __future__ import annotations

import json
import math
import uuid
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats as sstats
from typer.testing import CliRunner

from termx.cli import app
from termx.errors import TermxError
from termx.index.ingest import Document
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.lookup import find_class
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents
from termx.storage.sqlfiles import run_sql
from termx.studies.adaptation import adapt_rows, contingency
from termx.studies.crossval import collection_halves, crossval_bins, half_statistics
from termx.studies.distribution import dist_row, distribution
from termx.studies.priming import priming_rows

runner = CliRunner()
PNG = b"\x89PNG\r\n\x1a\n"


def _build(engine, texts: list[str], unit: Unit = Unit.byte, max_k: int = 4) -> LoadedIndex:  # type: ignore[no-untyped-def]
    name = f"st-{uuid.uuid4().hex[:10]}"
    index_documents(engine, name, [Document(f"d{n}", t) for n, t in enumerate(texts)], unit, max_k)
    return load_index(engine, name)


@pytest.fixture(scope="module")
def hiho(engine) -> LoadedIndex:  # type: ignore[no-untyped-def]
    return _build(engine, ["Hi_Ho_Hi_Ho", "Hi_Ho", "Hi"])


def test_halves_are_a_prefix_of_documents_holding_half_the_tokens() -> None:
    assert collection_halves(np.array([4, 2, 1])).tolist() == [0, 1, 1]     # 4 >= 7/2
    assert collection_halves(np.array([1, 2, 1])).tolist() == [0, 0, 1]     # 3 >= 2
    assert collection_halves(np.array([1, 1, 1, 1])).tolist() == [0, 0, 1, 1]
    assert collection_halves(np.array([5])).tolist() == [0]


def test_freq_star_by_hand(engine) -> None:  # type: ignore[no-untyped-def]
    """abab | ab, b: half 1 = abab. a, b, ab occur twice there (one document) and 1, 2, 1 times in half 2:
    freq* = 4/3 over 3 strings in 2 classes ({a, ab}, {b}); ba, aba, bab, abab occur once, never in half 2:
    freq* = 0 over 4 strings in 2 trivial classes ({aba, abab}, {ba, bab})."""
    index = _build(engine, ["abab", "ab", "b"])
    assert crossval_bins(half_statistics(index)).rows() == [
        {"freq": 1, "df": 1, "freq_star": 0.0, "n": 4, "classes": 2},
        {"freq": 2, "df": 1, "freq_star": 4 / 3, "n": 3, "classes": 2}]
    by_freq = crossval_bins(half_statistics(index), "freq").rows()
    assert [(r["freq"], r["df"], r["n"]) for r in by_freq] == [(1, None, 4), (2, None, 3)]


def test_freq_star_depends_on_df_by_hand(engine) -> None:  # type: ignore[no-untyped-def]
    """x twice in one document vs y once in each of two: in half 2, x's document type is gone, y's is back."""
    index = _build(engine, ["x.x", "y", "y", "pqrstu", "y", "y"], Unit.char)  # half 1: the first four
    rows = {(r["freq"], r["df"]): r for r in crossval_bins(half_statistics(index)).rows()}
    assert rows[(2, 1)]["freq_star"] == 0.0      # x: twice in doc 0, never in half 2
    assert rows[(2, 2)]["freq_star"] == 2.0      # y: docs 1, 2 in half 1; docs 3, 4 in half 2


def test_contingency_by_hand(hiho) -> None:  # type: ignore[no-untyped-def]
    """Histories Hi_Ho, Hi, H; tests _Hi_Ho, _Ho, i (history = first floor(n/2) tokens)."""
    want = {"Hi": (1, 1, 0, 1), "Ho": (1, 0, 1, 1), "H": (2, 1, 0, 0), "i": (1, 1, 1, 0), "_H": (1, 0, 1, 1),
            "Hi_Ho": (1, 0, 0, 2), "i_": (1, 0, 0, 2), "zz": (0, 0, 0, 3)}
    for pattern, counts in want.items():
        t = contingency(hiho, pattern)
        assert (t.a, t.b, t.c, t.d) == counts, pattern
    row = adapt_rows(hiho, ["Hi"])[0]
    assert (row["p_adapt"], row["prior"], row["p_neg_adapt"], row["adaptation"]) == (0.5, 1 / 3, 0.0, 1 / 3)
    assert adapt_rows(hiho, ["o_"])[0]["p_adapt"] is None  # never wholly inside a history


def test_priming_by_hand(engine) -> None:  # type: ignore[no-untyped-def]
    """d0's history is nearest to d1 (shared rare word 'cat'): 'dog' is Near for d0 and in its test."""
    index = _build(engine, ["cat sat x dog", "cat dog y z", "bird fly q r"], Unit.word)
    [row] = priming_rows(index, ["dog"], 1)
    # hist: d1 ("cat dog"); near: d0 (neighbour d1 has dog) and d2 (neighbour d0 or d1 has dog)
    assert (row["hist"], row["near"], row["other"]) == (1, 2, 0)
    assert row["p_test_hist"] == 0.0 and row["p_test_near"] == 0.5 and row["prior"] == 1 / 3


def _per_doc_counts(texts: list[str], pattern: str) -> list[int]:
    return [sum(1 for s in range(len(t)) if t.startswith(pattern, s)) for t in texts]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.text(alphabet="ab", min_size=2, max_size=12), min_size=1, max_size=6),
       pattern=st.sampled_from(["a", "b", "ab", "aa", "ba"]))
def test_pr_k_against_per_document_counts(engine, texts: list[str], pattern: str) -> None:  # type: ignore[no-untyped-def]
    index = _build(engine, texts, Unit.byte, 3)
    match = find_class(index, pattern)
    counts = _per_doc_counts(texts, pattern)
    n_docs, big_k = len(texts), 3
    dist = distribution(match.freq, match.df, n_docs)
    hist = Counter(counts)
    assert dist.pr.tolist() == pytest.approx([hist[k] / n_docs for k in range(big_k)])
    assert dist.tail == pytest.approx(sum(1 for c in counts if c >= big_k) / n_docs)
    assert dist.mean == pytest.approx(sum(counts) / n_docs)
    if max(counts) < big_k:  # no tail: variance and entropy are exact
        assert dist.variance == pytest.approx(float(np.var(counts)))
        assert dist.entropy == pytest.approx(-sum(c / n_docs * math.log2(c / n_docs) for c in hist.values()))
    else:  # the geometric tail keeps the total exact: E[k] over the model equals the mean
        mu = dist._tail_geometric()
        assert sum(k * p for k, p in enumerate(dist.pr)) + dist.tail * (big_k + mu) == pytest.approx(dist.mean)
    row = dist_row(pattern, match.freq, match.df, n_docs)
    if match.freq:
        lam = match.freq / n_docs
        probs = [sstats.poisson.pmf(k, lam) for k in range(big_k)]
        cells = [hist[k] for k in range(big_k)] + [sum(1 for c in counts if c >= big_k)]
        want = sum(n * math.log(p) for n, p in zip(cells, [*probs, 1 - sum(probs)], strict=True) if n)
        assert row["poisson_ll"] == pytest.approx(want)
        assert row["nb_ll"] >= row["poisson_ll"] - 1e-6  # Poisson is the limit r -> inf of the negative binomial
        if row["katz_alpha"] is not None:  # Katz's K-mixture keeps Pr(k >= 1) = df / D
            a, b = row["katz_alpha"], row["katz_beta"]
            assert a * b / (b + 1) == pytest.approx(match.df[0] / n_docs)


def _run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args))


def test_cli_crossval_stores_bins_and_plots(engine, db_env, hiho, tmp_path) -> None:  # type: ignore[no-untyped-def]
    name = hiho.corpus.name
    r = _run("crossval", name, "--format", "json")
    assert r.exit_code == 0, r.output
    bins = json.loads(r.stdout)
    assert {"freq", "df", "freq_star", "n", "classes"} <= set(bins[0])
    r = _run("crossval", name, "--freq", "2", "--format", "json", "--plot", str(tmp_path / "cv.png"))
    assert r.exit_code == 0, r.output
    assert {b["freq"] for b in json.loads(r.stdout)} == {2}
    png = (tmp_path / "cv.png").read_bytes()
    assert png.startswith(PNG) and len(png) > 1000
    stored = run_sql(engine, "crossval_bins", {"corpus": name, "freq": "2"})
    assert [(s["df"], s["n"], s["classes"]) for s in stored] == [(b["df"], b["n"], b["classes"]) for b in bins
                                                                if b["freq"] == 2]


def test_cli_adapt_contract_summary_and_plots(db_env, hiho, tmp_path) -> None:  # type: ignore[no-untyped-def]
    name = hiho.corpus.name
    r = _run("adapt", name, "Hi", "Ho", "--method", "both", "--format", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert [(x["a"], x["b"], x["c"], x["d"]) for x in rows] == [(1, 1, 0, 1), (1, 0, 1, 1)]
    assert rows[0]["df"] == [3, 1, 0, 0] and rows[0]["adaptation"] == pytest.approx(1 / 3)
    r = _run("adapt", name, "Hi", "--method", "2", "--format", "json")
    assert set(json.loads(r.stdout)[0]) == {"pattern", "adaptation", "df"}
    r = _run("adapt", name, "--min-df", "1", "--format", "json", "--plot", str(tmp_path / "ag.png"))
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)[0]
    # by hand (the oracle's rules): 18 strings occur wholly inside a history or a test; _Hi, _Hi_, _Hi_H, _Hi_Ho
    # only in tests (undefined); the other 14 have both estimates > 0: H 2/3 vs 2/3, Hi and i 1/2 vs 1/3, and 11
    # strings 1 vs 1/2, a ratio of exactly 2, which counts as within 2
    assert {k: summary[k] for k in ("strings", "undefined", "both_zero", "one_zero", "compared", "within_2",
                                    "within_3", "share_within_2")} == {
        "strings": 18, "undefined": 4, "both_zero": 0, "one_zero": 0, "compared": 14, "within_2": 14,
        "within_3": 14, "share_within_2": 1.0}
    assert (tmp_path / "ag.png").read_bytes().startswith(PNG)
    r = _run("adapt", name, "--shape", "--format", "json", "--plot", str(tmp_path / "shape.png"))
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)[0]["strings_of"] == "all"
    assert (tmp_path / "shape.png").read_bytes().startswith(PNG)


def test_cli_stats_dist(db_env, hiho) -> None:  # type: ignore[no-untyped-def]
    r = _run("stats", hiho.corpus.name, "H", "zz", "--dist", "--format", "json")
    assert r.exit_code == 0, r.output
    h, zz = json.loads(r.stdout)
    assert h["pr_k"] == pytest.approx([0, 1 / 3, 1 / 3, 0]) and h["pr_tail"] == pytest.approx(1 / 3)
    assert h["mean"] == pytest.approx(7 / 3)
    # H occurs 1, 2 and 4 times in the three documents (cells k = 1, 2 and the tail k >= 4), λ = 7/3
    poisson = math.log(sstats.poisson.pmf(1, 7 / 3) * sstats.poisson.pmf(2, 7 / 3)
                       * sstats.poisson.sf(3, 7 / 3))
    assert h["poisson_lambda"] == pytest.approx(7 / 3) and h["poisson_ll"] == pytest.approx(poisson)
    # Katz: β = (7 - 3)/3, α = λ/β = 7/4; Pr(0) = 0, Pr(k) = 3/4 (4/7)^k, the tail 1 - 3/7 - 12/49 - 48/343
    assert (h["katz_alpha"], h["katz_beta"]) == pytest.approx((7 / 4, 4 / 3))
    assert h["katz_ll"] == pytest.approx(math.log(3 / 7 * 12 / 49 * 64 / 343))
    # the negative binomial nests the Poisson (r → ∞) and cannot beat the saturated fit (each cell 1/3)
    assert poisson - 1e-9 <= h["nb_ll"] <= 3 * math.log(1 / 3)
    # AIC (1, 2, 2 parameters): Poisson 10.78, Katz 11.87, negative binomial 12.69: the smallest is best
    assert 2 - 2 * poisson < 4 - 2 * h["katz_ll"] < 4 - 2 * h["nb_ll"]
    assert h["best"] == "poisson"
    assert zz["freq"] == 0 and zz["pr_k"][0] == 1.0


def test_plot_without_matplotlib_is_one_line(db_env, hiho, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    r = _run("crossval", hiho.corpus.name, "--plot", str(tmp_path / "x.png"))
    assert r.exit_code == 1
    assert r.stderr.strip().count("\n") == 0 and "matplotlib" in r.stderr and "termx[plot]" in r.stderr
    assert not (tmp_path / "x.png").exists()
    from termx.studies.plots import require_matplotlib

    with pytest.raises(TermxError):
        require_matplotlib()


def test_unknown_corpus_is_one_line_error(db_env) -> None:  # type: ignore[no-untyped-def]
    for args in (("crossval", "nope-none"), ("adapt", "nope-none", "x")):
        r = _run(*args)
        assert r.exit_code == 1 and r.stderr.startswith("Error:") and "Traceback" not in r.output


def test_stored_bins_go_with_the_corpus(engine, db_env) -> None:  # type: ignore[no-untyped-def]
    import sqlalchemy as sa

    from termx.storage.corpora import drop_corpus

    index = _build(engine, ["abab", "ab", "b"])
    assert _run("crossval", index.corpus.name).exit_code == 0
    count = sa.text("SELECT count(*) FROM termx.crossval_bin WHERE corpus_id = :c")
    with engine.connect() as conn:
        assert conn.execute(count, {"c": index.corpus.id}).scalar() == 2
    assert _run("crossval", index.corpus.name).exit_code == 0  # a rerun replaces, never duplicates
    with engine.connect() as conn:
        assert conn.execute(count, {"c": index.corpus.id}).scalar() == 2
    drop_corpus(engine, index.corpus.name)
    with engine.connect() as conn:
        assert conn.execute(count, {"c": index.corpus.id}).scalar() == 0
