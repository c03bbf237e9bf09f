"""bench/bench_store.py's arithmetic (issue 29's measurements): df_k of a class computed from the suffix array equals
the builder's, and the freq shares and the freq >= T estimates add up, on a tiny corpus built in memory."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

from termx.index.build import build_shard
from termx.index.ingest import Document
from termx.index.units import Unit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import bench_store  # noqa: E402

DOCS = [Document("a", "abracadabra abracadabra"), Document("b", "cadabra bra bra"), Document("c", "abba dabba do")]


def test_df_k_computed_from_the_suffix_array_equals_the_builders() -> None:
    shard = build_shard(DOCS, Unit.byte, 3)
    doc_of = bench_store.doc_of_position(shard.tokens.doc_start, len(shard.tokens.tokens))
    assert len(shard.classes) > 10
    for n, (i, j) in enumerate(zip(shard.classes.i.tolist(), shard.classes.j.tolist(), strict=True)):
        assert bench_store.df_of_interval(shard.sa, doc_of, i, j, 3) == shard.df[n].tolist()
        assert bench_store.df_of_interval_searched(shard.sa, shard.tokens.doc_start, i, j, 3) == shard.df[n].tolist()


def test_freq_shares_and_the_estimates_add_up() -> None:
    shard = build_shard(DOCS, Unit.byte, 3)
    counts = Counter((shard.classes.j - shard.classes.i + 1).tolist())
    shares = bench_store.freq_shares({**counts, 1: shard.trivial_classes})
    assert sum(shares.values()) == pytest.approx(1.0)
    assert shares["<=1"] == pytest.approx(shard.trivial_classes / (shard.trivial_classes + len(shard.classes)))
    assert bench_store.freq_shares(counts)["<=1"] == 0.0

    rows = len(shard.classes)
    full = bench_store.estimated_bytes_per_token(counts, 1000 * rows, 500, shard.n, 2)
    assert full["rows"] == rows and full["row_share"] == 1.0
    assert full["class_bytes_per_token"] == pytest.approx(1000 * rows / shard.n)
    assert full["all_bytes_per_token"] == pytest.approx((1000 * rows + 500) / shard.n)
    cut = bench_store.estimated_bytes_per_token(counts, 1000 * rows, 500, shard.n, 4)
    kept = sum(1 for f in (shard.classes.j - shard.classes.i + 1).tolist() if f >= 4)
    assert 0 < kept < rows and cut["rows"] == kept
    assert cut["class_bytes_per_token"] == pytest.approx(1000 * kept / shard.n)
