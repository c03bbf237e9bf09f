"""Term extraction against brute force: candidates, every ranking's SQL (specificity against a reference corpus
too), filters, ties, planted bursty terms."""

from __future__ import annotations

import math
import re
import uuid
from collections import Counter, defaultdict

import numpy as np
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from termx.errors import CorpusNotFound, InputError
from termx.index.ingest import Document
from termx.index.units import Unit, tokenize
from termx.poisson import length_aware_poisson_adaptation
from termx.storage.corpora import drop_corpus
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents
from termx.terms import (
    NULL_BINS,
    PREPOSITIONS,
    STOP_WORDS,
    Ranking,
    candidate_classes,
    extract_terms,
    save_terms,
)

KMAX = 4
WORD_CHARS = re.compile(r"\w")
LETTERS = re.compile(r"[^\W\d_]")
BREAKING = set(".,\n")          # the test alphabets' breaking characters ('-' and ' ' are not)


def _index(engine, texts: list[str], unit: Unit, max_k: int = KMAX) -> str:  # type: ignore[no-untyped-def]
    name = f"terms-{uuid.uuid4().hex[:12]}"
    index_documents(engine, name, [Document(f"d{n}", t) for n, t in enumerate(texts)], unit, max_k)
    return name


# --- the brute-force oracle ---------------------------------------------------------------------------------

def _kinds(texts: list[str], unit: Unit) -> list[str]:
    """Kind of every position of the concatenated token array: W (a letter, or a word that may edge a term),
    I (other word characters; stop words, numbers), S (a space), B (breaking; also a space after a space),
    O (other), Z (separator); every byte of a character gets the character's kind."""
    out: list[str] = []
    for t in texts:
        if unit is Unit.word:
            for w in re.findall(r"\w+|[^\w\s]", t):
                if w in BREAKING:
                    out.append("B")
                elif re.match(r"\w", w):
                    out.append("W" if w.lower() not in STOP_WORDS and re.search("[a-zA-Z]", w) else "I")
                else:
                    out.append("O")
        else:
            for n, ch in enumerate(t):
                k = ("W" if LETTERS.match(ch) else "I" if WORD_CHARS.match(ch) else
                     ("B" if n > 0 and t[n - 1] == " " else "S") if ch == " " else "B" if ch in BREAKING else "O")
                out.extend(k * (len(ch.encode("utf-8")) if unit is Unit.byte else 1))
        out.append("Z")
    return out


def _glue(texts: list[str]) -> list[bool]:
    glue: list[bool] = []
    for t in texts:
        spans = [m.span() for m in re.finditer(r"\w+|[^\w\s]", t)]
        glue.extend([False] + [spans[k][0] == spans[k - 1][1] for k in range(1, len(spans))])
        glue.append(False)
    return glue


def _context(p: int, toks: list[int], kind: list[str], spaced: bool) -> object:
    """What precedes position p: None when a term cannot be extended by it, else a token or a word."""
    if kind[p - 1] == "W":
        return ("token", toks[p - 1])
    if kind[p - 1] == "S" and spaced and kind[p - 2] in "WI":
        r = p - 2
        while kind[r - 1] in "WI":
            r -= 1
        return ("word", tuple(toks[r:p - 1])) if kind[r] == "W" else None
    return None


def _text(sub: tuple[int, ...], unit: Unit, vocab: list[str] | None) -> str | None:
    """The member as text (tokens joined without spaces); None when bytes cut a UTF-8 character."""
    if unit is Unit.byte:
        try:
            return bytes(sub).decode("utf-8")
        except UnicodeDecodeError:
            return None
    assert vocab is not None
    return "".join(vocab[t - 1] for t in sub)


