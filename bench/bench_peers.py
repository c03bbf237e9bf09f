"""The peers in the word-breaking docs, run on the same documents and scored by the same scorer as termx.

Peers are bench-only (never termx dependencies): `pip install wordninja symspellpy instant-segment sentencepiece
jieba`. A peer that is not installed is reported as skipped. Scoring is termx.evaluation.metrics.segmentation_prf
pooled over lines, exactly as bench/bench_segment.py scores termx.

- reuters (white space recovery, `alnum`): the published test set, the first 1,634 documents by newid.
  The dictionary peers (`dictionary_peers`, also run on the man pages by bench/published_segment.py): wordninja
  (its own English word list, ranked by Wikipedia frequency); symspellpy's word_segmentation (its shipped English
  unigram counts, edit distance 0: segmentation only, no spelling correction; in windows of 2,000 characters, each
  window after the first starting at the last word of the one before, because the package builds every prefix's
  segmentation as a string, quadratic in a long line); instant-segment (it ships no word lists: symspellpy's
  English unigram and bigram counts). They are English dictionaries over a-z and 0-9: each peer segments the
  maximal runs of those characters, and a run of other letters (é, µ, ß: `alnum` keeps every letter) is one word of
  its own (`ascii_runs`; wordninja drops such characters, instant-segment refuses them). sentencepiece unigram
  (unsupervised,
  trained on the de-spaced text of all 19,043 documents, its default vocab_size 8,000: no parameter tuned);
  the letter-change baseline.
- pku (SIGHAN 2005 PKU): the test split of bench/tune_segment.py (10-line pseudo-documents, seeded; the
  devtest pseudo-documents used for tuning termx are left out); jieba (its own dictionary, default mode,
  HMM on); forward maximum matching with the PKU *training* word list (the bakeoff's closed-track resource);
  sentencepiece unigram trained on the de-spaced PKU test text (default vocab_size).
- ja (UD Japanese GSD dev): the test split likewise; sentencepiece unigram as above.
- newtext (issue 32: new text against a corpus that has its spaces): the first 15,000 Reuters stories (alnum,
  by newid) are the corpus, 500 stories drawn per seed from the evaluation pool after them (bench/_data.py,
  newtext_split; bench/tune_word_model.py tunes on a pool no draw reaches) are run together and segmented.
  termx: `words` with its defaults (counts of the corpus's spacing, the library behind
  `Corpus.segment(lines, scorer="words")`, 1,000 lines per call as the Python API batches them); instant-segment
  (`pip install instant-segment`): word and pair counts of the same 15,000 stories (pairs seen twice or more), a
  search per letter run (it takes lower-case ASCII letters only: digit runs are kept as words, which gives it
  every letter/digit boundary); wordninja (its own English dictionary; the characters it drops, such as
  non-ASCII letters, are put back as words of their own). Each system's speed is its best of --repeats passes
  over the same stories in the same run (wordninja's: one pass); paired sign test and Wilcoxon over stories
  (word F1) of termx against each peer. --record writes the published records (mean over --seeds).

Run: .venv/bin/python bench/bench_peers.py [--parts reuters,pku,ja,newtext] [--seed 0] [--seeds 0,1,2]
     [--repeats 3] [--pool test|dev] [--speed-only] [--record]
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from _data import NEWTEXT_CORPUS, data_dir, newtext_split, word_pair_counts
from tune_segment import REUTERS_TEST, documents
from tune_word_model import corpus_texts

from termx.cli.output import render
from termx.evaluation.metrics import PRF, segmentation_prf
from termx.experiments.whitespace import SpacedDocument, letter_change_words

Segment = Callable[[str], list[str]]


def score(name: str, docs: Sequence[SpacedDocument], segment: Segment) -> dict[str, Any]:
    """Pooled boundary and word P/R/F1 of `segment` over every line of `docs`, and its speed."""
    b, w = PRF(0, 0, 0), PRF(0, 0, 0)
    chars, t0 = 0, time.perf_counter()
    for doc in docs:
        for gold in doc.lines:
            text = "".join(gold)
            chars += len(text)
            s = segmentation_prf(gold, [x for x in segment(text) if x])
            b, w = b + s["boundary"], w + s["word"]
    seconds = time.perf_counter() - t0
    return {"system": name, "boundary_p": b.precision, "boundary_r": b.recall, "boundary_f1": b.f1,
            "word_p": w.precision, "word_r": w.recall, "word_f1": w.f1, "chars_per_s": chars / seconds}


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def sentencepiece_segmenter(texts: Sequence[str]) -> Segment:
    """A unigram sentencepiece model trained on `texts` (one sentence each) with its default settings."""
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(texts), model_writer=model, model_type="unigram",
                                   minloglevel=2, normalization_rule_name="identity", add_dummy_prefix=False)
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())

    def segment(text: str) -> list[str]:
        return [p.replace("\u2581", "") for p in sp.encode(text, out_type=str)]  # unknown runs come back as text
    return segment


CHUNK = 2_000
"""Characters per window of a peer that cannot take a whole long line (`chunked`)."""


def chunked(segment: Segment, size: int = CHUNK) -> Segment:
    """`segment` over windows of `size` characters: each window's last word is carried into the next window (it
    may be cut by the window's end), so only a word longer than a window is ever cut by one."""
    def run(text: str) -> list[str]:
        out: list[str] = []
        carry, k = "", 0
        while k < len(text):
            piece = carry + text[k:k + size]
            k += size
            words = [w for w in segment(piece) if w]
            if k >= len(text):
                return out + words
            carry = words.pop()
            out += words
        return out + ([carry] if carry else [])
    return run


