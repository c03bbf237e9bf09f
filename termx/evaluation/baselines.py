"""The most-frequent-class baseline (Gale et al. 1992): every token gets the label it had most often in
training; unseen tokens get the most frequent label overall. Report it next to every system."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Sequence
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