def _acceptable(sub: tuple[int, ...], text: str | None, where: list[int], kind: list[str], spaced: bool,
                words: list[tuple[str, bool]] | None) -> bool:
    """Begins and ends with a whole letter/word, holds nothing breaking; word units (`words`: each token and
    whether white space is on both its sides): no such loose stop word inside but one preposition; if spaced,
    mostly whole words and no stop word at either end."""
    ln, p = len(sub), where[0]
    if text is None or ln > 100 or "B" in kind[p:p + ln] or kind[p] != "W" or kind[p + ln - 1] != "W":
        return False
    if words is not None:
        inner = [w.lower() for w, loose in words if loose and w.lower() in STOP_WORDS]
        if len(inner) > 1 or any(w not in PREPOSITIONS for w in inner):
            return False
    if spaced:
        whole = sum(1 for s in where if kind[s - 1] not in "WI" and kind[s + ln] not in "WI")
        words = re.findall(r"\w+", text)
        return 2 * whole >= len(where) and words[0].lower() not in STOP_WORDS and words[-1].lower() not in STOP_WORDS
    return True


def _loose(sub: tuple[int, ...], at: int, vocab: list[str] | None, glue: list[bool]) -> list[tuple[str, bool]]:
    """The member's words at position `at`, each with whether white space is on both its sides."""
    assert vocab is not None
    return [(vocab[t - 1], not glue[at + k] and not glue[at + k + 1]) for k, t in enumerate(sub)]


def oracle(texts: list[str], unit: Unit) -> list[dict]:  # type: ignore[type-arg]
    """Every candidate with freq, df_k, length and all five scores, by enumerating substrings: per class (the
    substrings with one occurrence set) of a left-maximal occurrence set, its longest acceptable member."""
    ta = tokenize(texts, unit)
    toks = ta.tokens.astype(np.int64).tolist()
    n_docs, n = len(texts), int(ta.doc_len.sum())
    occ: dict[tuple[int, ...], list[int]] = defaultdict(list)
    doc_of: dict[int, int] = {}
    for d, (s0, ln) in enumerate(zip(ta.doc_start.tolist(), ta.doc_len.tolist(), strict=True)):
        for s in range(s0, s0 + ln):
            doc_of[s] = d
            for e in range(s + 1, s0 + ln + 1):
                occ[tuple(toks[s:e])].append(s)
    classes: dict[tuple[int, ...], list[tuple[int, ...]]] = defaultdict(list)
    for sub, where in occ.items():
        if len(where) >= 2:
            classes[tuple(where)].append(sub)
    kind = _kinds(texts, unit)
    spaced = unit is not Unit.word and kind.count("S") >= 0.05 * n
    glue = _glue(texts) if unit is Unit.word else None
    lengths = ta.doc_len.astype(float)
    out = []
    for where_t, members in classes.items():
        where = list(where_t)
        contexts = [_context(p, toks, kind, spaced) for p in where]
        if None not in contexts and len(set(contexts)) == 1:
            continue   # always preceded by the same word/token: a fragment of a longer candidate
        first = min(where, key=lambda p: toks[p:])   # the first occurrence in suffix order
        sub = next((m for m in sorted(members, key=len, reverse=True)
                    if _acceptable(m, _text(m, unit, ta.vocab), where, kind, spaced,
                                   _loose(m, first, ta.vocab, glue) if glue is not None else None)), None)
        if sub is None:
            continue
        ln = len(sub)
        if unit is Unit.byte:
            text = bytes(sub).decode("utf-8")
        else:
            assert ta.vocab is not None
            words = [ta.vocab[t - 1] for t in sub]
            text = "".join(words)
            if glue is not None:
                text = "".join(("" if k == 0 or glue[first + k] else " ") + w for k, w in enumerate(words))
        counts = Counter(doc_of[p] for p in where)
        df = [sum(1 for c in counts.values() if c >= k) for k in range(1, KMAX + 1)]
        f = len(where)
        x = f * lengths / n
        p0 = float((-np.expm1(-x) - x * np.exp(-x)).sum() / (-np.expm1(-x)).sum())
        e = df[0] * p0
        g2 = 2 * ((df[1] * math.log(df[1] / e) if df[1] else 0.0)
                  + ((df[0] - df[1]) * math.log((df[0] - df[1]) / (df[0] - e)) if df[0] > df[1] else 0.0))
        out.append({"term": text, "freq": f, "df": df, "len": ln, "scores": {
            "adaptation": (df[1] + 0.5) / (df[0] + 1),
            "poisson": math.copysign(g2, df[1] - e),
            "ridf": math.log2(n_docs / df[0]) + math.log2(1 - math.exp(-f / n_docs)),
            "freq": float(f), "df": float(df[0])}})
    return out