ASCII_RUN = re.compile(r"[a-z0-9]+|[^a-z0-9]+")
ASCII = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def ascii_runs(segment: Segment) -> Segment:
    """`segment` on each maximal run of a-z and 0-9; every run of other characters is one word."""
    def run(text: str) -> list[str]:
        out: list[str] = []
        for piece in ASCII_RUN.findall(text):
            out += segment(piece) if piece[0] in ASCII else [piece]
        return out
    return run


def dictionary_peers() -> dict[str, Segment]:
    """The English dictionary peers (see the module's docstring), by name; ImportError if one is not installed."""
    from importlib.resources import files

    import instant_segment
    import wordninja
    from symspellpy import SymSpell

    lists = files("symspellpy")
    unigrams = [(w, float(c)) for w, c in (line.split() for line in
                                           (lists / "frequency_dictionary_en_82_765.txt").read_text().splitlines())]
    bigrams = [((a, b), float(c)) for a, b, c in (line.split() for line in
                                                  (lists / "frequency_bigramdictionary_en_243_342.txt").read_text()
                                                  .splitlines())]
    sym = SymSpell(max_dictionary_edit_distance=0)
    for word, count in unigrams:
        sym.create_dictionary_entry(word, int(count))
    segmenter, search = instant_segment.Segmenter(iter(unigrams), iter(bigrams)), instant_segment.Search()

    def instant(text: str) -> list[str]:
        segmenter.segment(text, search)
        return list(search)

    symspell = chunked(lambda t: sym.word_segmentation(t, max_edit_distance=0).segmented_string.split())
    return {"wordninja": ascii_runs(wordninja.split), "instant-segment": ascii_runs(instant),
            "symspellpy": ascii_runs(symspell)}


def max_match_segmenter(words: set[str]) -> Segment:
    """Forward maximum matching: at each position the longest dictionary word, else one character."""
    longest = max(map(len, words))

    def segment(text: str) -> list[str]:
        out, k = [], 0
        while k < len(text):
            for n in range(min(longest, len(text) - k), 0, -1):
                if n == 1 or text[k:k + n] in words:
                    out.append(text[k:k + n])
                    k += n
                    break
        return out
    return segment


def per_story(docs: Sequence[SpacedDocument], found: Sequence[list[str]]) -> tuple[dict[str, float], list[float]]:
    """Pooled boundary and word P/R/F1 of the stories' segmentations (one line each), and each story's word F1."""
    b, w = PRF(0, 0, 0), PRF(0, 0, 0)
    story = []
    for doc, pred in zip(docs, found, strict=True):
        s = segmentation_prf(doc.lines[0], [x for x in pred if x])
        b, w = b + s["boundary"], w + s["word"]
        story.append(s["word"].f1)
    return {"boundary_p": b.precision, "boundary_r": b.recall, "boundary_f1": b.f1, "word_p": w.precision,
            "word_r": w.recall, "word_f1": w.f1}, story


def timed(segment: Callable[[list[str]], list[list[str]]], texts: list[str], repeats: int
          ) -> tuple[list[list[str]], float]:
    """The output of `segment` on `texts` and its best characters/s over `repeats` passes."""
    best, found = float("inf"), []
    for _ in range(repeats):
        t0 = time.perf_counter()
        found = segment(texts)
        best = min(best, time.perf_counter() - t0)
    return found, sum(map(len, texts)) / best


