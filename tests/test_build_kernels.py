"""The build's one-pass kernels (suffix.rank_scan, docfreq.fill_classes) against brute force on random corpora:
clipped LCP, documents of the ranks, valid trivial classes, and every class <i,j> with LBL, SIL and df_k, in walk
order; long neighbor chains (max_k up to 8) on few documents over two bytes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from termx.index import docfreq
from termx.index.classes import count_classes
from termx.index.suffix import permuted_lcp, rank_scan, suffix_array
from termx.index.units import Unit, tokenize

from .oracle import df_k, documents


def _suffixes(ta, sa: np.ndarray) -> tuple[list[tuple[int, ...]], list[int]]:  # type: ignore[no-untyped-def]
    """Each rank's suffix up to its document end (a token tuple) and its document."""
    ends = ta.doc_start + ta.doc_len
    doc = [int(np.searchsorted(ends, p, side="left")) for p in sa]
    return [tuple(int(t) for t in ta.tokens[p: ends[d]]) for p, d in zip(sa, doc, strict=True)], doc


def _common(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _brute_classes(suf: list[tuple[int, ...]], doc: list[int], lcp: list[int], kmax: int) -> list[tuple[int, ...]]:
    """(i, j, lbl, sil, df_1..df_kmax) of every non-trivial class, j ascending then i descending, from the
    definitions: an interval <i,j> (i < j) whose SIL exceeds its LBL."""
    n = len(suf)
    out = []
    for j in range(n):
        for i in range(j - 1, -1, -1):
            sil = min(lcp[i:j])
            lbl = max(lcp[i - 1] if i > 0 else 0, lcp[j])
            if sil > lbl:
                out.append((i, j, lbl, sil, *df_k([(doc[w], w) for w in range(i, j + 1)], kmax)))
    return out


@settings(max_examples=150, deadline=None)
@given(data=st.data(), unit=st.sampled_from(list(Unit)), max_k=st.integers(1, 5))
def test_rank_scan_and_class_walk_match_brute_force(data: st.DataObject, unit: Unit, max_k: int) -> None:
    texts = data.draw(documents(unit, max_docs=6))
    ta = tokenize(texts, unit)
    sa = suffix_array(ta.tokens, len(texts))
    suf, doc = _suffixes(ta, sa)
    lcp = [_common(suf[w], suf[w + 1]) for w in range(len(suf) - 1)] + [0]
    scan = rank_scan(permuted_lcp(ta.tokens, sa), sa, ta.doc_start, ta.doc_len)
    assert scan.lcp.tolist() == lcp
    assert scan.doc.tolist() == doc
    assert scan.trivial == sum(1 for w in range(len(suf))
                               if max(lcp[w - 1] if w > 0 else 0, lcp[w]) < len(suf[w]))
    classes, df = docfreq.fill_classes(scan.lcp, scan.doc, len(texts), max_k)
    assert len(classes) == len(df) == count_classes(scan.lcp)
    got = [(int(a), int(b), int(c), int(d), *map(int, row))
           for a, b, c, d, row in zip(classes.i, classes.j, classes.lbl, classes.sil, df, strict=True)]
    assert got == _brute_classes(suf, doc, lcp, max_k)


@settings(max_examples=100, deadline=None)
@given(texts=documents(Unit.byte, max_docs=3, symbols="ab"), max_k=st.integers(2, 8))
def test_class_walk_long_chains_match_brute_force(texts: list[str], max_k: int) -> None:
    """Few documents over two bytes: a document's ranks repeat often, so neighbor^k chains run through many frames
    (the walk derives the frames of neighbor^2.. from per-document minima instead of searching for them)."""
    ta = tokenize(texts, Unit.byte)
    sa = suffix_array(ta.tokens, len(texts))
    suf, doc = _suffixes(ta, sa)
    lcp = [_common(suf[w], suf[w + 1]) for w in range(len(suf) - 1)] + [0]
    scan = rank_scan(permuted_lcp(ta.tokens, sa), sa, ta.doc_start, ta.doc_len)
    classes, df = docfreq.fill_classes(scan.lcp, scan.doc, len(texts), max_k)
    got = [(int(a), int(b), int(c), int(d), *map(int, row))
           for a, b, c, d, row in zip(classes.i, classes.j, classes.lbl, classes.sil, df, strict=True)]
    assert got == _brute_classes(suf, doc, lcp, max_k)
