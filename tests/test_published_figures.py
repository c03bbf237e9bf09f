"""Real-data regression tests: the published word-breaking and TBL figures that take a minute or less, re-computed
and compared with their records in bench/published/ (docs/figures.md), within the records' printed rounding.

Marked `slow` (deselect with `-m 'not slow'`). The data is found as bench/_data.py finds it ($TERMX_DATA, else
../shared/data next to the repository); every test skips when its file is absent, and fails instead under
TERMX_REQUIRE_DATA=1 (CI; the `shared_data` fixture of conftest.py). The loaders and the seeded
train/devtest/test split are the bench scripts' own (bench/_data.py, bench/tune_segment.py), so a test measures
exactly the documents the docs name. Tolerance: no wider than the rounding of the published figure (F1s and TBL
accuracies are printed to 4 decimals, so ±0.00005; the pipelines are deterministic).

What is re-computed: the code's defaults on the test parts of the three PKU and Japanese split seeds (the records
`segment-*-word-f1-defaults`; the per-seed tuned figures take half an hour a data set, so tests/test_figures_page.py
checks those records against the README and the defaults instead), the 1,634 Reuters stories indexed alone (a
cheap part of the Reuters experiment, whose full run takes a quarter of an hour), the man pages record's scored
pages, folds and paired tests against the data, with its `check` figure (the first 100 scored pages indexed alone,
written by the same run: the whole run takes a quarter of an hour), and the TBL learner's training
accuracies of `bench/bench_tbl.py` (the record `tbl-speedup-nltk`). They are development figures (docs/evaluation.md,
"The protocol"); these tests guard them against regressions.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy.engine import Engine

from termx.evaluation.metrics import micro_average
from termx.evaluation.splits import kfold
from termx.experiments.whitespace import Condition, run_whitespace, spaced_documents
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.corpora import drop_corpus
from termx.tbl import learn
from termx.tbl.segmentation import TAG_NAMES, bigram_baseline, encode_lines
from termx.wordbreak import Scorer
from termx.wordbreak.model import DEFAULTS

pytestmark = pytest.mark.slow

REPOSITORY = Path(__file__).resolve().parents[1]
F1_TOLERANCE = 0.00005
ACCURACY_TOLERANCE = 0.00005

# the files each test reads, under the shared data folder
PKU = "zh/sighan2005-pku/pku_test_gold.utf8"
JA = "ja/ud-japanese-gsd/ja_gsd-ud-dev.conllu"
REUTERS = "en/reuters21578.jsonl"
MANPAGES = "en/manpages.jsonl"

PUBLISHED = REPOSITORY / "bench" / "published"
REUTERS_ALONE_BOUNDARY_F1 = 0.9042  # the first 1,634 documents indexed alone, branching defaults (docs/segment.md)


def record(name: str) -> dict[str, Any]:
    """A published record (bench/_published.py)."""
    return json.loads((PUBLISHED / f"{name}.json").read_text(encoding="utf-8"))


def bench_modules():  # type: ignore[no-untyped-def]
    """bench/_data.py, bench/tune_segment.py and bench/bench_segment.py (they import each other by file name)."""
    sys.path.insert(0, str(REPOSITORY / "bench"))
    try:
        import _data
        import bench_segment
        import tune_segment
    finally:
        sys.path.remove(str(REPOSITORY / "bench"))
    return _data, tune_segment, bench_segment


@pytest.mark.parametrize("key", ["pku", "ja"])
def test_unspaced_test_split_word_f1(engine: Engine, shared_data: Callable[..., Path], key: str) -> None:
    """Branching with default flags, scored on each seed's test pseudo-documents only, equals the record of
    bench/published_segment.py; the defaults for the script (PKU: `unspaced`, Japanese: `kana`) are what
    tune_segment.py chose."""
    shared_data(PKU if key == "pku" else JA)
    data, tune, bench = bench_modules()
    published = record(f"segment-{key}-word-f1-defaults")
    lines = data.pku_gold_lines() if key == "pku" else data.ud_japanese_lines()
    options = bench.TUNED[key]
    defaults = DEFAULTS["unspaced" if key == "pku" else "kana"].as_dict()
    assert {k: defaults[k] for k in options} == options
    options = {}  # default flags
    corpus = f"published_{key}"
    try:
        report = run_whitespace(engine, [Document(f"l{n}", line) for n, line in enumerate(lines)], corpus,
                                unit=Unit.char, condition=Condition.raw, lines_per_doc=tune.PER_DOC,
                                scorers=[Scorer.branching], options={"branching": options}, replace=True)
    finally:
        drop_corpus(engine, corpus)
    result = next(r for r in report.results if r.scorer == "branching")
    assert published["parameters"] == defaults
    for seed, figure in zip(published["seeds"], published["per_seed"], strict=True):
        _spaced, dev, test, _unit, _cond = tune.documents(key, seed, 300, 0.25)
        assert not set(dev) & set(test)
        word = micro_average([result.per_document[k]["word"] for k in test])
        assert word.f1 == pytest.approx(figure, abs=F1_TOLERANCE), (seed, word.f1)


def test_reuters_evaluation_documents_alone(engine: Engine, shared_data: Callable[..., Path]) -> None:
    """The first 1,634 Reuters documents (by newid) indexed alone, `alnum`, branching with its defaults."""
    shared_data(REUTERS)
    data, tune, _bench = bench_modules()
    corpus = "published_reuters_alone"
    try:
        report = run_whitespace(engine, data.reuters_documents()[:tune.REUTERS_TEST], corpus,
                                scorers=[Scorer.branching], replace=True)
    finally:
        drop_corpus(engine, corpus)
    result = next(r for r in report.results if r.scorer == "branching")
    assert report.eval_documents == 1634
    assert result.boundary.f1 == pytest.approx(REUTERS_ALONE_BOUNDARY_F1, abs=F1_TOLERANCE), result.boundary.f1


def test_manpages_record_and_check_figure(engine: Engine, shared_data: Callable[..., Path]) -> None:
    """The man pages record of bench/published_segment.py --data manpages: its scored pages, characters and folds
    are what the data and the seeded split give, branching is tested against each dictionary peer, and the first
    100 scored pages indexed alone (`alnum`, branching with its defaults) give the `check` figure the same run
    wrote (the whole run takes half an hour: the peers segment a few thousand characters a second)."""
    shared_data(MANPAGES)
    data, _tune, _bench = bench_modules()
    published = record("whitespace-manpages-boundary-f1")
    pages = data.manpage_documents()
    scored = sorted(kfold(list(range(len(pages))), k=3, seed=0)[0].test)
    spaced = spaced_documents([pages[k] for k in scored], Condition.alnum)
    assert [d.name for d in spaced] == published["scored_pages"]
    assert (len(spaced), sum(len(d.text) for d in spaced)) == (published["documents"], published["characters"])
    assert [len(f.test) for f in kfold(list(range(len(spaced))), k=3, seed=0)] == published["fold_documents"]
    assert published["parameters"] == DEFAULTS["spaced"].as_dict()
    tests = published["paired_tests"]
    assert sorted((t["B"], t["test"]) for t in tests if t["A"] == "branching") == [
        (peer, test) for peer in ("instant-segment", "symspellpy", "wordninja") for test in ("sign", "wilcoxon")]
    check = published["check"]
    by_name = {p.name: p for p in pages}
    corpus = "published_manpages_check"
    try:
        report = run_whitespace(engine, [by_name[name] for name in check["pages"]], corpus,
                                scorers=[Scorer.branching], replace=True)
    finally:
        drop_corpus(engine, corpus)
    result = next(r for r in report.results if r.scorer == "branching")
    assert report.characters == check["characters"]
    assert result.boundary.f1 == pytest.approx(check["boundary_f1"], abs=F1_TOLERANCE), result.boundary.f1


def test_tbl_bigram_baseline_figure(shared_data: Callable[..., Path]) -> None:
    """docs/tbl.md: 100,042 tags of the first Reuters lines, 50 rules, training accuracy .9092 -> .9293, as the
    record of bench/bench_tbl.py --publish says."""
    shared_data(REUTERS)
    published = record("tbl-speedup-nltk")
    data, _tune, _bench = bench_modules()
    enc = encode_lines(data.reuters_first_lines(100_000))
    init = bigram_baseline(enc.tokens, enc.tags, enc.lengths)
    model = learn(enc.tokens, enc.tags, init, enc.lengths, max_rules=50, min_score=2, tag_names=TAG_NAMES,
                  token_kind="char")
    assert enc.tokens.size == 100_042
    assert float(np.mean(init == enc.tags)) == pytest.approx(0.9092, abs=ACCURACY_TOLERANCE)
    assert float(np.mean(init == enc.tags)) == pytest.approx(published["accuracy_before"], abs=1e-12)
    assert len(model.rules) == published["rules"] == 50
    assert model.accuracy_after == pytest.approx(0.9293, abs=ACCURACY_TOLERANCE)
    assert model.accuracy_after == pytest.approx(published["accuracy_after"], abs=1e-12)