def _token_strings(text: str, unit: Unit) -> list[object]:
    """The tokens of a text as comparable values (bytes, characters or words), for counting in a reference."""
    if unit is Unit.byte:
        return list(text.encode("utf-8"))
    if unit is Unit.char:
        return list(text)
    return re.findall(r"\w+|[^\w\s]", text)


def add_specificity(cands: list[dict], texts: list[str], ref_texts: list[str], unit: Unit) -> None:  # type: ignore[type-arg]
    """Give each oracle candidate its brute-force reference counts and specificity score (sql/terms_specificity.sql:
    ln((freq / N) / ((ref_freq + 1) / N_ref)) * ln(freq))."""
    n = sum(len(_token_strings(t, unit)) for t in texts)
    ref_docs = [_token_strings(t, unit) for t in ref_texts]
    n_ref = sum(len(d) for d in ref_docs)
    for c in cands:
        sub = _token_strings(c["term"], unit)
        per_doc = [sum(d[s: s + len(sub)] == sub for s in range(len(d) - len(sub) + 1)) for d in ref_docs]
        c["ref_freq"], c["ref_df"] = sum(per_doc), sum(1 for k in per_doc if k)
        c["scores"]["specificity"] = math.log((c["freq"] / n) / ((c["ref_freq"] + 1) / n_ref)) * math.log(c["freq"])


def _expected(cands: list[dict], rank: str, min_df: int, min_len: int, max_len: int) -> list[dict]:  # type: ignore[type-arg]
    keep = [c for c in cands if c["df"][0] >= min_df and min_len <= c["len"] <= max_len]
    return sorted(keep, key=lambda c: (-c["scores"][rank], -c["freq"], c["term"].encode("utf-8")))


def _contains(longer: list[object], shorter: list[object]) -> bool:
    return any(longer[s:s + len(shorter)] == shorter for s in range(len(longer) - len(shorter) + 1))


def add_nested(keep: list[dict], unit: Unit, n: int, n_ref: int | None) -> list[dict]:  # type: ignore[type-arg]
    """Copies of the filtered oracle candidates with brute-force C-value scores (Frantzi et al.): f' = freq minus
    the mean freq of the longer kept candidates whose tokens contain the candidate's as a contiguous run;
    cvalue = log2(len + 1) f'; freq+nested = f'; specificity+nested = the specificity formula with max(f', 1)."""
    out = []
    for a in keep:
        ta = _token_strings(a["term"], unit)
        outer = [b["freq"] for b in keep
                 if len(_token_strings(b["term"], unit)) > len(ta) and _contains(_token_strings(b["term"], unit), ta)]
        f = a["freq"] - (sum(outer) / len(outer) if outer else 0.0)
        scores = {**a["scores"], "cvalue": math.log2(len(ta) + 1) * f, "freq+nested": f}
        if n_ref is not None:
            g = max(f, 1.0)
            scores["specificity+nested"] = math.log((g / n) / ((a["ref_freq"] + 1) / n_ref)) * math.log(g)
        out.append({**a, "scores": scores})
    return out


