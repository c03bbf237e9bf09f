"""Deterministic, seeded splits by document: train/devtest/test and k-fold cross-validation, optionally
inside the training part with the test split kept apart (the textbook's recipe)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

from termx.errors import EvaluationError

T = TypeVar("T", bound=Hashable)


@dataclass(frozen=True)
class Split(Generic[T]):
    """A train/devtest/test partition of document ids."""

    train: list[T]
    devtest: list[T]
    test: list[T]


@dataclass(frozen=True)
class Fold(Generic[T]):
    """One cross-validation fold: train on `train`, score on `test`."""

    train: list[T]
    test: list[T]


def _shuffled(doc_ids: Sequence[T], seed: int) -> list[T]:
    if len(set(doc_ids)) != len(doc_ids):
        raise EvaluationError("document ids are not unique", "each document may appear once")
    order = np.random.default_rng(seed).permutation(len(doc_ids))
    return [doc_ids[i] for i in order]


def train_devtest_test(doc_ids: Sequence[T], fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
                       seed: int = 0) -> Split[T]:
    """Shuffle documents with `seed` and cut them into train/devtest/test by `fractions` (rounded; train takes
    the remainder)."""
    if len(fractions) != 3 or any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        raise EvaluationError(f"fractions must be three non-negative numbers summing to 1 (got {fractions})")
    ids = _shuffled(doc_ids, seed)
    n_dev, n_test = round(len(ids) * fractions[1]), round(len(ids) * fractions[2])
    n_train = len(ids) - n_dev - n_test
    return Split(ids[:n_train], ids[n_train:n_train + n_dev], ids[n_train + n_dev:])


def kfold(doc_ids: Sequence[T], k: int = 10, seed: int = 0) -> list[Fold[T]]:
    """k folds over shuffled documents; each document is tested in exactly one fold, fold sizes differ by ≤ 1."""
    if k < 2:
        raise EvaluationError(f"k-fold cross-validation needs k >= 2 (got {k})")
    if k > len(doc_ids):
        raise EvaluationError(f"cannot make {k} folds from {len(doc_ids)} documents")
    ids = _shuffled(doc_ids, seed)
    bounds = np.linspace(0, len(ids), k + 1).round().astype(int)
    folds = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        folds.append(Fold(ids[:a] + ids[b:], ids[a:b]))
    return folds


def cross_validation_with_test(doc_ids: Sequence[T], k: int = 10, test_fraction: float = 0.1,
                               seed: int = 0) -> tuple[list[T], list[Fold[T]]]:
    """Hold out a test split, then k-fold cross-validation inside the rest; the test split is scored once."""
    if not 0 <= test_fraction < 1:
        raise EvaluationError(f"test_fraction must lie in [0, 1) (got {test_fraction})")
    split = train_devtest_test(doc_ids, (1 - test_fraction, 0.0, test_fraction), seed)
    return split.test, kfold(split.train, k, seed + 1)
