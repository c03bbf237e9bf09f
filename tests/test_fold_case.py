"""`termx index --fold-case`: the folding keeps lengths, and stats of a folded corpus (library and SQL) are the
brute-force counts on the folded text, whatever the case of the pattern."""

from __future__ import annotations

import json
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from termx.cli import app
from termx.index.fold import fold_case, fold_pairs
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.lookup import concordance, stats
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents

from .oracle import df_k, substring_occurrences, token_lists
from .test_lookup import KMAX, SETTINGS, as_pattern, sql_stats

chars = st.text(alphabet="aAbB éÉßẞİ\u212a\n", min_size=1, max_size=10)


def test_fold_keeps_every_length() -> None:
    upper, lower = fold_pairs()
    assert len(upper) == len(lower) > 1000
    for u, low in zip(upper, lower, strict=True):
        assert u.lower() == low and len(u.encode("utf-8")) == len(low.encode("utf-8"))
    # hand-worked: ASCII and Latin-1 fold; ẞ (U+1E9E, 3 bytes) → ß (2 bytes), İ → i̇ (2 code points) and the
    # Kelvin sign K (3 bytes) → k (1 byte) would change lengths, so they stay; ß itself is already lower case
    assert fold_case("Straße ÄBC ẞ İ \u212a") == "straße äbc ẞ İ \u212a"


def _upper_where_it_folds_back(pattern: str) -> str:
    return "".join(c.upper() if len(c.upper()) == 1 and fold_case(c.upper()) == c else c for c in pattern)


@pytest.mark.parametrize("unit", list(Unit))
def test_folded_stats_are_brute_force_on_the_folded_text(engine, unit: Unit) -> None:  # type: ignore[no-untyped-def]
    @SETTINGS
    @given(texts=st.lists(chars, min_size=1, max_size=3))
    def check(texts: list[str]) -> None:
        name = f"fold-{uuid.uuid4().hex[:12]}"
        index_documents(engine, name, [Document(f"d{n}", t) for n, t in enumerate(texts)], unit, KMAX,
                        fold_case=True)
        index = load_index(engine, name)
        assert index.corpus.params["fold_case"] is True
        occurrences = substring_occurrences(token_lists([fold_case(t) for t in texts], unit))
        cases = [(p, occ) for p, occ in ((as_pattern(s, unit), occ) for s, occ in occurrences.items())
                 if p is not None]
        patterns = [p for p, _ in cases] + [_upper_where_it_folds_back(p) for p, _ in cases]
        rows = stats(index, patterns)
        want = [(len(occ), df_k(occ, KMAX)) for _, occ in cases] * 2
        assert [(r["freq"], r["df"]) for r in rows] == want
        assert [(r["pattern"], r["freq"], r["df"]) for r in sql_stats(engine, name, patterns)] == \
            [(p, f, d) for p, (f, d) in zip(patterns, want, strict=True)]

    check()


def test_concordance_offsets_are_the_originals_and_the_text_is_folded(engine) -> None:  # type: ignore[no-untyped-def]
    name = f"fold-kwic-{uuid.uuid4().hex[:8]}"
    text = "Größe: The CAT sat. the cat Ran"
    index_documents(engine, name, [Document("d", text)], Unit.byte, 2, fold_case=True)
    index = load_index(engine, name)
    rows = concordance(index, "Cat", left=4, right=4)
    start = len("Größe: The ".encode())
    assert sorted(r["offset"] for r in rows) == [start, len("Größe: The CAT sat. the ".encode())]
    assert text.encode()[start:start + 3] == b"CAT"
    assert {r["match"] for r in rows} == {"cat"}   # the index holds the folded text only
    plain = f"plain-{uuid.uuid4().hex[:8]}"
    index_documents(engine, plain, [Document("d", text)], Unit.byte, 2)
    assert stats(load_index(engine, plain), ["Cat"])[0]["freq"] == 0   # without the flag, case counts


def test_cli_index_fold_case(db_env, tmp_path) -> None:  # type: ignore[no-untyped-def]
    doc = tmp_path / "a.txt"
    doc.write_text("Wind Turbine blades; wind turbine towers. WIND TURBINE", encoding="utf-8")
    name = f"fold-cli-{uuid.uuid4().hex[:8]}"
    runner = CliRunner()
    r = runner.invoke(app, ["index", str(doc), "--corpus", name, "--unit", "word", "--fold-case", "-q"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["stats", name, "wind turbine", "Wind Turbine", "--format", "json"])
    assert r.exit_code == 0, r.output
    assert [row["freq"] for row in json.loads(r.stdout)] == [3, 3]
