"""The adaptation studies against brute force on random corpora, all three units: per-half counts (crossval
bins), history/test counts (named patterns and every class of the history/test tree), and the agreement of
method 1 with method 2 over every string."""

from __future__ import annotations

import uuid
from collections import defaultdict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from termx.index.ingest import Document
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents
from termx.studies.adaptation import contingency, split_counts
from termx.studies.agreement import agreement, segments
from termx.studies.crossval import crossval_bins, half_statistics

from .oracle import df_k, documents, settings_db, substring_occurrences, token_lists

KMAX = 3


def _build(engine, texts: list[str], unit: Unit) -> LoadedIndex:  # type: ignore[no-untyped-def]
    name = f"s-{uuid.uuid4().hex[:12]}"
    index_documents(engine, name, [Document(f"d{n}", t) for n, t in enumerate(texts)], unit, KMAX)
    return load_index(engine, name)


def _text(sub: tuple[object, ...], unit: Unit) -> str:
    if unit is Unit.byte:
        return bytes(sub).decode("utf-8")  # type: ignore[arg-type]
    return (" " if unit is Unit.word else "").join(str(t) for t in sub)


def _brute_bins(docs: list[list[object]], occurrences: dict) -> dict[tuple[int, int], tuple[int, int, int]]:  # type: ignore[type-arg]
    """(freq, df_1) in half 1 → (strings, classes, sum of freq in half 2)."""
    total = sum(len(d) for d in docs)
    cum, first = 0, len(docs) - 1
    for n, d in enumerate(docs):
        cum += len(d)
        if 2 * cum >= total:
            first = n
            break
    bins: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    seen: set[tuple[tuple[int, int], frozenset[tuple[int, int]]]] = set()
    for occ in occurrences.values():
        h1 = [(d, s) for d, s in occ if d <= first]
        if not h1:
            continue
        key = (len(h1), len({d for d, _ in h1}))
        b = bins[key]
        b[0] += 1
        b[2] += len(occ) - len(h1)
        if (key, frozenset(occ)) not in seen:
            seen.add((key, frozenset(occ)))
            b[1] += 1
    return {k: (v[0], v[1], v[2]) for k, v in bins.items()}


def _halves(docs: list[list[object]], sub: tuple[object, ...], occ: list[tuple[int, int]]) -> tuple[set[int], set[int]]:
    hist = {d for d, s in occ if s + len(sub) <= len(docs[d]) // 2}
    test = {d for d, s in occ if s >= len(docs[d]) // 2}
    return hist, test


def _check(engine, texts: list[str], unit: Unit) -> None:  # type: ignore[no-untyped-def]
    index = _build(engine, texts, unit)
    docs = token_lists(texts, unit)
    occurrences = substring_occurrences(docs)
    D = len(docs)
    # cross-validation bins
    bins = crossval_bins(half_statistics(index))
    got = {(int(f), int(d)): (int(n), int(c), int(s)) for f, d, n, c, s in
           zip(bins.freq, bins.df, bins.n, bins.classes, bins.freq2_sum, strict=True)}
    assert got == _brute_bins(docs, occurrences)
    # method 1 for named patterns, and the agreement with method 2 over every string
    sc = split_counts(index)
    brute_agree: dict[int, list[tuple[float | None, float]]] = {1: [], 2: []}
    split_groups: dict[frozenset[tuple[int, int]], tuple[int, int, int]] = {}
    for sub, occ in occurrences.items():
        hist, test = _halves(docs, sub, occ)
        a = len(hist & test)
        t = contingency(index, _text(sub, unit))
        assert (t.a, t.b, t.c, t.d) == (a, len(hist) - a, len(test) - a, D - len(hist | test)), sub
        inside = frozenset((d, s) for d, s in occ if s + len(sub) <= len(docs[d]) // 2 or s >= len(docs[d]) // 2)
        if len(inside) > 1:
            split_groups[inside] = (a, len(hist) - a, len(test) - a)
        df = df_k(occ, 2)
        p1 = a / len(hist) if hist else None
        for min_df in brute_agree:
            if df[0] >= min_df and inside:
                brute_agree[min_df].append((p1, df[1] / df[0]))
    # every class of the history/test tree: its occurrences and (a, b, c)
    tree = {}
    for k in range(len(sc.a)):
        ranks = sc.split.order[sc.cls_i[k]: sc.cls_j[k] + 1]
        occ = frozenset((index.doc_of_rank(int(w)), int(index.sa[w] - index.doc_start[index.doc_of_rank(int(w))]))
                        for w in ranks)
        tree[occ] = (int(sc.a[k]), int(sc.b[k]), int(sc.c[k]))
    assert tree == split_groups
    for min_df, pairs in brute_agree.items():
        ag = agreement(segments(index, sc, min_df), min_df)
        assert ag.strings == len(pairs)
        assert ag.undefined == sum(1 for p1, _ in pairs if p1 is None)
        both = [(p1, p2) for p1, p2 in pairs if p1 and p2]
        assert ag.compared == len(both)
        assert ag.within_2 == sum(1 for p1, p2 in both if max(p1, p2) <= 2 * min(p1, p2))
        assert ag.within_3 == sum(1 for p1, p2 in both if max(p1, p2) <= 3 * min(p1, p2))
        assert ag.both_zero == sum(1 for p1, p2 in pairs if p1 == 0 and p2 == 0)


@pytest.mark.parametrize("unit", list(Unit))
@settings_db
@given(data=st.data())
def test_unit_matches_brute_force(engine, unit: Unit, data: st.DataObject) -> None:
    _check(engine, data.draw(documents(unit)), unit)


def test_repeated_documents_move_many_history_suffixes(engine) -> None:  # type: ignore[no-untyped-def]
    """Duplicated documents cut nearly every history suffix (r <= its LCP): the re-sorted tree stays exact."""
    _check(engine, ["abab_abab", "abab_abab", "ab", "abab_abab_ab"], Unit.byte)
    _check(engine, ["aaaaaaa", "aaaaaaa", "aaa"], Unit.byte)
