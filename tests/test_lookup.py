"""Look-ups against brute force on random corpora of every unit: stats, the SQL function, concordance, members."""

from __future__ import annotations

import math
import uuid
from collections import defaultdict

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from termx.errors import PatternError
from termx.index.ingest import Document
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit
from termx.lookup import (
    STATS_FIELDS,
    class_members,
    concordance,
    find_class,
    one_rate_null,
    ridf,
    stats,
)
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents

from .oracle import brute_classes, df_k, substring_occurrences, token_lists

KMAX = 3
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                           HealthCheck.too_slow])

chars = st.text(alphabet="ab_é€\n", min_size=1, max_size=12)
words = st.lists(st.sampled_from(["a", "b", "ab", "é", "日本", ".", "-", "x1"]), min_size=1, max_size=8)
word_text = st.builds(lambda ws, seps: "".join(w + s for w, s in zip(ws, seps, strict=False)).strip() or "a",
                      words, st.lists(st.sampled_from([" ", "\n", "  "]), min_size=8, max_size=8))
corpora = {Unit.byte: st.lists(chars, min_size=1, max_size=4), Unit.char: st.lists(chars, min_size=1, max_size=4),
           Unit.word: st.lists(word_text, min_size=1, max_size=4)}


def build(engine, texts: list[str], unit: Unit, max_k: int = KMAX,  # type: ignore[no-untyped-def]
          store_min_freq: int = 2) -> LoadedIndex:
    """Index `texts` as a fresh corpus (class rows for freq >= `store_min_freq` only) and load it."""
    name = f"lookup-{uuid.uuid4().hex[:12]}"
    index_documents(engine, name, [Document(f"d{n}", t) for n, t in enumerate(texts)], unit, max_k,
                    store_min_freq=store_min_freq)
    return load_index(engine, name)


def as_pattern(sub: tuple[object, ...], unit: Unit) -> str | None:
    """A brute-force substring as pattern text (None for byte strings that are not valid UTF-8)."""
    if unit is Unit.byte:
        try:
            return bytes(sub).decode("utf-8")  # type: ignore[arg-type]
        except UnicodeDecodeError:
            return None
    return ("" if unit is Unit.char else " ").join(str(t) for t in sub)


def as_text(sub: tuple[object, ...], unit: Unit) -> str:
    """Any brute-force substring as the text look-ups show (cut UTF-8 characters as U+FFFD)."""
    if unit is Unit.byte:
        return bytes(sub).decode("utf-8", errors="replace")  # type: ignore[arg-type]
    return ("" if unit is Unit.char else " ").join(str(t) for t in sub)


def sql_stats(engine, corpus: str, patterns: list[str]) -> list[dict]:  # type: ignore[no-untyped-def]
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT * FROM termx.stats(:c, CAST(:p AS text[]))"),
                            {"c": corpus, "p": patterns}).mappings().all()
    return [dict(r) for r in rows]


def same_row(a: dict, b: dict) -> bool:  # type: ignore[type-arg]
    for key in STATS_FIELDS:
        x, y = a[key], b[key]
        if isinstance(x, float) or isinstance(y, float):
            if x is None or y is None or not math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12):
                return False
        elif x != y:
            return False
    return True


