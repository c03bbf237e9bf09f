"""Sketches: the class-tree merge equals direct bottom-k, shards merge with global document numbers, and the
stated 95 % intervals hold at their rate."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.jdf.estimate import estimate_jdf
from termx.jdf.exact import interval_documents
from termx.jdf.pairs import Part, jdf_pairs, sketch_of
from termx.jdf.sketches import bottom_k, class_sketches, doc_hashes
from tests.jdf_oracle import brute_documents, loaded

TEXTS = st.lists(st.text(alphabet="ab c", min_size=1, max_size=14), min_size=1, max_size=8)


def _sketch(index: LoadedIndex, k: int, threshold: int, first_doc: int = 0):  # type: ignore[no-untyped-def]
    return class_sketches(np.asarray(index.lcp), np.asarray(index.sa), np.asarray(index.doc_start),
                          np.asarray(index.doc_len), np.ascontiguousarray(index.cls_df[:, 0]), first_doc, k,
                          threshold)


@settings(max_examples=80, deadline=None)
@given(TEXTS, st.sampled_from(list(Unit)), st.integers(1, 5), st.integers(1, 3))
def test_merged_sketches_equal_direct(texts: list[str], unit: Unit, k: int, threshold: int) -> None:
    if unit is Unit.word and not any(t.strip() for t in texts):
        return
    index = loaded(texts, unit)
    sk = _sketch(index, k, threshold)
    df1 = np.asarray(index.cls_df[:, 0])
    assert sk.cls.tolist() == np.flatnonzero(df1 >= threshold).tolist()
    for n, m in enumerate(sk.cls.tolist()):
        docs = interval_documents(index, int(index.cls_i[m]), int(index.cls_j[m]))
        assert len(docs) == df1[m]
        assert sk.of(n).tolist() == bottom_k(doc_hashes(docs), k).tolist()


@settings(max_examples=40, deadline=None)
@given(TEXTS, st.integers(1, 7), st.integers(1, 4), st.lists(st.text(alphabet="ab c", min_size=1, max_size=3),
                                                             min_size=2, max_size=5))
def test_shards_merge_with_global_documents(texts: list[str], cut: int, k: int, patterns: list[str]) -> None:
    if len(texts) < 2:
        return
    cut = 1 + cut % (len(texts) - 1)
    a, b = loaded(texts[:cut], Unit.byte), loaded(texts[cut:], Unit.byte)
    parts = [Part(a, _sketch(a, k, 2), 0), Part(b, _sketch(b, k, 2, first_doc=cut), cut)]
    for p in patterns:
        docs = sorted(brute_documents(texts, Unit.byte, p))
        df, sk = sketch_of(parts, p)
        assert df == len(docs)
        assert sk.tolist() == bottom_k(doc_hashes(np.array(docs, dtype=np.int64)), k).tolist()
    whole = jdf_pairs([Part(loaded(texts, Unit.byte))], patterns[0], patterns[1:])
    split = jdf_pairs(parts, patterns[0], patterns[1:])
    assert [(r["df_x"], r["df_y"], r["jdf"]) for r in whole] == [(r["df_x"], r["df_y"], r["jdf"]) for r in split]


def _topic_corpus(rng: np.random.Generator, n_docs: int) -> list[str]:
    """Documents of words from a shared Zipfian vocabulary plus words of one of a few topics (so that pairs
    range from independent to strongly associated)."""
    common = [f"w{n}" for n in range(200)]
    p = 1 / np.arange(1, 201)
    p /= p.sum()
    topics = [[f"t{t}x{n}" for n in range(30)] for t in range(6)]
    docs = []
    for _ in range(n_docs):
        t = topics[rng.integers(len(topics))]
        words = list(rng.choice(common, size=rng.integers(5, 25), p=p)) + \
            list(rng.choice(t, size=rng.integers(1, 8)))
        rng.shuffle(words)
        docs.append(" ".join(words))
    return docs


def test_intervals_cover_at_the_stated_rate() -> None:
    rng = np.random.default_rng(7)
    index = loaded(_topic_corpus(rng, 2500), Unit.word)
    k = 32
    sk = _sketch(index, k, 50)
    docs = [interval_documents(index, int(index.cls_i[m]), int(index.cls_j[m])) for m in sk.cls.tolist()]
    inside, pairs = 0, 0
    for _ in range(1500):
        x, y = rng.choice(len(sk), size=2, replace=False)
        truth = len(np.intersect1d(docs[x], docs[y]))
        e = estimate_jdf(np.asarray(sk.of(x)), np.asarray(sk.of(y)), len(docs[x]), len(docs[y]), k, index.n_docs)
        assert not e.exact and e.low <= e.jdf <= e.high
        inside += e.low <= truth <= e.high
        pairs += 1
    assert inside / pairs >= 0.90, inside / pairs


def test_complete_sketches_are_exact() -> None:
    sx, sy = doc_hashes(np.array([1, 2, 3])), doc_hashes(np.array([2, 3, 4, 5]))
    e = estimate_jdf(np.sort(sx), np.sort(sy), 3, 4, 8, 10)
    assert e.exact and (e.jdf, e.low, e.high, e.stderr) == (2, 2, 2, 0)
