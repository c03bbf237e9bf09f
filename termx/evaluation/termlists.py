"""Scoring a ranked term list against a gold list the way ACTER's term-extraction evaluations do: lower-cased,
de-duplicated, only terms that occur in the annotated text, the first K kept (K = gold size, so P = R = F1)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable


def occurs_in(text: str) -> Callable[[str], bool]:
    """A predicate: does a lower-cased term occur in `text` (lower-cased) as whole words?"""
    words = set(re.findall(r"\w+", text))
    cache: dict[str, bool] = {}

    def occurs(term: str) -> bool:
        if term not in cache:
            cache[term] = all(w in words for w in re.findall(r"\w+", term)) and \
                re.search(r"(?<!\w)" + re.escape(term) + r"(?!\w)", text) is not None
        return cache[term]
    return occurs


def top_k(terms: Iterable[str], k: int, keep: Callable[[str], bool]) -> list[str]:
    """The first k distinct lower-cased terms that `keep` accepts."""
    seen: dict[str, None] = {}
    for t in terms:
        low = t.lower()
        if low not in seen and keep(low):
            seen[low] = None
            if len(seen) == k:
                break
    return list(seen)


def f1_at_gold_size(terms: Iterable[str], gold: set[str], keep: Callable[[str], bool]) -> tuple[float, list[str]]:
    """F1 of the first |gold| kept terms (lower-cased gold) and that list."""
    top = top_k(terms, len(gold), keep)
    return 2 * len(set(top) & gold) / (len(top) + len(gold)), top
