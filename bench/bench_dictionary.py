"""The seeds' claim for word breaking: "extend the dictionary method to also look for substrings that adapt a lot".

SIGHAN 2005 PKU, the test split of bench/tune_segment.py (10-line pseudo-documents, seeded). Three systems, all
forward maximum matching (bench_peers.max_match_segmenter: the longest known word, else one character):

- `dictionary`: the PKU training word list (the bakeoff's closed-track resource) alone;
- `dictionary + adaptation`: plus the K unknown strings (2..4 characters, not in the list, f ≥ 2 in the
  de-spaced PKU test text, which is unlabelled text a segmenter may read) with the highest adaptation
  A = (df_2 + ½) / (df_1 + 1) over the pseudo-documents, admitted as words;
- `dictionary + frequency`: the same with the K most frequent unknown strings instead.

K is chosen per ranking on the devtest pseudo-documents (word F1); figures are pooled over the test
pseudo-documents only: word P/R/F1, OOV recall (gold words not in the list) and IV recall, and paired tests
(sign test, Wilcoxon; per-pseudo-document boundary-decision error rate, termx.evaluation) of each extension
against the dictionary alone and of adaptation against frequency.

Run: .venv/bin/python bench/bench_dictionary.py [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from _data import data_dir
from bench_peers import max_match_segmenter
from bench_segment import RESULTS
from tune_segment import documents

from termx.cli.output import render
from termx.evaluation import compare, pair_records, read_records
from termx.evaluation.metrics import word_spans
from termx.experiments.whitespace import SpacedDocument
from termx.experiments.whitespace.files import write_records
from termx.experiments.whitespace.report import score_result

SIZES = [10, 30, 100, 300, 1000, 3000, 10000]
LENGTHS = range(2, 5)


def dictionary() -> set[str]:
    text = (data_dir() / "zh" / "sighan2005-pku" / "pku_training_words.utf8").read_text(encoding="utf-8")
    return {w.strip() for w in text.split("\n") if w.strip()}


def unknown_strings(spaced: Sequence[SpacedDocument], known: set[str]) -> list[tuple[str, int, int, int]]:
    """(string, f, df_1, df_2) of every 2..4-character substring of the de-spaced lines (never across a line
    end) that is not a known word and occurs at least twice; documents are the pseudo-documents."""
    freq: Counter[str] = Counter()
    df1: Counter[str] = Counter()
    df2: Counter[str] = Counter()
    for doc in spaced:
        here: Counter[str] = Counter()
        for words in doc.lines:
            line = "".join(words)
            for n in LENGTHS:
                here.update(line[k:k + n] for k in range(len(line) - n + 1))
        freq.update(here)
        df1.update(here.keys())
        df2.update(s for s, c in here.items() if c >= 2)
    return [(s, f, df1[s], df2[s]) for s, f in freq.items() if f >= 2 and s not in known]


def oov_iv_recall(docs: Sequence[SpacedDocument], predicted: Sequence[Sequence[Sequence[str]]],
                  known: set[str]) -> tuple[float, float]:
    """Recall of the gold words not in the word list (OOV) and of those in it (IV)."""
    hit = {True: 0, False: 0}
    total = {True: 0, False: 0}
    for doc, lines in zip(docs, predicted, strict=True):
        for gold, pred in zip(doc.lines, lines, strict=True):
            found = set(word_spans(pred))
            for w, span in zip(gold, word_spans(gold), strict=True):
                total[w in known] += 1
                hit[w in known] += span in found
    return hit[False] / max(total[False], 1), hit[True] / max(total[True], 1)


def segment_docs(segment: Callable[[str], list[str]], docs: Sequence[SpacedDocument]) -> list[list[list[str]]]:
    return [[segment("".join(words)) for words in doc.lines] for doc in docs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="the split seed of bench/tune_segment.py")
    args = parser.parse_args()
    spaced, dev, test, _unit, _cond = documents("pku", args.seed, 300, 0.25)
    known = dictionary()
    cands = unknown_strings(spaced, known)
    rankings = {"adaptation": sorted(cands, key=lambda c: (-(c[3] + 0.5) / (c[2] + 1), -c[1], c[0])),
                "frequency": sorted(cands, key=lambda c: (-c[1], c[0]))}
    dev_docs, test_docs = [spaced[k] for k in dev], [spaced[k] for k in test]
    folder = Path(tempfile.mkdtemp(prefix="bench_dict_"))
    rows: list[dict[str, Any]] = []

    def evaluate(name: str, words: set[str], extra: dict[str, Any]) -> None:
        predicted = segment_docs(max_match_segmenter(words), test_docs)
        r = score_result(name, "scorer", test_docs, predicted, {})
        write_records([r], folder)
        oov, iv = oov_iv_recall(test_docs, predicted, known)
        rows.append({"system": name, **extra, "word_p": r.word.precision, "word_r": r.word.recall,
                     "word_f1": r.word.f1, "oov_recall": oov, "iv_recall": iv, "boundary_f1": r.boundary.f1})

    evaluate("dictionary", known, {"K": 0, "devtest_word_f1": None})
    chosen = {}
    for name, ranked in rankings.items():
        def dev_f1(k: int, ranked: list[tuple[str, int, int, int]] = ranked) -> float:
            words = known | {c[0] for c in ranked[:k]}
            r = score_result("x", "scorer", dev_docs, segment_docs(max_match_segmenter(words), dev_docs), {})
            return float(r.word.f1)
        scores = {k: dev_f1(k) for k in SIZES}
        k = max(SIZES, key=lambda s: (scores[s], -s))
        chosen[name] = {"K": k, "devtest_word_f1": scores[k], "grid": scores}
        evaluate(f"dictionary + {name}", known | {c[0] for c in ranked[:k]}, {"K": k, "devtest_word_f1":
                                                                                scores[k]})
    tests = []
    for a, b in (("dictionary + adaptation", "dictionary"), ("dictionary + frequency", "dictionary"),
                 ("dictionary + adaptation", "dictionary + frequency")):
        data = pair_records(read_records(folder / f"{a}.jsonl"), read_records(folder / f"{b}.jsonl"), a, b)
        tests += [{"A": a, "B": b, "test": r["test"], "n": r["n"], "p_value": r["p_value"], "better": r["better"],
                   "A_wins": int((data.a < data.b).sum()), "B_wins": int((data.b < data.a).sum())}
                  for r in compare(data, ["sign", "wilcoxon"])]
    title = (f"PKU test split (seed {args.seed}): {len(test)} pseudo-documents; {len(cands):,} unknown strings "
             f"(2-4 chars, f >= 2); K chosen on {len(dev)} devtest pseudo-documents")
    print(render(rows, "table", title=title))
    print(render(tests, "table", title="paired tests over test pseudo-documents (boundary-decision error rate)"))
    print("top 15 by adaptation:", " ".join(c[0] for c in rankings["adaptation"][:15]))
    print("top 15 by frequency: ", " ".join(c[0] for c in rankings["frequency"][:15]))
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "dictionary.json"
    path.write_text(json.dumps({"split": title, "rows": rows, "tests": tests, "chosen": chosen}, indent=2,
                               default=float), encoding="utf-8")
    print(f"saved {path}")


if __name__ == "__main__":
    main()
