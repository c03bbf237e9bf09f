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

Run: .venv/bin/python bench/bench_peers.py [--parts reuters,pku,ja] [--seed 0]
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

from _data import data_dir
from tune_segment import REUTERS_TEST, documents

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
    args = parser.parse_args()
    out = {}
    for part in args.parts.split(","):
        rows = run_part(part, args.seed)
        test = f"the first {REUTERS_TEST} documents" if part == "reuters" else f"test split, seed {args.seed}"
        print(render(rows, "table", title=f"{part}: peers on {test}"), flush=True)
        out[part] = rows
    print(json.dumps(out, default=float))


if __name__ == "__main__":
    main()
