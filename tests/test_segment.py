"""Word breaking: Viterbi against brute force, class-tree candidates against suffix-array search and brute-force
counts, scorer formulas, round trip, and the `termx segment` command."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from termx.cli import app
from termx.errors import InputError
from termx.index.build import build_shard
from termx.index.ingest import Document
from termx.index.loaded_index import LoadedIndex
from termx.index.suffix import clipped_lcp
from termx.index.tree import class_tree as engine_class_tree
from termx.index.units import Unit
from termx.poisson import length_aware_poisson_adaptation
from termx.storage.corpora import CorpusInfo
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents
from termx.wordbreak import (
    ABSENT,
    TRIVIAL,
    Scorer,
    Segmenter,
    candidate_stats,
    class_tree,
    corpus_candidates,
    score_table,
    text_candidates,
    text_ids,
    viterbi,
)
from termx.wordbreak.entropy import (
    DIGIT,
    HAN,
    HIRAGANA,
    KATAKANA,
    LETTER,
    POINT,
    PUNCT,
    branching,
    class_bonus,
    effective_classes,
    mean_entropy,
    run_lengths,
    text_classes,
)
from termx.wordbreak.model import DEFAULTS

runner = CliRunner()


def memory_index(texts: list[str], unit: Unit = Unit.byte, max_k: int = 3) -> LoadedIndex:
    """A LoadedIndex built in memory, exactly as load_index derives it from the stored arrays."""
    shard = build_shard([Document(f"d{n}", t) for n, t in enumerate(texts)], unit, max_k)
    c = shard.classes
    keys = c.i.astype(np.int64) * (shard.n + 1) + c.j
    order = np.argsort(keys, kind="stable").astype(np.int32)
    ta = shard.tokens
    info = CorpusInfo(0, "memory", unit.value, max_k, ta.n_tokens, len(texts), len(c), 100, {}, {}, "")
    return LoadedIndex(info, 0, unit, ta.tokens, shard.sa, ta.doc_start, ta.doc_len,
                       clipped_lcp(ta.tokens, shard.sa), c.i, c.j, c.lbl, c.sil, shard.df, keys[order], order,
                       [d.name for d in shard.documents], ta.vocab)


def brute_stats(texts: list[str], pattern: str, max_k: int) -> tuple[int, list[int]]:
    """freq and df_1..df_K of a pattern by counting overlapping occurrences in every document."""
    counts = [sum(t.startswith(pattern, k) for k in range(len(t))) for t in texts]
    return sum(counts), [sum(c >= k for c in counts) for k in range(1, max_k + 1)]


# --- Viterbi ---------------------------------------------------------------------------------------------------


def brute_best(scores: np.ndarray) -> float:
    """The best total over every segmentation (each subset of cut points), -inf if none is allowed."""
    n, max_len = scores.shape
    best = -math.inf
    for mask in itertools.product((0, 1), repeat=n - 1):
        edges = [0, *[k + 1 for k, m in enumerate(mask) if m], n]
        spans = list(zip(edges, edges[1:], strict=False))
        if any(b - a > max_len for a, b in spans):
            continue
        best = max(best, sum(scores[a, b - a - 1] for a, b in spans))
    return best


def total(scores: np.ndarray, cuts: np.ndarray) -> float:
    edges = [0, *cuts.tolist(), scores.shape[0]]
    return float(sum(scores[a, b - a - 1] for a, b in zip(edges, edges[1:], strict=False)))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 9), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_viterbi_equals_brute_force(n: int, max_len: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n, max_len))
    scores[rng.random((n, max_len)) < 0.3] = -np.inf
    scores[:, 0] = rng.normal(size=n)  # single tokens always allowed, so a segmentation exists
    cuts = viterbi(scores)
    assert np.all(np.diff(cuts) > 0) and np.all((cuts > 0) & (cuts < n))
    assert total(scores, cuts) == pytest.approx(brute_best(scores), abs=1e-9)


def test_viterbi_picks_the_unique_best_and_reports_impossible_input() -> None:
    scores = np.full((4, 4), -1.0)
    scores[0, 1] = 5.0  # "ab" then "cd"
    scores[2, 1] = 5.0
    assert viterbi(scores).tolist() == [2]
    assert viterbi(np.zeros((0, 3))).tolist() == []
    with pytest.raises(InputError):
        viterbi(np.full((3, 2), -np.inf))


# --- candidates --------------------------------------------------------------------------------------------------

texts_strategy = st.lists(st.text(alphabet="abc", min_size=1, max_size=25), min_size=1, max_size=5)


@settings(max_examples=60, deadline=None)
@given(texts_strategy, st.integers(1, 8))
def test_class_tree_candidates_equal_search_and_brute_force(texts: list[str], max_len: int) -> None:
    index = memory_index(texts)
    tree = class_tree(index)
    for d, text in enumerate(texts):
        start = int(index.doc_start[d])
        from_tree = corpus_candidates(index, tree, start, start + len(text), max_len)
        from_search = text_candidates(index, text_ids(index, text), max_len)
        assert np.array_equal(from_tree, from_search)
        freq, df = candidate_stats(index, from_tree)
        for p in range(len(text)):
            for length in range(1, max_len + 1):
                if p + length > len(text):
                    assert from_tree[p, length - 1] == ABSENT
                    continue
                f, dfk = brute_stats(texts, text[p:p + length], 3)
                assert (int(freq[p, length - 1]), df[p, length - 1].tolist()) == (f, dfk)
                assert (from_tree[p, length - 1] == TRIVIAL) == (f == 1)


def test_the_class_tree_is_built_once_per_index_and_shared_with_word_breaking() -> None:
    """LoadedIndex.tree builds the engine's class tree on first use; word breaking's tree reuses its arrays."""
    index = memory_index(["to_be_or_not_to_be", "to_be", "not_or"])
    parent, deepest = index.tree
    assert index.tree[0] is parent
    expected = engine_class_tree(index.cls_i, index.cls_j, index.n)
    assert np.array_equal(parent, expected[0]) and np.array_equal(deepest, expected[1])
    tree = class_tree(index)
    assert tree.parent is parent and tree.deepest is deepest


@settings(max_examples=40, deadline=None)
@given(texts_strategy, st.text(alphabet="abcd", min_size=1, max_size=12))
def test_search_candidates_of_new_text_match_brute_force(texts: list[str], new: str) -> None:
    index = memory_index(texts)
    freq, df = candidate_stats(index, text_candidates(index, text_ids(index, new), 6))
    for p in range(len(new)):
        for length in range(1, min(6, len(new) - p) + 1):
            assert (int(freq[p, length - 1]), df[p, length - 1].tolist()) == brute_stats(texts, new[p:p + length], 3)


def test_char_corpus_candidates_and_unknown_characters() -> None:
    texts = ["東京都東京都", "京都大学京都"]
    index = memory_index(texts, Unit.char)
    tree = class_tree(index)
    start = int(index.doc_start[1])
    assert np.array_equal(corpus_candidates(index, tree, start, start + 6, 4),
                          text_candidates(index, text_ids(index, texts[1]), 4))
    cand = text_candidates(index, text_ids(index, "京都X"), 3)
    assert candidate_stats(index, cand)[0][0].tolist() == [4, 4, 0]  # 京 (freq 4), 京都 (4), 京都X (absent)
    assert cand[2].tolist() == [ABSENT] * 3


def test_class_tree_stats_through_postgres(engine) -> None:  # type: ignore[no-untyped-def]
    texts = ["to_be_or_not_to_be", "Hi_Ho_Hi_Ho", "Hi_Ho", "Hi"]
    index_documents(engine, "seg_tree_db", [Document(f"d{n}", t) for n, t in enumerate(texts)], Unit.byte,
                    max_k=3, replace=True)
    index = load_index(engine, "seg_tree_db")
    tree = class_tree(index)
    for d, text in enumerate(texts):
        start = int(index.doc_start[d])
        cand = corpus_candidates(index, tree, start, start + len(text), 20)
        assert np.array_equal(cand, text_candidates(index, text_ids(index, text), 20))
        freq, df = candidate_stats(index, cand)
        for p in range(len(text)):
            for length in range(1, len(text) - p + 1):
                assert (int(freq[p, length - 1]), df[p, length - 1].tolist()) == \
                    brute_stats(texts, text[p:p + length], 3)


# --- branching entropy -------------------------------------------------------------------------------------------


def brute_entropy(texts: list[str], s: str, side: str) -> float:
    """Entropy of the token after (side R) or before (side L) the occurrences of s; each occurrence at a document
    edge is a symbol of its own; -1 when s occurs fewer than twice."""
    follow: list[str] = []
    for d, t in enumerate(texts):
        for k in range(len(t) - len(s) + 1):
            if t.startswith(s, k):
                edge = k + len(s) == len(t) if side == "R" else k == 0
                follow.append(f"#{d}:{k}" if edge else (t[k + len(s)] if side == "R" else t[k - 1]))
    if len(follow) < 2:
        return -1.0
    _, counts = np.unique(follow, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log(p)).sum())


@settings(max_examples=30, deadline=None)
@given(texts_strategy)
def test_branching_entropy_and_evidence_match_brute_force(texts: list[str]) -> None:
    index = memory_index(texts)
    tree = class_tree(index)
    window = 4
    br = branching(index, tree, window)
    # mean over positions of h_R(t[p:p+n]) where that n-gram repeats
    for n in range(1, window + 1):
        hs = [brute_entropy(texts, t[p:p + n], "R") for t in texts for p in range(len(t) - n + 1)]
        hs = [h for h in hs if h >= 0]
        assert mean_entropy(index, tree, window)[n - 1] == pytest.approx(np.mean(hs) if hs else 0.0)
        assert br.mean[1, n - 1] == pytest.approx(np.mean([h for h in (brute_entropy(
            texts, t[p:p + n], "L") for t in texts for p in range(len(t) - n + 1)) if h >= 0] or [0.0]))
    seg = Segmenter(index, Scorer.branching, 6, {"window": window, "kappa": 0.0, "kappa_digit": 0.0,
                                                  "kappa_han_kana": 0.0})
    assert seg.model is not None
    for text in texts:
        ids = text_ids(index, text)
        fcand = text_candidates(index, ids, seg.width)
        rcand = text_candidates(br.reverse, ids[::-1].copy(), seg.width)
        got = seg.model.evidence(fcand, rcand, text_classes(text, Unit.byte))
        for b in range(1, len(text)):
            want = 0.0
            for n in range(1, window + 1):
                sides = (("R", text[b - n:b], text[b - n:b - 1]), ("L", text[b:b + n], text[b + 1:b + n]))
                for side, s, shorter in sides:
                    if len(s) < n:
                        continue
                    h = brute_entropy(texts, s, side)
                    if h >= 0:
                        want += h - br.mean[0 if side == "R" else 1, n - 1]
                        if n >= 2 and (h2 := brute_entropy(texts, shorter, side)) >= 0:
                            want += h - h2
            assert got[b] == pytest.approx(want, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(alphabet="ab1é", min_size=1, max_size=30), min_size=1, max_size=4),
       st.sampled_from([Unit.byte, Unit.char]), st.sampled_from([Scorer.branching, Scorer.freq]),
       st.integers(0, 2**32 - 1))
def test_corpus_and_search_paths_agree_on_any_spans(texts: list[str], unit: Unit, scorer: Scorer,
                                                    seed: int) -> None:
    """Batched class-tree segmentation of spans inside documents equals suffix-array segmentation of their text."""
    index = memory_index(texts, unit)
    seg = Segmenter(index, scorer, 8, {"window": 3} if scorer is Scorer.branching else {})
    rng = np.random.default_rng(seed)
    spans, pieces = [], []
    for d, text in enumerate(texts):
        a, b = sorted(rng.integers(0, len(text) + 1, 2))
        for piece_start, piece in ((0, text), (a, text[a:b + 1])):
            start = int(index.doc_start[d]) + len(text[:piece_start].encode("utf-8") if unit is Unit.byte
                                                  else text[:piece_start])
            size = len(piece.encode("utf-8")) if unit is Unit.byte else len(piece)
            spans.append((start, start + size))
            pieces.append(piece)
    for cuts, piece in zip(seg.corpus_spans(spans), pieces, strict=True):
        assert np.array_equal(cuts, seg.text_cuts(text_ids(index, piece), piece))
        assert "".join(seg.segment(piece)) == piece


def test_character_classes() -> None:
    assert text_classes("a1東ひカ。", Unit.char).tolist() == [LETTER, DIGIT, HAN, HIRAGANA, KATAKANA, PUNCT]
    assert text_classes("é1東", Unit.byte).tolist() == [LETTER, LETTER, DIGIT, HAN, HAN, HAN]


def test_branching_learns_words_of_a_repetitive_corpus() -> None:
    words = ["the", "cat", "sat", "on", "mat", "rat", "ate", "a", "dog", "ran"]
    rng = np.random.default_rng(3)
    texts = ["".join(rng.choice(words, 60)) for _ in range(8)]
    seg = Segmenter(memory_index(texts), Scorer.branching)
    assert seg.segment("thecatsatonthemat") == ["the", "cat", "sat", "on", "the", "mat"]


def test_set_final_equals_a_model_trained_with_those_parameters() -> None:
    """bench/tune_segment.py changes λ and θ on a trained model; that must segment as a fresh model does (and
    the change must matter, or the test would pass with a set_final that does nothing)."""
    words = ["the", "cat", "sat", "on", "mat", "rat", "ate", "a", "dog", "ran"]
    rng = np.random.default_rng(5)
    index = memory_index(["".join(rng.choice(words, 40)) for _ in range(6)])
    text = "thecatsatonthematadogran"
    tuned = Segmenter(index, Scorer.branching)
    assert tuned.model is not None
    before = tuned.segment(text)
    tuned.model.set_final(0.5, -40.0)
    fresh = Segmenter(index, Scorer.branching, options={"weight": 0.5, "theta": -40.0})
    assert tuned.segment(text) == fresh.segment(text)
    assert tuned.segment(text) != before
    assert tuned.model.params == fresh.model.params  # type: ignore[union-attr]


# --- scorers -----------------------------------------------------------------------------------------------------


def test_scorer_formulas() -> None:
    texts = ["abcabcxyz", "abcq", "zzabc", "qq"]
    index = memory_index(texts, max_k=2)
    n, lengths = index.n, index.doc_len.astype(float)
    c = int(text_candidates(index, text_ids(index, "abc"), 3)[0, 2])
    f, df = brute_stats(texts, "abc", 2)
    a = (df[1] + 0.5) / (df[0] + 1)
    lam = f * lengths / lengths.sum()
    null = (1 - np.exp(-lam) - lam * np.exp(-lam)).sum() / (1 - np.exp(-lam)).sum()
    assert score_table(index, Scorer.freq, 1.5).cls[c] == pytest.approx(math.log(f / n) - 1.5)
    assert score_table(index, Scorer.adaptation, 0.0).cls[c] == pytest.approx(math.log(a))
    assert score_table(index, Scorer.poisson, 0.5).cls[c] == pytest.approx(math.log(a / null) - 0.5)
    assert score_table(index, Scorer.freq, 0.0).single == pytest.approx(math.log(1 / n))
    assert length_aware_poisson_adaptation(np.array([f]), index.doc_len)[0] == pytest.approx(null)


# --- round trip --------------------------------------------------------------------------------------------------

CONTEXT = ["thecatsatonthemat", "acatandarat", "東京都に住む", "price 300 dlrs, up 4.5%", "ça va? très bien!"]


@pytest.fixture(scope="module")
def segmenters() -> dict[tuple[str, str], Segmenter]:
    return {(u.value, s.value): Segmenter(memory_index(CONTEXT, u), s, 6) for u in (Unit.byte, Unit.char)
            for s in (Scorer.adaptation, Scorer.branching)}


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40), st.sampled_from(["byte", "char"]), st.sampled_from(["adaptation", "branching"]))
def test_round_trip_gives_the_input_back(segmenters: dict[tuple[str, str], Segmenter], text: str, unit: str,
                                         scorer: str) -> None:
    words = segmenters[unit, scorer].segment(text)
    assert "".join(words) == "".join(text.split())
    assert all(words) and not any(ch.isspace() for w in words for ch in w)


def test_segment_finds_repeated_words(segmenters: dict[tuple[str, str], Segmenter]) -> None:
    words = segmenters["char", "adaptation"].segment("東京都 thecat 300dlrs")
    # white space in the input is a boundary, so no word may span "東京都|thecat|300dlrs"
    assert "".join(words) == "東京都thecat300dlrs"
    ends = set(np.cumsum([len(w) for w in words]).tolist())
    assert {3, 9} <= ends


def test_word_corpus_and_bad_parameters_are_refused() -> None:
    with pytest.raises(InputError, match="indexed by words"):
        Segmenter(memory_index(["a b c a b"], Unit.word))
    with pytest.raises(InputError, match="no parameter 'theta'"):
        Segmenter(memory_index(["abcab"]), Scorer.freq, options={"theta": 1.0})
    with pytest.raises(InputError, match="window"):
        Segmenter(memory_index(["abcab"]), Scorer.branching, options={"window": 0})


# --- CLI ---------------------------------------------------------------------------------------------------------


@pytest.fixture
def seg_corpus(engine) -> str:  # type: ignore[no-untyped-def]
    docs = [Document(f"d{n}", t) for n, t in enumerate(["thecatsatonthemat" * 3, "thecatatetherat" * 2,
                                                         "aratsatonthecat" * 2])]
    index_documents(engine, "seg_cli", docs, Unit.char, replace=True)
    return "seg_cli"


def test_cli_segment_text_and_json(db_env: str, seg_corpus: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.txt"
    src.write_text("thecatsat\r\n\nratonthemat 12\n", encoding="utf-8")
    res = runner.invoke(app, ["segment", seg_corpus, str(src), "--scorer", "freq"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.split("\n")
    assert [line.replace(" ", "") for line in lines[:3]] == ["thecatsat", "", "ratonthemat12"]
    res = runner.invoke(app, ["segment", seg_corpus, "--format", "json", "--max-len", "5"], input="thecat\n")
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.stdout)
    assert row["line"] == 1 and "".join(row["words"]) == "thecat"
    assert row["boundaries"] == list(np.cumsum([len(w) for w in row["words"]])[:-1])


def test_cli_segment_formats(db_env: str, seg_corpus: str) -> None:
    text = "thecatsat\r\n\n\nrat on\u2028themat\n"
    out = {fmt: runner.invoke(app, ["segment", seg_corpus, "-", "--scorer", "freq", "-q", "--format", fmt],
                              input=text) for fmt in ("text", "tsv", "json", "jsonl")}
    assert all(r.exit_code == 0 for r in out.values()), {f: r.output for f, r in out.items()}
    rows = json.loads(out["json"].stdout)
    assert [json.loads(line) for line in out["jsonl"].stdout.splitlines()] == rows
    assert [r["line"] for r in rows] == [1, 2, 3, 4] and rows[1]["words"] == rows[2]["words"] == []
    assert [r["text"] for r in rows] == ["thecatsat", "", "", "rat on\u2028themat"]
    assert "".join(rows[3]["words"]) == "ratonthemat"  # U+2028 is white space to the segmenter: a boundary
    assert out["text"].stdout == "".join(" ".join(r["words"]) + "\n" for r in rows)
    assert out["tsv"].stdout == "".join("\t".join(r["words"]) + "\n" for r in rows)
    empty = runner.invoke(app, ["segment", seg_corpus, "-", "--scorer", "freq", "-q", "--format", "json"], input="")
    assert empty.exit_code == 0 and json.loads(empty.stdout) == []


def test_cli_segment_streams_through_a_pipe(db_env: str, seg_corpus: str) -> None:
    """A line written to `termx segment CORPUS -` is answered while stdin is still open."""
    import os
    import selectors
    import subprocess
    import sys

    env = {**os.environ, "TERMX_DATABASE_URL": db_env}
    command = [sys.executable, "-m", "termx", "segment", seg_corpus, "-", "--scorer", "freq", "-q"]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=env) as proc, selectors.DefaultSelector() as waiting:  # fds may exceed select()'s 1024
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        waiting.register(proc.stdout, selectors.EVENT_READ)
        try:
            answers = []
            for line in (b"thecatsat\n", b"theratsat\n"):
                proc.stdin.write(line)
                proc.stdin.flush()
                assert waiting.select(120), "no answer while stdin stays open"
                answers.append(proc.stdout.readline().decode().replace(" ", ""))
            assert answers == ["thecatsat\n", "theratsat\n"]
            proc.stdin.close()
            assert proc.wait(60) == 0, proc.stderr.read()
        finally:
            proc.kill()


def test_cli_segment_errors(db_env: str, seg_corpus: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(app, ["segment", "no_such_corpus"], input="abc\n")
    assert res.exit_code == 1 and res.stderr.startswith("Error: no corpus named") and "Traceback" not in res.output
    res = runner.invoke(app, ["segment", seg_corpus, str(tmp_path / "missing.txt")])
    assert res.exit_code == 1 and "no such file" in res.stderr
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ab\xffcd")
    res = runner.invoke(app, ["segment", seg_corpus, str(bad)])
    assert res.exit_code == 1 and "not valid UTF-8" in res.stderr
    res = runner.invoke(app, ["segment", seg_corpus, "--scorer", "magic"], input="abc\n")
    assert res.exit_code == 2


def test_class_bonus_keeps_the_old_rule_at_the_spaced_defaults() -> None:
    """κ at every change of class and −κ inside digits, as before κ_d, κ_hk and κ_r (all at their `spaced` values)."""
    p = DEFAULTS["spaced"]
    bonus = class_bonus(p.kappa, p.kappa_digit, p.kappa_han_kana, p.kappa_run)
    classes = [DIGIT, LETTER, HAN, HIRAGANA, KATAKANA, PUNCT]
    for a in classes:
        for b in classes:
            assert bonus[a, b] == (p.kappa if a != b else -p.kappa if a == DIGIT else 0.0)
    tuned = class_bonus(10.0, 2.0, 3.0, 5.0)
    assert tuned[DIGIT, HAN] == tuned[PUNCT, DIGIT] == 2.0 and tuned[HAN, HIRAGANA] == 3.0
    assert tuned[HIRAGANA, HAN] == 10.0 and tuned[KATAKANA, KATAKANA] == tuned[LETTER, LETTER] == -5.0


def test_a_full_stop_between_digits_is_part_of_the_number() -> None:
    text = "3.5年，x.1．２3..4.end."
    got = effective_classes(text_classes(text, Unit.char)).tolist()
    assert got[1] == DIGIT and got[8] == DIGIT and got[11] == got[12] == DIGIT
    assert got[6] == PUNCT and got[14] == PUNCT and got[-1] == PUNCT
    assert text_classes(".", Unit.char).tolist() == [POINT]
    assert effective_classes(text_classes("1．2", Unit.byte)).tolist() == [DIGIT] * 5  # one character, 3 bytes
    runs = np.zeros(len(text), dtype=np.int64)
    run_lengths(text_classes(text, Unit.char), True, runs)
    assert runs.tolist()[:8] == [3, 0, 0, 0, 0, 1, 0, 7] and runs[15] == 3 and runs.sum() == 14
    run_lengths(text_classes(text, Unit.char), False, runs)
    assert not runs.any()


def test_runs_keep_an_unknown_katakana_word_whole() -> None:
    """A Katakana word occurring once is no word of the model; as a run it is a candidate, and κ_r keeps it."""
    rng = np.random.default_rng(4)
    texts = ["".join(rng.choice(["日本", "東京", "大学", "の", "に", "は", "研究"], 40)) for _ in range(6)]
    texts.append("東京のコンピュータは研究")
    index = memory_index(texts, Unit.char)
    plain = Segmenter(index, Scorer.branching, options={"runs": 0, "kappa_run": 10.0}).segment("コンピュータ")
    runs = Segmenter(index, Scorer.branching, options={"runs": 1, "kappa_run": 10.0}).segment("コンピュータ")
    assert plain != ["コンピュータ"] and runs == ["コンピュータ"]
