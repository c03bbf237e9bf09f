"""Segmentation metrics, accuracy and averages, splits and the most-frequent-class baseline."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termx.errors import EvaluationError
from termx.evaluation.baselines import most_frequent_class
from termx.evaluation.metrics import (
    PRF,
    accuracy,
    boundaries,
    boundary_outcomes,
    boundary_prf,
    error_counts,
    macro_average,
    micro_average,
    score_lines,
    segmentation_records,
    word_prf,
    word_spans,
    words_from_boundaries,
)
from termx.evaluation.splits import cross_validation_with_test, kfold, train_devtest_test

# --- segmentation metrics ---------------------------------------------------------------------------------


def test_worked_segmentation_example():
    gold, pred = ["the", "cat", "sat"], ["the", "cats", "at"]
    assert word_spans(gold) == [(0, 3), (3, 6), (6, 9)]
    assert boundaries(gold) == {3, 6} and boundaries(pred) == {3, 7}
    w = word_prf(gold, pred)
    assert (w.correct, w.gold, w.predicted) == (1, 3, 3) and w.f1 == pytest.approx(1 / 3)
    b = boundary_prf(boundaries(gold), boundaries(pred))
    assert (b.precision, b.recall) == (0.5, 0.5)
    assert boundary_outcomes(gold, pred) == [1, 1, 1, 1, 1, 0, 0, 1]  # positions 6 and 7 are wrong


def test_sighan_counting_over_lines():
    scores = score_lines(["the cat sat", "on the mat", ""], ["the cat sat", "on themat", ""])
    assert scores["lines"] == 3
    assert {k: scores["word"][k] for k in ("gold", "predicted", "correct")} == {"gold": 6, "predicted": 5,
                                                                                 "correct": 4}
    assert scores["word"]["precision"] == 0.8 and scores["word"]["recall"] == pytest.approx(2 / 3)
    assert scores["boundary"]["correct"] == 3 and scores["boundary"]["gold"] == 4


def test_lines_that_spell_different_text_are_named():
    with pytest.raises(EvaluationError, match="line 2"):
        score_lines(["a b", "c d"], ["a b", "c e"])
    with pytest.raises(EvaluationError, match="2 lines"):
        score_lines(["a b", "c d"], ["a b"])
    with pytest.raises(EvaluationError, match="different text"):
        word_prf(["ab"], ["a", "c"])


def test_empty_counts_are_never_nan():
    assert PRF(0, 0, 0).as_dict() == {"gold": 0, "predicted": 0, "correct": 0, "precision": 1.0,
                                      "recall": 1.0, "f1": 1.0}
    assert (PRF(0, 3, 0).precision, PRF(0, 3, 0).recall, PRF(0, 3, 0).f1) == (0.0, 0.0, 0.0)


words = st.lists(st.text(alphabet="abc", min_size=1, max_size=4), min_size=1, max_size=8)


@settings(max_examples=100, deadline=None)
@given(words, st.data())
def test_word_and_boundary_views_agree(gold, data):
    """A resegmentation of the same text: words from boundary sets round-trip, word F1 is 1 only for identical
    segmentations, and boundary outcomes count exactly the boundary disagreements."""
    text = "".join(gold)
    cuts = data.draw(st.sets(st.integers(1, max(1, len(text) - 1))) if len(text) > 1 else st.just(set()))
    pred = words_from_boundaries(text, cuts)
    assert "".join(pred) == text and boundaries(pred) == cuts
    assert words_from_boundaries(text, boundaries(gold)) == gold
    w = word_prf(gold, pred)
    assert (w.f1 == 1.0) == (boundaries(gold) == cuts)
    assert boundary_outcomes(gold, pred).count(0) == len(boundaries(gold) ^ cuts)
    assert boundary_prf(boundaries(gold), cuts).correct == len(boundaries(gold) & cuts)


def test_segmentation_records_feed_compare():
    recs = segmentation_records(["d1"], [["ab", "c"]], [["a", "bc"]])
    assert recs == [{"id": "d1", "errors": 2, "total": 2, "outcomes": [0, 0]}]


def test_accuracy_error_counts_and_averages():
    assert accuracy(["N", "V", "N"], ["N", "N", "N"]) == pytest.approx(2 / 3)
    assert error_counts([["a", "b"], ["c"]], [["a", "a"], ["c"]]) == [1, 0]
    with pytest.raises(EvaluationError):
        accuracy([], [])
    with pytest.raises(EvaluationError):
        error_counts([["a"]], [["a", "b"]])
    docs = [PRF(1, 2, 1), PRF(3, 4, 6)]
    assert micro_average(docs) == PRF(4, 6, 7)
    macro = macro_average(docs)
    assert macro["precision"] == pytest.approx((1.0 + 0.5) / 2) and macro["recall"] == pytest.approx(0.625)
    with pytest.raises(EvaluationError):
        macro_average([])


# --- splits -----------------------------------------------------------------------------------------------

ids = st.lists(st.integers(0, 10_000), min_size=10, max_size=120, unique=True)


@settings(max_examples=60, deadline=None)
@given(ids, st.integers(0, 2**32 - 1))
def test_train_devtest_test_is_a_seeded_partition(docs, seed):
    split = train_devtest_test(docs, seed=seed)
    assert split == train_devtest_test(docs, seed=seed)
    parts = split.train + split.devtest + split.test
    assert sorted(parts) == sorted(docs)
    assert len(split.test) == round(len(docs) * 0.1) and len(split.devtest) == round(len(docs) * 0.1)


@settings(max_examples=60, deadline=None)
@given(ids, st.integers(2, 10), st.integers(0, 1000))
def test_kfold_tests_every_document_exactly_once(docs, k, seed):
    folds = kfold(docs, k, seed)
    assert folds == kfold(docs, k, seed) and len(folds) == k
    tested = [d for f in folds for d in f.test]
    assert sorted(tested) == sorted(docs)
    sizes = [len(f.test) for f in folds]
    assert max(sizes) - min(sizes) <= 1
    for f in folds:
        assert set(f.train).isdisjoint(f.test) and sorted(f.train + f.test) == sorted(docs)


@settings(max_examples=40, deadline=None)
@given(ids, st.integers(0, 1000))
def test_cross_validation_keeps_the_test_split_apart(docs, seed):
    test, folds = cross_validation_with_test(docs, k=5, seed=seed)
    assert len(test) == round(len(docs) * 0.1)
    for f in folds:
        assert set(test).isdisjoint(f.train + f.test)
    assert sorted(test + [d for f in folds for d in f.test]) == sorted(docs)


def test_different_seeds_give_different_splits_and_bad_arguments_raise():
    docs = list(range(100))
    assert train_devtest_test(docs, seed=1) != train_devtest_test(docs, seed=2)
    with pytest.raises(EvaluationError):
        train_devtest_test(docs, (0.5, 0.2, 0.2))
    with pytest.raises(EvaluationError):
        kfold(docs[:3], 5)
    with pytest.raises(EvaluationError):
        kfold(docs, 1)
    with pytest.raises(EvaluationError, match="unique"):
        kfold([1, 1, 2], 2)


# --- baseline ---------------------------------------------------------------------------------------------


def test_most_frequent_class_baseline():
    train = [("race", "NN"), ("race", "VB"), ("race", "NN"), ("to", "TO"), ("the", "DT"), ("dog", "NN")]
    model = most_frequent_class(train)
    assert model.predict(["race", "to", "unseen"]) == ["NN", "TO", "NN"]
    tie = most_frequent_class([("x", "B"), ("x", "A")])
    assert tie.labels["x"] == "A"  # ties break deterministically
    with pytest.raises(EvaluationError):
        most_frequent_class([])


def test_term_list_f1_at_gold_size() -> None:
    from termx.evaluation.termlists import f1_at_gold_size, occurs_in

    keep = occurs_in("the wind turbine blade; a rotor. wind-farm")
    assert keep("wind-farm") and not keep("farm wind") and not keep("turbin")
    terms = ["Wind Turbine", "wind turbine", "hub", "rotor", "Blade", "wind-farm"]
    f1, top = f1_at_gold_size(terms, {"wind turbine", "blade", "gearbox"}, keep)
    # "hub" is not in the text, "wind turbine" is listed once; K = 3 keeps wind turbine, rotor, blade: 2 right
    assert top == ["wind turbine", "rotor", "blade"] and f1 == 2 * 2 / 6
