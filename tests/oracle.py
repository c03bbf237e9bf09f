"""Brute-force substring statistics for small corpora: the reference every index statistic is checked against."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from termx.index.units import Unit, split_words

# Hypothesis settings for tests that build a corpus in the session database per example.
settings_db = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def documents(unit: Unit, max_docs: int = 5,
              symbols: str | Sequence[str] | None = None) -> st.SearchStrategy[list[str]]:
    """Small random corpora (1 to `max_docs` documents) for `unit`, over few symbols so substrings repeat within
    and across documents: byte corpora over "ab_c", char corpora mixing CJK and ASCII, word corpora drawn from
    five words; `symbols` replaces the alphabet (byte, char) or the words (word)."""
    if unit is Unit.word:
        words = list(symbols or ["the", "cat", "a", ".", "mat"])
        doc = st.lists(st.sampled_from(words), min_size=1, max_size=10).map(" ".join)
    else:
        alphabet = symbols or ("ab_c" if unit is Unit.byte else "日本語ab")
        doc = st.text(alphabet=alphabet, min_size=1, max_size=14 if unit is Unit.byte else 12)
    return st.lists(doc, min_size=1, max_size=max_docs)


def token_lists(texts: list[str], unit: Unit) -> list[list[object]]:
    """Each document as a list of tokens in the unit (bytes as ints, chars, words)."""
    if unit is Unit.byte:
        return [list(t.encode("utf-8")) for t in texts]
    if unit is Unit.char:
        return [list(t) for t in texts]
    return [split_words(t) for t in texts]


def substring_occurrences(docs: list[list[object]]) -> dict[tuple[object, ...], list[tuple[int, int]]]:
    """Every distinct substring (token tuple) → its occurrences (doc, start); never across documents."""
    occ: dict[tuple[object, ...], list[tuple[int, int]]] = defaultdict(list)
    for d, toks in enumerate(docs):
        for s in range(len(toks)):
            for e in range(s + 1, len(toks) + 1):
                occ[tuple(toks[s:e])].append((d, s))
    return occ


def df_k(occurrences: list[tuple[int, int]], kmax: int) -> list[int]:
    """df_1..df_kmax: documents holding the substring at least k times."""
    per_doc: dict[int, int] = defaultdict(int)
    for d, _ in occurrences:
        per_doc[d] += 1
    return [sum(1 for c in per_doc.values() if c >= k) for k in range(1, kmax + 1)]


def brute_classes(docs: list[list[object]]) -> dict[frozenset[tuple[int, int]], set[tuple[object, ...]]]:
    """Substrings grouped by occurrence set: each group is one class (the distributional equivalence)."""
    groups: dict[frozenset[tuple[int, int]], set[tuple[object, ...]]] = defaultdict(set)
    for s, occ in substring_occurrences(docs).items():
        groups[frozenset(occ)].add(s)
    return groups
