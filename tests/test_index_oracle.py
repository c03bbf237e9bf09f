"""The stored index against brute force: every substring's freq and df_k, and the classes themselves."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st

from termx.index.ingest import Document
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents

from .oracle import brute_classes, df_k, documents, settings_db, substring_occurrences, token_lists

KMAX = 3


def _build(engine, texts: list[str], unit: Unit) -> LoadedIndex:  # type: ignore[no-untyped-def]
    name = f"t-{uuid.uuid4().hex[:12]}"
    docs = [Document(f"d{n}", t) for n, t in enumerate(texts)]
    # T = 2: every class that repeats is stored, so the stored rows can be checked against every computed class
    index_documents(engine, name, docs, unit, KMAX, store_min_freq=2)
    return load_index(engine, name)


def _ids(index: LoadedIndex, sub: tuple[object, ...]) -> np.ndarray:
    if index.unit is Unit.byte:
        return np.array(sub, dtype=np.int64)
    assert index.vocab is not None
    return np.array([index.vocab.index(str(t)) + 1 for t in sub], dtype=np.int64)


def _stats(index: LoadedIndex, ids: np.ndarray) -> tuple[int, list[int]]:
    i, j = index.interval(ids)
    k = index.class_of(i, j)
    if k < 0:
        return j - i + 1, [1] + [0] * (KMAX - 1)
    assert index.cls_lbl[k] < len(ids) <= index.cls_sil[k]
    return int(index.cls_j[k] - index.cls_i[k] + 1), index.cls_df[k].tolist()


def _index_classes(index: LoadedIndex) -> dict[frozenset[tuple[int, int]], set[tuple[int, ...]]]:
    """Non-trivial classes of the index as (occurrence set → member token tuples)."""
    out = {}
    for k in range(len(index.cls_i)):
        i, j, lbl, sil = (int(x) for x in (index.cls_i[k], index.cls_j[k], index.cls_lbl[k], index.cls_sil[k]))
        occ = set()
        for w in range(i, j + 1):
            d = index.doc_of_rank(w)
            occ.add((d, int(index.sa[w] - index.doc_start[d])))
        p = int(index.sa[i])
        out[frozenset(occ)] = {tuple(int(t) for t in index.tokens[p:p + m]) for m in range(lbl + 1, sil + 1)}
    return out


def _to_ids(index: LoadedIndex, members: set[tuple[object, ...]]) -> set[tuple[int, ...]]:
    return {tuple(int(x) for x in _ids(index, m)) for m in members}


def _check(engine, texts: list[str], unit: Unit) -> None:  # type: ignore[no-untyped-def]
    index = _build(engine, texts, unit)
    docs = token_lists(texts, unit)
    occurrences = substring_occurrences(docs)
    for sub, occ in occurrences.items():
        assert _stats(index, _ids(index, sub)) == (len(occ), df_k(occ, KMAX)), sub
    brute = {occ: _to_ids(index, members) for occ, members in brute_classes(docs).items() if len(occ) > 1}
    assert _index_classes(index) == brute
    assert index.corpus.tokens == sum(len(d) for d in docs)
    assert index.corpus.classes == len(brute)
    assert _stored_rows(engine, index) == _loaded_rows(index)


def _stored_rows(engine, index: LoadedIndex) -> list[tuple[int, ...]]:  # type: ignore[no-untyped-def]
    """The class rows in PostgreSQL, in walk order (the loader recomputes them; both must agree)."""
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT i, j, lbl, sil, freq, df FROM termx.class WHERE shard_id = :s "
                                    "ORDER BY j, i DESC"), {"s": index.shard_id}).all()
    return [(i, j, lbl, sil, freq, *df) for i, j, lbl, sil, freq, df in rows]


def _loaded_rows(index: LoadedIndex) -> list[tuple[int, ...]]:
    return [(int(i), int(j), int(lbl), int(sil), int(j - i + 1), *df.tolist()) for i, j, lbl, sil, df in
            zip(index.cls_i, index.cls_j, index.cls_lbl, index.cls_sil, index.cls_df, strict=True)]


@pytest.mark.parametrize("unit", list(Unit))
@settings_db
@given(data=st.data())
def test_unit_matches_brute_force(engine, unit: Unit, data: st.DataObject) -> None:
    _check(engine, data.draw(documents(unit)), unit)


@settings_db
@given(texts=st.lists(st.text(alphabet="aé€😀", min_size=1, max_size=8), min_size=1, max_size=4))
def test_byte_unit_with_multibyte_characters(engine, texts: list[str]) -> None:
    """Classes may start or end inside a character; the stored reps stay valid UTF-8 and stats stay exact."""
    _check(engine, texts, Unit.byte)
