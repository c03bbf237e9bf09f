"""Long work reports progress: word-breaking training, the TBL learner and the white space experiment tell a
termx.progress.Progress each stage's total and advance to it; the CLI draws the bars on a terminal."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from termx.cli import app
from termx.cli.progress_display import RichProgress
from termx.defaults import Scorer
from termx.experiments.whitespace import TblSettings, run_whitespace
from termx.index.ingest import Document
from termx.tbl import learn
from termx.wordbreak import Segmenter
from tests.test_segment import memory_index

TEXTS = ["the cat sat on the mat and the dog sat on the log", "a cat and a dog on a mat",
         "the log and the mat of the cat", "on the mat the cat sat"] * 3


class Recorder:
    """A Progress that keeps what it is told: per stage, its total and the advances in order."""

    def __init__(self) -> None:
        self.stages: list[tuple[str, int | None, list[int]]] = []
        self.open: list[tuple[str, int | None, list[int]]] = []

    def start(self, stage: str, total: int | None) -> None:
        self.open.append((stage, total, []))

    def advance(self, amount: int) -> None:
        self.open[-1][2].append(amount)

    def finish(self) -> None:
        self.stages.append(self.open.pop())

    def by_name(self) -> dict[str, tuple[int | None, list[int]]]:
        return {name: (total, steps) for name, total, steps in self.stages}


def assert_reaches_totals(recorder: Recorder, stages: list[str]) -> None:
    """Each named stage has a total and advances in positive steps that add up to exactly it (the done count
    rises and ends at the total); every stage started was finished."""
    assert not recorder.open
    seen = recorder.by_name()
    for name in stages:
        assert name in seen, f"no stage {name!r} in {list(seen)}"
        total, steps = seen[name]
        assert total is not None and total > 0, name
        assert steps and all(s > 0 for s in steps), (name, steps)
        assert sum(steps) == total, f"{name}: {sum(steps)} done of {total}"


def test_branching_training_reports_each_stage_up_to_its_total() -> None:
    recorder = Recorder()
    Segmenter(memory_index(TEXTS), Scorer.branching, 8, {}, recorder)
    names = [name for name, _, _ in recorder.stages]
    assert names[:2] == ["reverse index", "self-training"] and "re-estimation pass 1" in names
    assert_reaches_totals(recorder, [n for n in names if n != "autonomy"])


def test_tbl_learner_reports_positions_then_each_rule() -> None:
    rng = np.random.default_rng(0)
    toks = rng.integers(0, 5, 3000)
    gold = (toks % 2).astype(np.int64)
    initial = np.where(rng.random(3000) < 0.2, 1 - gold, gold)
    recorder = Recorder()
    model = learn(toks, gold, initial, min_score=1, progress=recorder)
    assert_reaches_totals(recorder, ["tbl: score positions"])
    assert recorder.by_name()["tbl: score positions"][0] == 3000
    total, steps = recorder.by_name()["tbl: learn rules"]
    assert total is None and steps == [1] * len(model.rules) and model.rules  # no total: learning decides
    capped = Recorder()
    assert len(learn(toks, gold, initial, min_score=1, max_rules=2, progress=capped).rules) == 2
    assert_reaches_totals(capped, ["tbl: learn rules"])  # with --max-rules the total is known


def test_whitespace_reports_segmenting_and_tbl_stages(engine: Engine) -> None:
    recorder = Recorder()
    docs = [Document(f"d{n}", text) for n, text in enumerate(TEXTS)]
    run_whitespace(engine, docs, "progress-ws", scorers=[Scorer.freq], eval_docs=4, replace=True,
                   tbl=TblSettings(train_chars=10_000), progress=recorder)
    stages = ["segment freq", "tbl: segment training text", "tbl: score positions"]
    rules = recorder.by_name()["tbl: learn rules"][1]
    assert rules, "the freq scorer's mistakes on this text teach TBL some rules"
    assert_reaches_totals(recorder, [*stages, "tbl apply freq"])
    assert len(recorder.by_name()["tbl apply freq"][1]) == len(rules)  # applying: one step a rule


@pytest.fixture
def tbl_files(tmp_path: Path) -> tuple[str, str]:
    gold, pred = tmp_path / "gold.txt", tmp_path / "pred.txt"
    gold.write_text("the cat sat\non the mat\nthe dog sat\non the log\n" * 5, encoding="utf-8")
    pred.write_text("thecat sat\non themat\nthedog sat\non thelog\n" * 5, encoding="utf-8")
    return str(gold), str(pred)


def test_cli_draws_progress_on_a_terminal_and_not_with_quiet(db_env: str, tbl_files: tuple[str, str]) -> None:
    """rich draws only on a terminal: TTY_COMPATIBLE=1 makes CliRunner's stderr one."""
    args = ["tbl", "train", *tbl_files, "--name", "progress-cli", "--replace", "--format", "json"]
    shown = CliRunner().invoke(app, args, env={"TTY_COMPATIBLE": "1"})
    assert shown.exit_code == 0, shown.output
    assert "tbl: learn rules" in shown.stderr and "tbl: score positions" in shown.stderr, shown.stderr
    for quiet in (["--quiet", *args], [*args, "-q"]):
        silent = CliRunner().invoke(app, quiet, env={"TTY_COMPATIBLE": "1"})
        assert silent.exit_code == 0 and silent.stderr == "", silent.stderr
    plain = CliRunner().invoke(app, args)  # not a terminal: no bars (and no escape codes in a log)
    assert plain.exit_code == 0 and plain.stderr == ""


