"""Term extraction and word breaking on corpora of several shards.

terms: the candidates are the union of the shards' candidate strings, each listed once with freq and df_k summed
over every shard (equal to the one-shard build's statistics of that string), ranked in the documented total order;
strings that both lists hold rank alike; --append in steps equals one build. segment: the output on a k-shard
corpus equals the one-shard corpus's.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from termx.cli import app
from termx.defaults import Ranking
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.lookup import find_in_shards
from termx.poisson import length_aware_poisson_adaptation
from termx.storage.executors import pool_runner
from termx.storage.index_loader import load_shards
from termx.storage.shards import save_shards
from termx.terms import extract_terms
from termx.terms.candidates import NULL_BINS, P0_CEILING
from termx.wordbreak import Scorer, Segmenter
from termx.wordbreak.corpus_index import merged_index

from .oracle import documents
from .test_shards import _docs as shard_docs
from .test_shards import _groups as cut_groups
from .test_shards import _name, cut_points

KMAX = 3
IN_PROCESS = pool_runner(1)
RANKINGS = (Ranking.adaptation, Ranking.poisson, Ranking.ridf, Ranking.freq, Ranking.df)
ALL = {"top": 100_000, "min_df": 1, "min_len": 1}
fast = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
runner = CliRunner()


def _groups(texts: list[str], cuts: list[int]) -> list[list[Document]]:
    return cut_groups(shard_docs(texts), cuts)


def _build(engine: Engine, groups: list[list[Document]], unit: Unit) -> str:
    name = _name()
    save_shards(engine, name, groups, unit, KMAX, runner=IN_PROCESS)
    return name


def _score(rank: Ranking, freq: int, df: list[int], documents: int, p0: float) -> float:
    """The rankings' formulas (docs/terms.md), recomputed from a row's freq and df."""
    if rank is Ranking.adaptation:
        return (df[1] + 0.5) / (df[0] + 1)
    if rank is Ranking.freq:
        return float(freq)
    if rank is Ranking.df:
        return float(df[0])
    if rank is Ranking.ridf:
        return math.log2(documents / df[0]) + math.log2(1 - math.exp(-freq / documents))
    x, n, e = df[1], df[0], df[0] * p0
    g2 = 2 * ((x * math.log(x / e) if x > 0 else 0) + ((n - x) * math.log((n - x) / (n - e)) if n > x else 0))
    return math.copysign(g2, x - e) if x != e else 0.0


def _check_terms(engine: Engine, texts: list[str], cuts: list[int], unit: Unit) -> None:
    groups = _groups(texts, cuts)
    one, many = _build(engine, [[d for g in groups for d in g]], unit), _build(engine, groups, unit)
    single = load_shards(engine, one)
    doc_len = single[0].doc_len
    for rank in RANKINGS:
        whole, sharded = extract_terms(engine, one, rank, **ALL), extract_terms(engine, many, rank, **ALL)
        terms = [r["term"] for r in sharded]
        assert len(set(terms)) == len(terms), "a string is listed once, whatever the shards that hold it"
        for row in sharded:
            freq, df, _ = find_in_shards(single, row["term"])
            assert (row["freq"], row["df"]) == (freq, df), (row, groups)
            p0 = float(np.minimum(length_aware_poisson_adaptation(np.array([freq]), doc_len, NULL_BINS),
                                  P0_CEILING)[0])
            assert math.isclose(row["score"], _score(rank, freq, df, len(texts), p0), rel_tol=1e-9, abs_tol=1e-9)
        keys = [(-r["score"], -r["freq"], r["term"]) for r in sharded]
        assert keys == sorted(keys), "score desc, freq desc, term in C collation (code point order)"
        assert [r["rank"] for r in sharded] == list(range(1, len(sharded) + 1))
        common = set(terms) & {r["term"] for r in whole}
        by_term = {r["term"]: r for r in whole}
        assert [r["term"] for r in sharded if r["term"] in common] == \
            [r["term"] for r in whole if r["term"] in common], "strings both lists hold rank in the same order"
        for row in sharded:
            if row["term"] in common:
                assert math.isclose(row["score"], by_term[row["term"]]["score"], rel_tol=1e-9, abs_tol=1e-12)
        if len(groups) == 1:
            assert sharded == whole


# spaced byte text (the whole-word rule of candidates) and words that make terms
TERM_SYMBOLS = {Unit.byte: "ab c", Unit.char: None, Unit.word: ["wind", "cat", "farm", ".", "blade"]}


@pytest.mark.parametrize("unit", list(Unit))
@fast
@given(data=st.data(), cuts=cut_points)
def test_terms_of_shards_are_summed_and_ranked(engine: Engine, unit: Unit, data: st.DataObject,
                                               cuts: list[int]) -> None:
    _check_terms(engine, data.draw(documents(unit, max_docs=7, symbols=TERM_SYMBOLS[unit])), cuts, unit)


def _both(engine: Engine, texts: list[str], cuts: list[int]) -> tuple[dict[str, dict], dict[str, dict]]:  # type: ignore[type-arg]
    """freq-ranked terms of one shard and of the shards cut at `cuts`, by term."""
    groups = _groups(texts, cuts)
    one, many = _build(engine, [[d for g in groups for d in g]], Unit.byte), _build(engine, groups, Unit.byte)
    return ({r["term"]: r for r in extract_terms(engine, one, Ranking.freq, **ALL)},
            {r["term"]: r for r in extract_terms(engine, many, Ranking.freq, **ALL)})


def test_the_candidates_are_the_union_of_the_shards_candidates(engine: Engine) -> None:
    """The union of the shards' candidates, not the one-shard build's: "turbine" follows "wind" in every
    occurrence of the first shard and "big" in the second, so it is left-maximal only in all documents together,
    and "one" occurs once per shard (no class). A candidate of one shard counts where it occurs once."""
    whole, sharded = _both(engine, ["a wind turbine", "one wind turbine", "a big turbine", "one big turbine"], [2])
    assert {"turbine", "one"} <= whole.keys() and sharded.keys() == {"wind turbine", "big turbine"}
    whole, sharded = _both(engine, ["a wind turbine", "one wind turbine", "a big turbine", "one big turbine",
                                    "the wind turbine"], [2])
    assert sharded["wind turbine"]["freq"] == whole["wind turbine"]["freq"] == 3  # once in the second shard
    assert sharded["wind turbine"]["df"] == whole["wind turbine"]["df"] == [3, 0, 0]
    assert "one" in whole and "one" not in sharded


def test_a_shards_candidate_must_be_whole_words_half_the_time_in_the_corpus(engine: Engine) -> None:
    """"one" is a whole word in the first shard (its candidate there), but inside a word in 4 of its 6
    occurrences overall, so the corpus does not list it (nor does the one-shard build); "day" stays."""
    whole, sharded = _both(engine, ["one day", "one way day", "money", "honey", "phone", "done"], [2])
    assert "one" not in whole and "one" not in sharded
    assert sharded["day"] == whole["day"]


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.lists(st.sampled_from(["wind", "cat", "farm", "!", "blade", "zebra"]), min_size=1,
                               max_size=6).map(" ".join), min_size=2, max_size=7), cuts=cut_points,
       unit=st.sampled_from(list(Unit)))
def test_terms_after_append_in_steps_equal_one_build(engine: Engine, texts: list[str], cuts: list[int],
                                                     unit: Unit) -> None:
    """Terms asked after every step (so the stored candidates must follow each --append) equal one build."""
    groups = _groups(texts, cuts)
    built, grown = _build(engine, groups, unit), _name()
    save_shards(engine, grown, [groups[0]], unit, KMAX, runner=IN_PROCESS)
    extract_terms(engine, grown, Ranking.adaptation, **ALL)
    for group in groups[1:]:
        save_shards(engine, grown, [group], unit, KMAX, append=True, runner=IN_PROCESS)
        extract_terms(engine, grown, Ranking.freq, **ALL)
    for rank in RANKINGS:
        assert extract_terms(engine, grown, rank, **ALL) == extract_terms(engine, built, rank, **ALL), rank


def test_specificity_sums_over_the_shards_of_corpus_and_reference(engine: Engine) -> None:
    texts = ["wind farm blade", "wind farm", "the blade of a wind farm", "farm blade wind", "a wind farm blade"]
    ref_texts = ["the farm", "a wind", "the wind farm", "blade blade", "wind farm"]
    many, ref = _build(engine, _groups(texts, [1, 3]), Unit.byte), _build(engine, _groups(ref_texts, [2]), Unit.byte)
    reference = load_shards(engine, ref)
    rows = extract_terms(engine, many, Ranking.specificity, reference=ref, **ALL)
    assert rows
    for row in rows:
        freq, df, _ = find_in_shards(reference, row["term"])
        assert (row["ref_freq"], row["ref_df"]) == (freq, df[0]), row


def _segmenters(engine: Engine, texts: list[str], cuts: list[int], unit: Unit, scorer: Scorer
                ) -> tuple[Segmenter, Segmenter]:
    groups = _groups(texts, cuts)
    one, many = _build(engine, [[d for g in groups for d in g]], unit), _build(engine, groups, unit)
    single = load_shards(engine, one)[0]
    merged = merged_index(load_shards(engine, many))
    for array in ("tokens", "sa", "doc_start", "doc_len", "lcp", "cls_i", "cls_j", "cls_lbl", "cls_sil", "cls_df"):
        assert np.array_equal(getattr(merged, array), getattr(single, array)), array
    options = {"window": 3} if scorer is Scorer.branching else {}
    return Segmenter(single, scorer, 6, options), Segmenter(merged, scorer, 6, options)


@fast
@given(texts=st.lists(st.text(alphabet="abc日", min_size=2, max_size=14), min_size=2, max_size=7), cuts=cut_points,
       unit=st.sampled_from([Unit.byte, Unit.char]),
       scorer=st.sampled_from([s for s in Scorer if s is not Scorer.words]),  # words reads no index's candidates
       new=st.text(alphabet="abcd日", max_size=12))
def test_segment_of_shards_equals_one_shard(engine: Engine, texts: list[str], cuts: list[int], unit: Unit,
                                            scorer: Scorer, new: str) -> None:
    whole, sharded = _segmenters(engine, texts, cuts, unit, scorer)
    lines = [*texts, new]
    assert sharded.segment_lines(lines) == whole.segment_lines(lines)
    spans = [(int(s), int(s + n)) for s, n in zip(whole.index.doc_start, whole.index.doc_len, strict=True)]
    assert [c.tolist() for c in sharded.corpus_spans(spans)] == [c.tolist() for c in whole.corpus_spans(spans)]


def test_cli_terms_and_segment_on_a_corpus_of_shards(engine: Engine, db_env: str) -> None:
    texts = ["thecatsatonthemat" * 3, "thecatatetherat" * 2, "aratsatonthecat" * 2, "thematwasflat" * 2]
    one, many = _build(engine, [_groups(texts, [])[0]], Unit.char), _build(engine, _groups(texts, [1, 2]), Unit.char)
    out = {}
    for name in (one, many):
        res = runner.invoke(app, ["segment", name, "--format", "json", "--quiet"], input="thecatonthemat\nratsat\n")
        assert res.exit_code == 0, res.output
        out[name] = [r["words"] for r in json.loads(res.stdout)]
    assert out[many] == out[one]
    res = runner.invoke(app, ["terms", many, "--format", "json", "--min-df", "1", "--min-len", "1"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)[0].keys() == {"rank", "term", "score", "freq", "df", "len"}


def test_a_stored_segment_model_follows_an_append(engine: Engine) -> None:
    """The branching model stored for a corpus is retrained after an --append, and equals one build's."""
    from termx.wordbreak.corpus_model import segment_model

    texts = ["thecatsatonthemat" * 3, "thecatatetherat" * 2, "aratsatonthecat" * 2, "thematwasflat" * 2]
    groups = _groups(texts, [2])
    built, grown = _build(engine, groups, Unit.byte), _name()
    save_shards(engine, grown, [groups[0]], Unit.byte, KMAX, runner=IN_PROCESS)
    assert segment_model(engine, grown)[1] == "trained"
    save_shards(engine, grown, [groups[1]], Unit.byte, KMAX, append=True, runner=IN_PROCESS)
    model, source = segment_model(engine, grown)
    assert source == "trained"
    lines = ["thecatonthemat", "ratsatflat"]
    assert model.segment_lines(lines) == segment_model(engine, built)[0].segment_lines(lines)
