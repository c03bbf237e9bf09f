"""`termx index --store-min-freq T`: class rows only for freq >= T, the corpus records T (an append keeps it), every
look-up answers as with every class stored, termx.classes lists the classes under a prefix at any T, and a bad T
is a one-line error."""

from __future__ import annotations

import json
import uuid

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from termx.cli import app
from termx.database import Database
from termx.errors import InputError, PatternError
from termx.index.ingest import Document
from termx.index.loaded_index import LoadedIndex
from termx.index.options import IndexOptions
from termx.index.units import Unit
from termx.lookup import member, stats
from termx.storage.index_loader import load_shards
from termx.storage.shards import pool_runner, save_shards

from .oracle import substring_occurrences, token_lists
from .test_lookup import as_pattern
from .test_sql_shards import _texts

TEXTS = ["abcab abcab abc", "xyz abab", "abcab xyzxyz", "ab"]
COMPARED = ("freq", "df", "i", "j", "lbl", "sil", "shortest", "longest")


def _stored(engine: Engine, name: str) -> tuple[list[int], int]:
    """The freq of every stored class row of corpus `name`, and the store_min_freq its params record."""
    with engine.connect() as conn:
        freqs = conn.execute(sa.text("SELECT k.freq FROM termx.class k JOIN termx.shard s ON s.id = k.shard_id "
                                     "JOIN termx.corpus c ON c.id = s.corpus_id WHERE c.name = :n"), {"n": name})
        t = conn.execute(sa.text("SELECT (params ->> 'store_min_freq')::integer FROM termx.corpus WHERE name = :n"),
                         {"n": name}).scalar_one()
        return [r[0] for r in freqs], t


def _same_as_library(engine: Engine, name: str, texts: list[str]) -> int:
    """Every substring's SQL row (one shard: the class fields; several: freq and df) equals the library's; returns
    how many of them have 2 <= freq < 3 (cold at T = 3)."""
    shards = load_shards(engine, name)
    cold = 0
    with engine.connect() as conn:
        for sub, occ in substring_occurrences(token_lists(texts, Unit.byte)).items():
            pattern = as_pattern(sub, Unit.byte)
            if pattern is None:
                continue
            row = conn.execute(sa.text("SELECT * FROM termx.stats(:c, :p)"), {"c": name, "p": pattern}).mappings().one()
            want = stats(shards, [pattern])[0]
            assert {k: row[k] for k in COMPARED} == {k: want[k] for k in COMPARED}, pattern
            assert row["freq"] == len(occ)
            cold += 2 <= len(occ) < 3
    return cold


def test_cli_stores_only_frequent_classes_and_answers_every_pattern(engine: Engine, db_env: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    name = f"hot-{uuid.uuid4().hex[:8]}"
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"id": f"d{n}", "text": t}) + "\n" for n, t in enumerate(TEXTS)))
    out = CliRunner().invoke(app, ["index", str(path), "-c", name, "--store-min-freq", "3", "--quiet"])
    assert out.exit_code == 0, out.output
    freqs, t = _stored(engine, name)
    assert t == 3 and freqs and min(freqs) >= 3
    assert _same_as_library(engine, name, TEXTS) > 0  # some classes were computed, not read


def test_append_keeps_the_corpus_threshold(engine: Engine) -> None:
    name = f"hot-{uuid.uuid4().hex[:8]}"
    docs = [Document(f"d{n}", t) for n, t in enumerate(TEXTS)]
    save_shards(engine, name, [docs[:2]], Unit.byte, 3, runner=pool_runner(1), min_freq=3)
    save_shards(engine, name, [docs[2:]], Unit.byte, 3, append=True, runner=pool_runner(1))  # default T: ignored
    freqs, t = _stored(engine, name)
    assert t == 3 and min(freqs) >= 3
    _same_as_library(engine, name, TEXTS)


def test_bad_threshold_is_one_line(engine: Engine, db_env: str) -> None:
    with pytest.raises(InputError, match="store_min_freq"):
        IndexOptions(store_min_freq=1)
    with pytest.raises(InputError, match="store_min_freq"):
        Database(db_env).index("never", [("d", "text")], store_min_freq=0)
    out = CliRunner().invoke(app, ["index", "-", "-c", "never", "--store-min-freq", "1"], input="text")
    assert out.exit_code == 2 and "store-min-freq" in out.output and "Traceback" not in out.output


def _library_classes(shard: LoadedIndex, prefix: str, min_freq: int) -> list[tuple[object, ...]]:
    """The classes of one loaded shard whose interval lies in the prefix's (its longest member starts with it)."""
    try:
        found = stats(shard, [prefix])[0]
    except PatternError:  # longer than every document of this shard
        return []
    if found["freq"] < 2:
        return []
    return [(shard.shard_no, int(shard.cls_i[k]), int(shard.cls_j[k]), int(shard.cls_j[k] - shard.cls_i[k] + 1),
             shard.cls_df[k].tolist(), int(shard.cls_lbl[k]), int(shard.cls_sil[k]),
             member(shard, int(shard.cls_i[k]), int(shard.cls_sil[k])))
            for k in range(len(shard.cls_i))
            if found["i"] <= shard.cls_i[k] and shard.cls_j[k] <= found["j"]
            and shard.cls_j[k] - shard.cls_i[k] + 1 >= min_freq]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), unit=st.sampled_from(list(Unit)), store_min_freq=st.sampled_from([2, 3, 5]),
       two_shards=st.booleans())
def test_classes_under_a_prefix_are_the_librarys_at_any_threshold(engine: Engine, data: st.DataObject, unit: Unit,
                                                                   store_min_freq: int, two_shards: bool) -> None:
    texts = data.draw(_texts(unit))
    docs = [Document(f"d{n}", t) for n, t in enumerate(texts)]
    name = f"cls-{uuid.uuid4().hex[:8]}"
    save_shards(engine, name, [docs[:1], docs[1:]] if two_shards else [docs], unit, 3, runner=pool_runner(1),
                min_freq=store_min_freq)
    shards = load_shards(engine, name)
    occurrences = substring_occurrences(token_lists(texts, unit))
    prefixes = [p for p in (as_pattern(s, unit) for s in sorted(occurrences, key=lambda s: (-len(occurrences[s]),
                                                                                               repr(s)))[:8])
                if p is not None]
    with engine.connect() as conn:
        for prefix in prefixes:
            for min_freq in (2, 3):
                got = conn.execute(sa.text("SELECT shard_no, i, j, freq, df, lbl, sil, longest "
                                           "FROM termx.classes(:c, :p, :m)"), {"c": name, "p": prefix, "m": min_freq})
                assert sorted(tuple(r) for r in got) == \
                    sorted(c for s in shards for c in _library_classes(s, prefix, min_freq)), (prefix, min_freq)
        if any(_library_classes(s, prefixes[0], 2) for s in shards):  # it occurs at least twice in a shard
            with pytest.raises(sa.exc.DBAPIError, match="more than max_occurrences"):
                conn.execute(sa.text("SELECT * FROM termx.classes(:c, :p, 2, 1)"), {"c": name, "p": prefixes[0]}).all()