def test_finished_stages_leave_the_live_display(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whitespace experiment has ~30 stages: kept live, they outgrow a terminal and rich crops the bottom
    (the running stage) to '...'. A finished stage is printed once above the display and leaves it."""
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    with RichProgress() as progress:
        for n in range(40):
            progress.start(f"stage {n}", 10)
            progress.start(f"inner {n}", 5)
            progress.finish()
            assert [t.description for t in progress._bar.tasks] == [f"stage {n}"]
            progress.advance(10)
            progress.finish()
        assert progress._bar.tasks == []


def test_small_corpus_training_advances_in_many_steps_with_identical_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Training passes advance per chunk of about 1/64 of the corpus (not per 2^20 tokens, which left a bar under
    a million tokens at 0/N); the chunking changes no count. The minimum chunk is lowered to make 48 short
    documents a 'large' corpus."""
    from termx.wordbreak import corpus_passes

    index = memory_index(TEXTS * 4)
    whole = Segmenter(index, Scorer.branching, 8, {}).model
    monkeypatch.setattr(corpus_passes, "MIN_CHUNK_TOKENS", 16)
    recorder = Recorder()
    fine = Segmenter(index, Scorer.branching, 8, {}, recorder).model
    assert whole is not None and fine is not None
    seen = recorder.by_name()
    passes = [n for n in seen if n == "self-training" or n.startswith(("re-estimation", "bigram"))]
    assert "self-training" in passes and "re-estimation pass 1" in passes
    for name in passes:
        assert len(seen[name][1]) >= 10, (name, seen[name][1])
    np.testing.assert_array_equal(fine.trained[0], whole.trained[0])
    assert fine.trained[1] == whole.trained[1]
    np.testing.assert_array_equal(fine.trained.sequence, whole.trained.sequence)
    assert whole.reestimated is not None and fine.reestimated is not None
    np.testing.assert_array_equal(fine.reestimated[0], whole.reestimated[0])


def test_first_segment_model_shows_loading_stages(engine: Engine, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Before training, looking for a stored model and loading the index are stages too (no total: a spinner), so
    the seconds before the first bar of a first `termx segment` show something."""
    from termx.index.units import Unit
    from termx.storage.indexer import index_documents
    from termx.wordbreak import corpus_model

    monkeypatch.setenv("TERMX_HOME", str(tmp_path))
    index_documents(engine, "progress-load", [Document(f"d{n}", t) for n, t in enumerate(TEXTS)], Unit.byte, 3,
                    replace=True)
    corpus_model._memo.clear()
    recorder = Recorder()
    assert corpus_model.segment_model(engine, "progress-load", progress=recorder, store=False)[1] == "trained"
    names = [name for name, _, _ in recorder.stages]
    assert names[:3] == ["loading model", "loading index", "reverse index"], names
    assert recorder.by_name()["loading index"][0] is None


def test_long_kernels_release_the_gil() -> None:
    """The kernels that run for seconds without returning release the GIL, so rich's refresh thread redraws the
    bar (its spinner, elapsed time) meanwhile; they touch only arrays and typed dicts."""
    from termx.tbl import _kernels
    from termx.wordbreak import corpus_passes

    assert corpus_passes._count_chunk.targetoptions.get("nogil") is True
    assert _kernels.learn_rules.targetoptions.get("nogil") is True