def _agree(got: list[dict], want: list[dict], rank: str) -> None:  # type: ignore[type-arg]
    """Same candidates with the same numbers, in an order the NumPy scores confirm (equal up to rounding)."""
    assert sorted(r["term"] for r in got) == sorted(c["term"] for c in want)
    by_term = {c["term"]: c for c in want}
    for n, r in enumerate(got, 1):
        c = by_term[r["term"]]
        assert r["rank"] == n
        assert (r["freq"], list(r["df"]), r["len"]) == (c["freq"], c["df"], c["len"])
        assert r["score"] == pytest.approx(c["scores"][rank], rel=1e-9, abs=1e-12)
    key = [(-by_term[r["term"]]["scores"][rank], -r["freq"], r["term"].encode("utf-8")) for r in got]
    for a, b in zip(key, key[1:], strict=False):
        assert a[0] <= b[0] + 1e-9 * max(1.0, abs(b[0]))
        if math.isclose(a[0], b[0], rel_tol=1e-12, abs_tol=1e-15):
            assert a[1:] <= b[1:]


# --- SQL rankings against the oracle ------------------------------------------------------------------------

FILTERS = st.tuples(st.integers(1, 3), st.integers(1, 4), st.integers(1, 12))


def _joined(pieces: list[str], seps: list[str], max_size: int) -> st.SearchStrategy[str]:
    """Texts made of repeated pieces and separators, so that substrings recur inside and across documents."""
    pairs = st.lists(st.tuples(st.sampled_from(pieces), st.sampled_from(seps)), min_size=1, max_size=max_size)
    return pairs.map(lambda ps: "".join(w + sep for w, sep in ps))


BYTE_TEXT = _joined(["ab", "ba", "aab", "é", "bé1", "a-b", "1"], [" ", " ", "  ", "", ".", "\n", "-"], 12)
CHAR_TEXT = _joined(["中文", "文", "中国", "ab", "b", "1中"], ["", "", " ", "  ", ","], 12)
WORD_TEXT = _joined(["wind energy", "wind turbine", "the wind", "of the blade", "Wind", "42", "energy-blade", "of wind",
                     "in", "cut-out", "of-the"],
                    [" ", " ", ". ", " - ", ""], 10)


def _check_all_rankings(engine, texts: list[str], unit: Unit, filters: tuple[int, int, int],  # type: ignore[no-untyped-def]
                        ref_texts: list[str]) -> None:
    """Every ranking against the oracle; specificity against a reference corpus of `ref_texts`."""
    min_df, min_len, span = filters
    name = _index(engine, texts, unit)
    ref = _index(engine, ref_texts, unit)
    try:
        cands = oracle(texts, unit)
        add_specificity(cands, texts, ref_texts, unit)
        n = sum(len(_token_strings(t, unit)) for t in texts)
        n_ref = sum(len(_token_strings(t, unit)) for t in ref_texts)
        kept = add_nested([c for c in cands if c["df"][0] >= min_df and min_len <= c["len"] <= min_len + span],
                          unit, n, n_ref)
        for rank, nested in [(r, False) for r in Ranking] + [(Ranking.freq, True), (Ranking.specificity, True)]:
            reference = ref if rank is Ranking.specificity else None
            got = extract_terms(engine, name, rank, 10**6, min_df, min_len, min_len + span, reference=reference,
                                nested=nested)
            key = rank.value + ("+nested" if nested else "")
            want = _expected(kept, key, min_df, min_len, min_len + span)
            _agree(got, want, key)
            if reference is not None:
                by_term = {c["term"]: c for c in want}
                assert [(r["ref_freq"], r["ref_df"]) for r in got] == \
                    [(by_term[r["term"]]["ref_freq"], by_term[r["term"]]["ref_df"]) for r in got]
    finally:
        drop_corpus(engine, name)
        drop_corpus(engine, ref)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(BYTE_TEXT, min_size=1, max_size=6), filters=FILTERS,
       ref=st.lists(BYTE_TEXT, min_size=1, max_size=4))
def test_rankings_match_numpy_bytes(engine, texts: list[str], filters: tuple[int, int, int], ref: list[str]) -> None:
    _check_all_rankings(engine, texts, Unit.byte, filters, ref)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(CHAR_TEXT, min_size=1, max_size=6), filters=FILTERS,
       ref=st.lists(CHAR_TEXT, min_size=1, max_size=4))
