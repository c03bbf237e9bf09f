"""Baselines to report next to every system: the most-frequent-class baseline (Gale et al. 1992: every token gets
the label it had most often in training; unseen tokens get the most frequent label overall) and the trivial word
segmentations (no boundary at all; a boundary wherever a letter meets a non-letter)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass

from termx.errors import EvaluationError


@dataclass(frozen=True)
class MostFrequentClass:
    """A fitted baseline: a label per known token and a default for the rest."""

    labels: dict[Hashable, Hashable]
    default: Hashable

    def predict(self, tokens: Sequence[Hashable]) -> list[Hashable]:
        """Label each token with its most frequent training label (the default if unseen)."""
        return [self.labels.get(t, self.default) for t in tokens]


def _most_common(counts: Counter[Hashable]) -> Hashable:
    """The most frequent label; ties go to the smallest label by repr, so fitting is deterministic."""
    best = max(counts.values())
    return min((label for label, c in counts.items() if c == best), key=repr)


def most_frequent_class(pairs: Iterable[tuple[Hashable, Hashable]]) -> MostFrequentClass:
    """Fit the baseline on (token, label) training pairs."""
    per_token: defaultdict[Hashable, Counter[Hashable]] = defaultdict(Counter)
    overall: Counter[Hashable] = Counter()
    for token, label in pairs:
        per_token[token][label] += 1
        overall[label] += 1
    if not overall:
        raise EvaluationError("no training pairs", "the baseline needs labelled tokens to count")
    return MostFrequentClass({t: _most_common(c) for t, c in per_token.items()}, _most_common(overall))


def no_boundaries_words(text: str) -> list[str]:
    """The no-boundaries baseline: the whole text is one word."""
    return [text]


def letter_change_words(text: str) -> list[str]:
    """The letter-change baseline: a boundary wherever a letter meets a non-letter."""
    if not text:
        return []
    words, begin = [], 0
    for k in range(1, len(text)):
        if text[k].isalpha() != text[k - 1].isalpha():
            words.append(text[begin:k])
            begin = k
    words.append(text[begin:])
    return words


SEGMENTATION_BASELINES: dict[str, Callable[[str], list[str]]] = {
    "no-boundaries": no_boundaries_words, "letter-change": letter_change_words}
"""The trivial word segmentations by name."""
