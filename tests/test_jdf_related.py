"""related: the library and SQL termx.related give the same list (one shard and several), its df and jdf are
brute-force counts, its candidates' estimates are exact when sketches and probe hold whole sets, and stored
sketches of a multi-shard corpus are the bottom-k of each class's global document hashes."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator

import numpy as np
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from termx.index.ingest import Document
from termx.index.units import Unit
from termx.jdf import exact
from termx.jdf.pairs import load_parts, sketch_of
from termx.jdf.related import PROBE, candidates, overlaps, related
from termx.jdf.sketch_store import build_sketches
from termx.jdf.sketches import bottom_k, doc_hashes
from termx.storage.corpora import drop_corpus
from termx.storage.executors import pool_runner
from termx.storage.indexer import index_documents
from termx.storage.shards import save_shards
from tests.jdf_oracle import brute_documents

TOPICS = [["oil", "crude", "barrel", "OPEC", "output"], ["yen", "dollar", "Japan", "currency", "Tokyo"],
          ["wheat", "grain", "corn", "tonnes", "crop"]]
COMMON = ["the", "said", "market", "price", "year", "new", "and", "of"]


def _texts(n: int, seed: int) -> list[str]:
    """Documents of one topic each: topic words and common words, spaced, with punctuation."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        topic = rng.choice(TOPICS)
        words = [rng.choice(topic) if rng.random() < 0.4 else rng.choice(COMMON) for _ in range(rng.randint(4, 14))]
        out.append(" ".join(words) + ".")
    return out


@pytest.fixture
def name(engine: Engine) -> Iterator[str]:
    """A fresh corpus name; the corpus is dropped afterwards (other tests count what is stored)."""
    corpus = f"rel_{uuid.uuid4().hex[:8]}"
    yield corpus
    drop_corpus(engine, corpus)


def _sql(engine: Engine, corpus: str, term: str, n: int, measure: str, min_df: int) -> list[tuple[str, int, int]]:
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT term, df, jdf, score FROM termx.related(:c, :t, :n, :m, :d)"),
                            {"c": corpus, "t": term, "n": n, "m": measure, "d": min_df}).all()
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def _agree(engine: Engine, corpus: str, texts: list[str], unit: Unit, terms: list[str]) -> int:
    """Library == SQL for every term and measure; df and jdf are brute-force counts; returns rows compared."""
    parts = load_parts(engine, corpus, with_sketches=True)
    compared = 0
    for term in terms:
        docs_t = brute_documents(texts, unit, term)
        for measure in ("g2", "pmi", "dice", "lift"):
            lib = related(parts, term, 8, measure, 3)
            sql = _sql(engine, corpus, term, 8, measure, 3)
            assert [(r["term"], r["df"], r["jdf"]) for r in lib] == [r[:3] for r in sql], (term, measure)
            assert [r["score"] for r in lib] == pytest.approx([r[3] for r in sql], rel=1e-9)
            for r in lib:
                docs_c = brute_documents(texts, unit, r["term"])
                assert (r["df"], r["jdf"]) == (len(docs_c), len(docs_c & docs_t))
                assert not overlaps(r["term"], term, 2)
            compared += len(lib)
    return compared


@pytest.mark.parametrize("unit", [Unit.byte, Unit.word])
def test_library_and_sql_agree_on_one_shard(engine: Engine, name: str, unit: Unit) -> None:
    texts = _texts(150, seed=3)
    index_documents(engine, name, [Document(f"d{n}", t) for n, t in enumerate(texts)], unit)
    build_sketches(engine, name, k=8, threshold=3)
    assert _agree(engine, name, texts, unit, ["oil", "yen", "wheat", "said", "Japan"]) > 40