def test_rankings_match_numpy_chars(engine, texts: list[str], filters: tuple[int, int, int], ref: list[str]) -> None:
    _check_all_rankings(engine, texts, Unit.char, filters, ref)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(WORD_TEXT, min_size=1, max_size=6), filters=FILTERS,
       ref=st.lists(WORD_TEXT, min_size=1, max_size=4))
def test_rankings_match_numpy_words(engine, texts: list[str], filters: tuple[int, int, int], ref: list[str]) -> None:
    _check_all_rankings(engine, texts, Unit.word, filters, ref)


SPACED = ["the wind turbine blade", "a wind turbine and a wind farm", "information about the form",
          "wind farm information", "formal form of information", "the wind turbine"]


def test_spaced_rankings_match_numpy(engine) -> None:  # type: ignore[no-untyped-def]
    """Spaced byte text exercises the whole-word rule ("form" sits mostly inside "information")."""
    _check_all_rankings(engine, SPACED, Unit.byte, (1, 1, 30), SPACED[3:] + ["wind wind wind"])
    _check_all_rankings(engine, SPACED, Unit.char, (1, 1, 30), ["the form of the wind", "é wind"])
    # "energy" always follows "3M", which cannot begin a term: it stays a candidate
    _check_all_rankings(engine, ["3M energy plan", "3M energy", "a 3M energy"], Unit.byte, (1, 1, 30), ["energy"])


# --- candidates -----------------------------------------------------------------------------------------------

NORIEGA = ["Gen. Manuel Noriega said no.", "Manuel Noriega left. Manuel Noriega came back.",
           "Manuel Noriegas are rare but Manuel Noriega is not.", "nothing here"]


@pytest.mark.parametrize("unit", [Unit.byte, Unit.char, Unit.word])
def test_fragments_always_preceded_by_one_token_are_dropped(engine, unit: Unit) -> None:  # type: ignore[no-untyped-def]
    name = _index(engine, NORIEGA, unit)
    index = load_index(engine, name)
    from termx.terms.candidate_store import _texts

    terms = set(candidate_classes(index, _texts(engine, index)).terms)
    assert "Manuel Noriega" in terms
    assert "Noriega" not in terms and "anuel Noriega" not in terms
    drop_corpus(engine, name)


def test_spaced_text_drops_candidates_inside_words_or_edged_by_stop_words(engine) -> None:  # type: ignore[no-untyped-def]
    name = _index(engine, SPACED, Unit.byte)
    got = {r["term"] for r in extract_terms(engine, name, "freq", 1000, 1, 1, 40)}
    assert {"wind turbine", "wind farm", "information"} <= got
    assert not {"form", "ind", "wind turbin", "rm", " wind", "wind ", "the wind turbine", "a wind"} & got
    drop_corpus(engine, name)


def test_word_candidates_keep_their_spelling_and_skip_stop_word_edges(engine) -> None:  # type: ignore[no-untyped-def]
    texts = ["the anti-corruption law of the land", "anti-corruption law. The anti-corruption law",
             "an anti-corruption law", "the land of anti-corruption"]
    name = _index(engine, texts, Unit.word)
    got = {r["term"] for r in extract_terms(engine, name, "df", 1000, 1, 1, 40)}
    assert {"anti-corruption", "anti-corruption law", "land"} <= got
    assert not {"anti - corruption", "the land", "law of the", "law."} & got
    drop_corpus(engine, name)