def newtext_systems(corpus: Sequence[SpacedDocument]) -> dict[str, Callable[[list[str]], list[list[str]]]]:
    """termx `words` and the installed peers, each built from the 15,000 corpus stories (wordninja: its own list)."""
    import re

    from termx.wordbreak.word_model import WordModel, count_words

    model = WordModel(count_words(corpus_texts(corpus)), 20)

    def termx_words(texts: list[str]) -> list[list[str]]:
        return [w for k in range(0, len(texts), 1000) for w in model.segment_lines(texts[k:k + 1000])]

    systems = {"termx words (defaults)": termx_words}
    if installed("instant_segment"):
        import instant_segment

        ascii_word = re.compile(r"[a-z]+")
        uni, bi = word_pair_counts(corpus)
        seg = instant_segment.Segmenter(
            iter((w, float(c)) for w, c in uni.items() if ascii_word.fullmatch(w)),
            iter((b, float(c)) for b, c in bi.items() if c > 1 and all(ascii_word.fullmatch(x) for x in b)))
        search = instant_segment.Search()
        runs = re.compile(r"[a-z]+|[^a-z]+")

        def instant(texts: list[str]) -> list[list[str]]:
            out = []
            for text in texts:
                words: list[str] = []
                for run in runs.findall(text):
                    if "a" <= run[0] <= "z":
                        seg.segment(run, search)
                        words.extend(search)
                    else:
                        words.append(run)
                out.append(words)
            return out
        systems["instant-segment (counts of the 15,000 stories)"] = instant
    if installed("wordninja"):
        import wordninja

        systems["wordninja (its own dictionary)"] = lambda texts: [restored(t, wordninja.split(t)) for t in texts]
    return systems


def restored(text: str, words: list[str]) -> list[str]:
    """`words` with the characters of `text` a peer dropped (wordninja drops what is not an ASCII letter, digit or
    apostrophe) put back as words of their own, so that they spell `text`."""
    out, at = [], 0
    for w in words:
        k = text.find(w, at)
        if k < 0:
            continue
        out.extend(text[at:k])
        out.append(w)
        at = k + len(w)
    out.extend(text[at:])
    return out


def run_newtext(seeds: Sequence[int], repeats: int, pool: str = "test", speed_only: bool = False) -> dict[str, Any]:
    """Every system on each seed's 500 evaluation stories (`pool` "dev": development stories instead, to check
    this script without scoring the evaluation pool); the per-seed rows, paired tests and speed ratios.
    `speed_only`: termx and instant-segment timed, nothing scored (the stories' segmentations are not compared
    with their spacing)."""
    from termx.evaluation.paired import sign_test, wilcoxon

    corpus, _ = newtext_split(seeds[0], "test")
    systems = newtext_systems(corpus)
    first = next(iter(systems))
    out: dict[str, Any] = {"seeds": list(seeds), "pool": pool, "rows": []}
    for seed in seeds:
        _, docs = newtext_split(seed, pool)
        texts = [d.text for d in docs]
        rows, stories = [], {}
        for name, segment in systems.items():
            if speed_only and name.startswith("wordninja"):
                continue
            segment(texts[:5])  # compiled kernels loaded
            found, speed = timed(segment, texts, 1 if name.startswith("wordninja") else repeats)  # ~100× slower
            if speed_only:
                rows.append({"system": name, "seed": seed, "chars_per_s": speed, "documents": len(docs),
                             "characters": sum(map(len, texts))})
                continue
            scores, stories[name] = per_story(docs, found)
            rows.append({"system": name, "seed": seed, **scores, "chars_per_s": speed, "documents": len(docs),
                         "characters": sum(map(len, texts))})
        for row in rows[1:]:
            row["termx_speed_ratio"] = rows[0]["chars_per_s"] / row["chars_per_s"]
            if speed_only:
                continue
            x, y = stories[first], stories[row["system"]]
            sign, wil = sign_test(x, y), wilcoxon(x, y)
            row["termx_vs_this"] = {"sign_p": sign.p_value, "wilcoxon_p": wil.p_value, "favours": sign.favours,
                                    "wins_termx": sum(a > b for a, b in zip(x, y, strict=True)),
                                    "wins_this": sum(a < b for a, b in zip(x, y, strict=True))}
        print(render([{k: v for k, v in r.items() if not isinstance(v, dict)} for r in rows], "table",
                     title=f"newtext: seed {seed}, {len(docs)} stories, corpus the first {NEWTEXT_CORPUS:,}"),
              flush=True)
        out["rows"].extend(rows)
    return out