def suffix_order(texts: list[str], unit: Unit, occ: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Occurrences sorted as the suffix array sorts them: by the rest of the concatenated token stream."""
    docs = token_lists(texts, unit)
    sep: object = "" if unit is Unit.word else 0
    stream: list[object] = []
    starts = []
    for toks in docs:
        starts.append(len(stream))
        stream.extend(ord(t) if unit is Unit.char else t for t in toks)  # type: ignore[arg-type]
        stream.append(sep)
    return sorted(occ, key=lambda o: stream[starts[o[0]] + o[1]:])


@pytest.mark.parametrize("store_min_freq", [2, 3, 5])
@pytest.mark.parametrize("unit", list(Unit))
def test_every_substring_against_brute_force(engine, unit: Unit,  # type: ignore[no-untyped-def]
                                             store_min_freq: int) -> None:
    """With every repeat stored (2) and with the classes rarer than 3 or 5 computed from the suffix array: the
    library and the SQL function give the same rows, and both the brute-force answers."""
    @SETTINGS
    @given(texts=corpora[unit])
    def check(texts: list[str]) -> None:
        index = build(engine, texts, unit, store_min_freq=store_min_freq)
        docs = token_lists(texts, unit)
        occurrences = substring_occurrences(docs)
        classes = brute_classes(docs)
        class_of = {s: frozenset(occ) for s, occ in occurrences.items()}
        patterns = [p for p in (as_pattern(s, unit) for s in occurrences) if p is not None]
        absent = ["Q"] + [("Q " + p.partition(" ")[2]).strip() if unit is Unit.word else "Q" + p[1:]
                          for p in patterns[:3]]
        rows = stats(index, patterns + absent)
        by_pattern = {r["pattern"]: r for r in rows}
        for sub, occ in occurrences.items():
            pattern = as_pattern(sub, unit)
            if pattern is None:
                continue
            row = by_pattern[pattern]
            assert (row["freq"], row["df"]) == (len(occ), df_k(occ, KMAX)), pattern
            assert row["lbl"] < len(sub) <= row["sil"]
            assert row["j"] - row["i"] + 1 == len(occ)
            members = sorted(classes[class_of[sub]], key=len)
            assert class_members(index, pattern) == [as_text(m, unit) for m in members]
            assert row["shortest"] == as_text(members[0], unit)
            assert row["longest"] == as_text(members[-1], unit)
            assert row["adaptation"] == (row["df"][1] / row["df"][0])
            assert row["poisson_adaptation"] == one_rate_null(len(occ), len(texts))
            assert row["ridf"] == ridf(row["df"][0], len(occ), len(texts))
        for row in rows[len(patterns):]:
            assert row["freq"] == 0 and row["df"] == [0] * KMAX
            assert all(row[k] is None for k in ("i", "j", "lbl", "sil", "adaptation", "ridf", "longest"))
        # the SQL function: same rows (it is exact for freq 1 and 0 too, through the stored suffix array)
        got = sql_stats(engine, index.corpus.name, patterns + absent)
        assert [r["pattern"] for r in got] == [r["pattern"] for r in rows]
        for a, b in zip(got, rows, strict=True):
            assert same_row(a, b), (a, b)

    check()


@pytest.mark.parametrize("unit", list(Unit))
def test_concordance_is_the_naive_scan_in_suffix_array_order(engine, unit: Unit) -> None:  # type: ignore[no-untyped-def]
    @SETTINGS
    @given(texts=corpora[unit], left=st.integers(0, 4), right=st.integers(0, 4))
    def check(texts: list[str], left: int, right: int) -> None:
        index = build(engine, texts, unit)
        docs = token_lists(texts, unit)
        for sub, occ in substring_occurrences(docs).items():
            pattern = as_pattern(sub, unit)
            if pattern is None or len(sub) > 3:
                continue
            lines = concordance(index, pattern, left, right)
            assert [(r["doc_no"], r["offset"]) for r in lines] == suffix_order(texts, unit, occ)
            assert [r["rank"] for r in lines] == list(range(lines[0]["rank"], lines[0]["rank"] + len(occ)))
            for r in lines:
                toks, o = docs[r["doc_no"]], r["offset"]
                assert r["doc"] == f"d{r['doc_no']}"
                assert r["match"] == as_text(sub, unit)
                before, after = toks[max(0, o - left):o], toks[o + len(sub): o + len(sub) + right]
                if unit is Unit.byte:  # contexts keep whole characters only
                    assert as_text(tuple(before), unit).endswith(r["left"])
                    assert as_text(tuple(after), unit).startswith(r["right"])
                    assert "\ufffd" not in r["left"] + r["right"]
                else:
                    assert (r["left"], r["right"]) == (as_text(tuple(before), unit), as_text(tuple(after), unit))
            assert concordance(index, pattern, left, right, limit=1) == lines[:1]
            with engine.connect() as conn:
                sql = conn.execute(sa.text("SELECT rank, doc, doc_offset, left_context, match, right_context "
                                           "FROM termx.concordance(:c, :p, :l, :r, 1000)"),
                                   {"c": index.corpus.name, "p": pattern, "l": left, "r": right}).all()
            assert [tuple(x) for x in sql] == [(r["rank"], r["doc"], r["offset"], r["left"], r["match"], r["right"])
                                               for r in lines]

    check()


def test_worked_example_hi_ho(engine) -> None:  # type: ignore[no-untyped-def]
    index = build(engine, ["Hi_Ho_Hi_Ho", "Hi_Ho", "Hi"], Unit.byte, max_k=4)
    rows = {r["pattern"]: r for r in stats(index, ["H", "Hi", "Ho", "Hi_Ho", "_", "xyz"])}
    want = {"H": (7, [3, 2, 1]), "Hi": (4, [3, 1, 0]), "Ho": (3, [2, 1, 0]), "Hi_Ho": (3, [2, 1, 0]),
            "_": (4, [2, 1, 1]), "xyz": (0, [0, 0, 0])}
    assert {p: (r["freq"], r["df"][:3]) for p, r in rows.items()} == want
    assert (rows["Hi_Ho"]["shortest"], rows["Hi_Ho"]["longest"]) == ("Hi_", "Hi_Ho")
    assert rows["Hi"]["adaptation"] == pytest.approx(1 / 3)
    lam = 4 / 3
    assert rows["Hi"]["poisson_adaptation"] == pytest.approx(1 - lam * math.exp(-lam) / (1 - math.exp(-lam)))
    assert rows["Hi"]["ridf"] == pytest.approx(-math.log2(3 / 3) + math.log2(1 - math.exp(-lam)))


def test_to_be_or_not_to_be_classes(engine) -> None:  # type: ignore[no-untyped-def]
    index = build(engine, ["to_be_or_not_to_be"], Unit.byte)
    assert class_members(index, "to_") == ["to", "to_", "to_b", "to_be"]
    assert class_members(index, "b") == ["b", "be"]
    assert class_members(index, "o_b", limit=2) == ["o_", "o_b"]
    assert class_members(index, "zz") == []


def test_cut_characters_show_as_replacement(engine) -> None:  # type: ignore[no-untyped-def]
    index = build(engine, ["café", "cafè", "naïve café"], Unit.byte)
    row = stats(index, ["caf"])[0]
    assert (row["freq"], row["sil"], row["longest"]) == (3, 4, "caf\ufffd")  # é and è share the byte C3
    assert class_members(index, "caf") == ["c", "ca", "caf", "caf\ufffd"][-(row["sil"] - row["lbl"]):]
    assert sql_stats(engine, index.corpus.name, ["caf"])[0]["longest"] == "caf\ufffd"


def test_longest_is_cut_at_rep_cap_like_the_stored_rep(engine) -> None:  # type: ignore[no-untyped-def]
    long = "y" + "x" * 150
    index = build(engine, [long, long + "z"], Unit.char)
    assert index.corpus.rep_cap == 100
    row = stats(index, ["yxx"])[0]
    assert (row["freq"], row["sil"], row["longest"]) == (2, 151, long[:100])
    for pattern in ("yxx", "y" + "x" * 119):  # the second is longer than rep_cap: SQL takes the suffix array
        assert same_row(sql_stats(engine, index.corpus.name, [pattern])[0], stats(index, [pattern])[0])
    words = " ".join(f"{n:02d}" + "w" * 48 for n in range(30))  # 30 words of 50 bytes: reps stop at 1000 bytes
    index = build(engine, [words, words + " end"], Unit.word)
    short_pattern = " ".join(words.split()[:9])
    row = stats(index, [short_pattern])[0]
    assert row["sil"] == 30 and row["longest"] == " ".join(words.split()[:19])  # 19 * 51 - 1 = 968 bytes
    long_pattern = " ".join(words.split()[:25])  # 25 words, under rep_cap but past the 1000 stored bytes
    for pattern in (short_pattern, long_pattern):
        assert same_row(sql_stats(engine, index.corpus.name, [pattern])[0], stats(index, [pattern])[0])


@pytest.mark.parametrize("unit", list(Unit))
def test_bad_patterns(engine, unit: Unit) -> None:  # type: ignore[no-untyped-def]
    index = build(engine, ["ab ab", "b"], unit)
    for bad, what in (("", "empty pattern"), ("a\0b", "NUL"), ("a\udcffb", "not valid UTF-8"),
                      ("a b a b a b", "more than the longest document")):
        with pytest.raises(PatternError, match=what):
            stats(index, [bad])
    if unit is Unit.word:
        with pytest.raises(PatternError, match="holds no words"):
            find_class(index, "   ")
    with engine.connect() as conn:
        for bad, what in (("", "empty pattern"), ("a b a b a b", "more than the longest document")):
            with pytest.raises(sa.exc.DBAPIError, match=what):
                conn.execute(sa.text("SELECT * FROM termx.stats(:c, :p)"), {"c": index.corpus.name, "p": bad})
            conn.rollback()


def test_sql_word_split_is_the_indexers(engine) -> None:  # type: ignore[no-untyped-def]
    from termx.index.units import split_words

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=30))
    def check(text: str) -> None:
        with engine.connect() as conn:
            got = conn.execute(sa.text("SELECT termx.split_words(:t)"), {"t": text}).scalar_one()
        assert got == split_words(text)

    check()
    # characters where PostgreSQL's own \w and \s disagree with Python's
    for text in ("a\u00a0b", "x\u00b2 \u00bd", "\u05d0\u05b0b", "\u24d0 z", "n\u0085o"):
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT termx.split_words(:t)"), {"t": text}).scalar_one() == \
                split_words(text)


def test_documents_per_k(engine) -> None:  # type: ignore[no-untyped-def]
    texts = ["aaa b aaa", "aa", "b b b"]
    index = build(engine, texts, Unit.char)
    per_doc: dict[int, int] = defaultdict(int)
    for r in concordance(index, "aa"):
        per_doc[r["doc_no"]] += 1
    assert dict(per_doc) == {0: 4, 1: 1}  # overlapping occurrences count
    assert find_class(index, "aa").df == [2, 1, 1]