def test_word_candidates_hold_no_stop_word_inside_but_one_preposition(engine) -> None:  # type: ignore[no-untyped-def]
    texts = ["abuse of power and money laundering", "abuse of power. Abuse of power and money laundering",
             "money laundering in the banks of the city", "money laundering in the banks of the city",
             "trading in influence of officials", "trading in influence of officials",
             "the cut-out wind speed of Bernoulli's equation", "a cut-out wind speed of Bernoulli's equation"]
    name = _index(engine, texts, Unit.word)
    got = {r["term"] for r in extract_terms(engine, name, "df", 1000, 1, 1, 40)}
    # "banks", "trading in influence": the longest members of their classes that pass
    # stop words that are parts of words ("out" in "cut-out", "s" in "Bernoulli's") do not count
    assert {"abuse of power", "money laundering", "banks", "city", "trading in influence",
            "cut-out wind speed of Bernoulli's equation"} <= got
    assert not {"trading in influence of officials", "power and money laundering", "laundering in the banks",
                "money laundering in the banks of the city", "banks of the city"} & got
    drop_corpus(engine, name)


def test_candidates_of_older_rules_are_rebuilt(engine) -> None:  # type: ignore[no-untyped-def]
    """A candidate set stored under another CANDIDATE_RULES version (and its reference counts) is recomputed."""
    from termx.terms import CANDIDATE_RULES

    texts = ["abuse of power and money laundering", "abuse of power and money laundering", "money laundering"]
    name, ref = _index(engine, texts, Unit.word), _index(engine, ["money", "power"], Unit.word)
    want = extract_terms(engine, name, "specificity", 1000, 1, 1, 40, reference=ref)
    with engine.begin() as conn:
        shards = "SELECT s.id FROM termx.shard s JOIN termx.corpus c ON c.id = s.corpus_id WHERE c.name = :n"
        conn.execute(sa.text(f"UPDATE termx.candidate_set SET rules = :r WHERE shard_id IN ({shards})"),
                     {"r": CANDIDATE_RULES - 1, "n": name})
        conn.execute(sa.text(f"UPDATE termx.candidate SET term = 'stale' WHERE shard_id IN ({shards})"), {"n": name})
    assert extract_terms(engine, name, "specificity", 1000, 1, 1, 40, reference=ref) == want
    with engine.connect() as conn:
        rules = conn.execute(sa.text(f"SELECT rules FROM termx.candidate_set WHERE shard_id IN ({shards})"),
                             {"n": name}).scalars().all()
    assert rules == [CANDIDATE_RULES]
    assert "abuse of power" in {r["term"] for r in want}
    drop_corpus(engine, name)
    drop_corpus(engine, ref)


def test_null_adaptation_matches_per_document_sum() -> None:
    rng = np.random.default_rng(1)
    freq = np.array([2, 3, 10, 500, 10**5])
    for lengths in (rng.integers(1, 50, size=40), rng.integers(1, 10**5, size=5 * NULL_BINS)):
        n = lengths.sum()
        for f, got in zip(freq, length_aware_poisson_adaptation(freq, lengths, NULL_BINS), strict=True):
            x = f * lengths / n
            want = (-np.expm1(-x) - x * np.exp(-x)).sum() / (-np.expm1(-x)).sum()
            assert got == pytest.approx(want, rel=1e-3 if len(lengths) > NULL_BINS else 1e-12)


# --- filters, ties, errors, saving -------------------------------------------------------------------------

def test_filters_and_top(engine) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(7)
    texts = ["".join(rng.choice(list("abcab"), size=60)) for _ in range(8)]
    name = _index(engine, texts, Unit.byte)
    everything = extract_terms(engine, name, "adaptation", 10**6, 1, 1, 100)
    for min_df, min_len, max_len in ((1, 1, 3), (3, 2, 5), (8, 4, 4)):
        rows = extract_terms(engine, name, "adaptation", 10**6, min_df, min_len, max_len)
        assert rows == [dict(r, rank=n) for n, r in enumerate(
            (r for r in everything if r["df"][0] >= min_df and min_len <= r["len"] <= max_len), 1)]
        assert extract_terms(engine, name, "adaptation", 5, min_df, min_len, max_len) == rows[:5]
    drop_corpus(engine, name)