def record_newtext(result: dict[str, Any], run: Any, speed_only: bool = False) -> None:
    """The published records of the new-text figures (bench/published/); `speed_only`: the speed ratio's alone."""
    rows = result["rows"]
    seeds = result["seeds"]
    names = list(dict.fromkeys(r["system"] for r in rows))
    split = (f"corpus: the first {NEWTEXT_CORPUS:,} Reuters stories (alnum, by newid); per seed 500 stories drawn "
             "from the evaluation pool (bench/_data.py newtext_split), never tuned on")
    tuning = ("termx: WORD_DEFAULTS, chosen by one run of bench/tune_word_model.py --seed 0 on development stories "
              "(a pool no evaluation draw reaches); peers: no parameter chosen")

    def values(system: str, key: str) -> list[float]:
        return [next(r[key] for r in rows if r["system"] == system and r["seed"] == s) for s in seeds]

    peers = {n: {m: values(n, m) for m in (("chars_per_s",) if speed_only else ("word_f1", "boundary_f1",
                                                                               "chars_per_s"))} for n in names}
    for key, measure in (() if speed_only else (("word_f1", "word F1"), ("boundary_f1", "boundary F1"))):
        run.record(f"newtext-reuters-words-{key.replace('_', '-')}", title=f"New text against a spaced corpus "
                   f"(Reuters): {measure}, termx words with its defaults", measure=measure, seeds=seeds,
                   per_seed=values(names[0], key), split=split, tuning=tuning, status="protocol",
                   extra={"peers_same_run": peers})
    if len(names) > 1:
        ratio = [a / b for a, b in zip(values(names[0], "chars_per_s"), values(names[1], "chars_per_s"),
                                      strict=True)]
        run.record("newtext-reuters-words-speed-ratio", title=f"New text against a spaced corpus: termx words "
                   f"characters/s ÷ {names[1]}'s, same run, best of passes", measure="speed ratio", seeds=seeds,
                   per_seed=ratio, split=split, tuning=tuning, status="speed",
                   extra={"peers_same_run": peers, "speed_only_run": speed_only})


def run_part(part: str, seed: int) -> list[dict[str, Any]]:
    spaced, _dev, test, _unit, _cond = documents(part, seed, 300, 0.25)
    docs = [spaced[k] for k in test]
    all_lines = ["".join(words) for d in spaced for words in d.lines]
    rows = [score("letter-change baseline", docs, letter_change_words)]
    if part == "reuters" and all(map(installed, ("wordninja", "symspellpy", "instant_segment"))):
        rows += [score(f"{name} (dictionary)", docs, segment) for name, segment in dictionary_peers().items()]
    if part == "pku":
        if installed("jieba"):
            import jieba

            jieba.setLogLevel(60)
            rows.append(score("jieba (dictionary, default mode)", docs, lambda t: list(jieba.cut(t))))
        train_words = (data_dir() / "zh" / "sighan2005-pku" / "pku_training_words.utf8").read_text(encoding="utf-8")
        rows.append(score("maximum matching (PKU training words)", docs,
                          max_match_segmenter({w.strip() for w in train_words.split("\n") if w.strip()})))
    if installed("sentencepiece"):
        t0 = time.perf_counter()
        segment = sentencepiece_segmenter(all_lines)
        row = score("sentencepiece unigram (unsupervised)", docs, segment)
        row["train_s"] = time.perf_counter() - t0
        rows.append(row)
    for row in rows:
        row["documents"] = len(docs)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="reuters,pku,ja")
    parser.add_argument("--seed", type=int, default=0, help="the split seed of bench/tune_segment.py")
    parser.add_argument("--seeds", default="0,1,2", help="newtext: the evaluation draws")
    parser.add_argument("--repeats", type=int, default=3, help="newtext: passes per system (the best is its speed)")
    parser.add_argument("--record", action="store_true", help="newtext: write the published records")
    parser.add_argument("--speed-only", action="store_true", help="newtext: time termx and instant-segment without "
                        "scoring anything; with --record, write the speed ratio's record alone")
    parser.add_argument("--pool", choices=("test", "dev"), default="test", help="newtext: dev scores development "
                        "stories instead (checking the script; never recorded)")
    args = parser.parse_args()
    out: dict[str, Any] = {}
    for part in args.parts.split(","):
        if part == "newtext":
            from _published import Run

            run = Run()
            out[part] = run_newtext([int(s) for s in args.seeds.split(",")], args.repeats, args.pool,
                                    args.speed_only)
            if args.record and args.pool == "test":
                record_newtext(out[part], run, args.speed_only)
            continue
        rows = run_part(part, args.seed)
        test = f"the first {REUTERS_TEST} documents" if part == "reuters" else f"test split, seed {args.seed}"
        print(render(rows, "table", title=f"{part}: peers on {test}"), flush=True)
        out[part] = rows
    print(json.dumps(out, default=float))


if __name__ == "__main__":
    main()