def test_estimates_are_exact_when_sketches_and_probe_are_whole_sets(engine: Engine, name: str) -> None:
    texts = _texts(PROBE - 2, seed=5)  # every document set is smaller than the probe and than k
    index_documents(engine, name, [Document(f"d{n}", t) for n, t in enumerate(texts)], Unit.byte)
    build_sketches(engine, name, k=64, threshold=2)
    parts = load_parts(engine, name, with_sketches=True)
    rc = parts[0].related
    assert rc is not None and len(rc) > 10
    for term in ("oil", "yen", "said"):
        docs_t = exact.documents(parts[0].index, term)
        est = candidates(parts, docs_t)
        want = {t: (int(rc.df[n]), len(np.intersect1d(docs_t, exact.interval_documents(parts[0].index,
                                                                                         int(rc.i[n]), int(rc.j[n])))))
                for n, t in enumerate(rc.terms)}
        assert est == {t: (df, float(a)) for t, (df, a) in want.items() if a > 0}


def test_multi_shard_sketches_and_related(engine: Engine, name: str) -> None:
    texts = _texts(160, seed=11)
    docs = [Document(f"d{n}", t) for n, t in enumerate(texts)]
    save_shards(engine, name, [docs[:50], docs[50:61], docs[61:]], Unit.byte, 2, runner=pool_runner(1))
    k = 8
    build_sketches(engine, name, k=k, threshold=3)
    parts = load_parts(engine, name, with_sketches=True)
    assert [p.first_doc for p in parts] == [0, 50, 61]
    with engine.connect() as conn:  # each shard's stored sketches hold global document hashes
        for p in parts:
            rows = conn.execute(sa.text("SELECT i, j, hashes FROM termx.sketch WHERE shard_id = :s"),
                                {"s": p.index.shard_id}).all()
            assert rows
            for i, j, hashes in rows[::7]:
                glob = exact.interval_documents(p.index, i, j) + p.first_doc
                assert np.frombuffer(hashes, dtype="<i8").tolist() == bottom_k(doc_hashes(glob), k).tolist()
    for pattern in ("oil", "yen", "said", "the", "Tokyo", "corn"):  # bottom-k of the union of the shards' sketches
        df, sk = sketch_of(parts, pattern)
        whole = np.array(sorted(brute_documents(texts, Unit.byte, pattern)), dtype=np.int64)
        assert df == len(whole) and sk.tolist() == bottom_k(doc_hashes(whole), k).tolist()
    assert _agree(engine, name, texts, Unit.byte, ["oil", "yen", "wheat", "said"]) > 30


def test_sql_jdf_on_shards_is_the_library_and_brute_force(engine: Engine, name: str) -> None:
    """SQL termx.jdf sums over the shards: df, jdf and the document table equal the library's and brute force."""
    from termx.jdf.pairs import jdf_pairs

    texts = _texts(90, seed=5)
    docs = [Document(f"d{n}", t) for n, t in enumerate(texts)]
    save_shards(engine, name, [docs[:30], docs[30:31], docs[31:]], Unit.byte, 2, runner=pool_runner(1))
    parts = load_parts(engine, name, with_sketches=False)
    for x, y in (("oil", "crude"), ("yen", "the"), ("said", "OPEC output"), ("oil", "no such string")):
        lib = jdf_pairs(parts, x, [y])[0]
        with engine.connect() as conn:
            row = conn.execute(sa.text("SELECT * FROM termx.jdf(:c, :x, :y)"),
                               {"c": name, "x": x, "y": y}).mappings().one()
        dx, dy = brute_documents(texts, Unit.byte, x), brute_documents(texts, Unit.byte, y)
        assert (row["df_x"], row["df_y"], row["jdf"], row["documents"]) == (len(dx), len(dy), len(dx & dy), 90)
        assert {k: row[k] for k in ("df_x", "df_y", "jdf", "documents")} == {k: lib[k] for k in
                                                                              ("df_x", "df_y", "jdf", "documents")}
        assert row["x_and_y"] + row["x_only"] + row["y_only"] + row["neither"] == 90
        for measure in ("pmi", "dice", "g2"):
            assert (row[measure] is None) == (lib[measure] is None)
            if row[measure] is not None:
                assert row[measure] == pytest.approx(lib[measure], rel=1e-9)