def test_ties_are_ordered_by_freq_then_term(engine) -> None:  # type: ignore[no-untyped-def]
    texts = ["xyz abc xyz abc", "abc xyz", "qrs abc", "qrs xyz", "abc qrs xyz"]
    name = _index(engine, texts, Unit.word)
    ref = _index(engine, ["abc", "qrs"], Unit.word)   # xyz never occurs there; abc and qrs tie
    for rank in Ranking:
        reference = ref if rank is Ranking.specificity else None
        rows = extract_terms(engine, name, rank, 100, 1, 1, 3, reference=reference)
        keys = [(-r["score"], -r["freq"], r["term"].encode()) for r in rows]
        assert keys == sorted(keys)
        assert rows == extract_terms(engine, name, rank, 100, 1, 1, 3, reference=reference)
    rows = extract_terms(engine, name, "df", 100, 1, 1, 1)
    assert [r["term"] for r in rows] == ["abc", "xyz", "qrs"]
    drop_corpus(engine, name)
    drop_corpus(engine, ref)


def test_bad_parameters_are_input_errors(engine) -> None:  # type: ignore[no-untyped-def]
    name = _index(engine, ["ab ab", "ab"], Unit.byte, max_k=1)
    with pytest.raises(InputError, match="max_k=1"):
        extract_terms(engine, name, "adaptation")
    assert extract_terms(engine, name, "freq", 10, 1, 1, 5)[0]["term"] == "ab"
    for bad in ({"top": 0}, {"min_df": 0}, {"min_len": 3, "max_len": 2}):
        with pytest.raises(InputError):
            extract_terms(engine, name, "freq", **bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        extract_terms(engine, name, "tfidf")
    drop_corpus(engine, name)


def test_save_stores_the_ranked_list(engine) -> None:  # type: ignore[no-untyped-def]
    name = _index(engine, SPACED, Unit.byte)
    rows = extract_terms(engine, name, "adaptation", 5, 1, 1, 40)
    list_name = f"list-{uuid.uuid4().hex[:8]}"
    list_id = save_terms(engine, list_name, name, rows, {"rank": "adaptation", "top": 5})
    with engine.connect() as conn:
        stored = conn.execute(sa.text("SELECT rank, term, score, freq, df FROM termx.term WHERE list_id = :l"
                                      " ORDER BY rank"), {"l": list_id}).mappings().all()
        params = conn.execute(sa.text("SELECT params FROM termx.term_list WHERE id = :l"), {"l": list_id}).scalar()
    assert [dict(r) for r in stored] == [{k: r[k] for k in ("rank", "term", "score", "freq", "df")} for r in rows]
    assert params == {"rank": "adaptation", "top": 5}
    with pytest.raises(InputError, match="already exists"):
        save_terms(engine, list_name, name, rows[:1], {})
    save_terms(engine, list_name, name, rows[:1], {}, replace=True)
    drop_corpus(engine, name)
    with engine.connect() as conn:   # the list goes with its corpus
        assert conn.execute(sa.text("SELECT count(*) FROM termx.term_list WHERE name = :n"),
                            {"n": list_name}).scalar() == 0


# --- planted bursty terms vs scattered fragments ---------------------------------------------------------

def _planted_corpus(seed: int = 0) -> tuple[list[str], list[str], list[str]]:
    """200 documents of random lower-case text; 10 planted terms that are either absent from a document or
    appear 1 + Poisson(2) times, and 10 fragments with exactly the same total counts scattered uniformly."""
    rng = np.random.default_rng(seed)
    n_docs = 200
    inserts: list[list[str]] = [[] for _ in range(n_docs)]
    words = ["".join(rng.choice(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), size=8)) for _ in range(20)]
    planted, fragments = words[:10], words[10:]
    for term, fragment in zip(planted, fragments, strict=True):
        total = 0
        for d in range(n_docs):
            if rng.random() < 0.1:
                k = 1 + rng.poisson(2)
                inserts[d].extend([term] * k)
                total += k
        for d in rng.integers(0, n_docs, size=total):
            inserts[d].append(fragment)
    texts = []
    for d in range(n_docs):
        pieces = ["".join(rng.choice(list("abcdefgh"), size=300))]
        for w in rng.permutation(np.array(inserts[d], dtype=object)):
            pieces += [w, "".join(rng.choice(list("abcdefgh"), size=int(rng.integers(1, 40))))]
        texts.append("".join(pieces))
    return texts, planted, fragments


def test_planted_terms_outrank_fragments_by_adaptation_not_by_freq(engine) -> None:  # type: ignore[no-untyped-def]
    texts, planted, fragments = _planted_corpus()
    name = _index(engine, texts, Unit.byte)
    totals = {w: sum(t.count(w) for t in texts) for w in planted + fragments}
    assert sorted(totals[w] for w in planted) == sorted(totals[w] for w in fragments)
    for rank, separates in (("adaptation", True), ("poisson", True), ("freq", False)):
        order = [r["term"] for r in extract_terms(engine, name, rank, 10**6, 1, 8, 8)]
        pos = {w: order.index(w) for w in planted + fragments}
        assert (max(pos[w] for w in planted) < min(pos[w] for w in fragments)) is separates, rank
    drop_corpus(engine, name)


def test_specificity_puts_planted_terms_above_fragments_common_in_the_reference(engine) -> None:  # type: ignore[no-untyped-def]
    """With a reference corpus where the fragments are everyday strings and the planted terms never occur,
    specificity separates the equally frequent strings (by the reference, not by burstiness); freq does not."""
    texts, planted, fragments = _planted_corpus()
    rng = np.random.default_rng(1)
    reference = ["".join(rng.choice(list("abcdefgh"), size=200)) + " ".join(fragments) for _ in range(30)]
    name = _index(engine, texts, Unit.byte)
    ref = _index(engine, reference, Unit.byte)
    order = [r["term"] for r in extract_terms(engine, name, "specificity", 10**6, 1, 8, 8, reference=ref)]
    pos = {w: order.index(w) for w in planted + fragments}
    assert max(pos[w] for w in planted) < min(pos[w] for w in fragments)
    drop_corpus(engine, name)
    drop_corpus(engine, ref)


def test_reference_errors(engine) -> None:  # type: ignore[no-untyped-def]
    name = _index(engine, ["wind turbine wind turbine", "wind turbine"], Unit.word)
    chars = _index(engine, ["wind turbine"], Unit.char)
    with pytest.raises(CorpusNotFound, match="reference corpus 'no-such-corpus' not found"):
        extract_terms(engine, name, "specificity", reference="no-such-corpus")
    with pytest.raises(InputError, match="has unit char"):
        extract_terms(engine, name, "specificity", reference=chars)
    with pytest.raises(InputError, match="must differ"):
        extract_terms(engine, name, "specificity", reference=name)
    with pytest.raises(InputError, match="needs `reference=REF`"):
        extract_terms(engine, name, "specificity")
    with pytest.raises(InputError, match="only serves"):
        extract_terms(engine, name, "freq", reference=chars)
    drop_corpus(engine, name)
    drop_corpus(engine, chars)


def test_reference_counts_follow_a_rebuilt_reference(engine) -> None:  # type: ignore[no-untyped-def]
    """Counts are stored per (corpus, reference); rebuilding the reference drops them and they are recounted."""
    name = _index(engine, ["wind turbine and wind turbine", "wind turbine"], Unit.word)
    ref = _index(engine, ["a wind turbine"], Unit.word)
    first = extract_terms(engine, name, "specificity", 10, 1, 1, reference=ref)
    assert {r["term"]: r["ref_freq"] for r in first}["wind turbine"] == 1
    index_documents(engine, ref, [Document("d0", "wind turbine, wind turbine, wind turbine")], Unit.word, KMAX,
                    replace=True)
    again = extract_terms(engine, name, "specificity", 10, 1, 1, reference=ref)
    assert {r["term"]: r["ref_freq"] for r in again}["wind turbine"] == 3
    drop_corpus(engine, name)
    drop_corpus(engine, ref)
