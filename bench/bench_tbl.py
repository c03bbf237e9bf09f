"""Benchmark: termx's fnTBL-style learner vs NLTK's BrillTaggerTrainer on character-boundary tags.

Data: the first lines of Reuters-21578 documents (JSON lines, "text"), white space normalised,
one sequence per non-empty line, until ~100k characters. Gold tag of a character: | if a word
starts there (the original spaces), · otherwise. Initial state: the bigram baseline, i.e. | iff
the (previous char, char) pair is more often a word start than not in this training data; a
line's first character is |. Both learners get the same sequences, the same initial tags and the
same templates (termx's defaults, translated to NLTK's Pos/Word features), min score 2, and learn
up to 50 rules in the same run. NLTK is needed only here: `.venv/bin/pip install nltk`.

    .venv/bin/python bench/bench_tbl.py [--chars 100000] [--rules 50] [--data PATH] [--rounds 3 --publish]

With --publish the speed-up of each round goes to bench/published/tbl-speedup-nltk.json (docs/figures.md).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from _data import data_dir, reuters_first_lines
from _published import Run

from termx.tbl import DEFAULT_TEMPLATES, apply, learn
from termx.tbl.segmentation import TAG_NAMES, bigram_baseline, encode_lines

DATA = data_dir() / "en" / "reuters21578.jsonl"


def split(a: np.ndarray, lengths: np.ndarray) -> list[list[int]]:
    return [x.tolist() for x in np.split(a, np.cumsum(lengths)[:-1])]


def run_nltk(chars: list[list[str]], gold: list[list[int]], init: list[list[int]], max_rules: int
             ) -> tuple[float, int, float, list[str]]:
    from nltk.tag import BrillTaggerTrainer
    from nltk.tag.api import TaggerI
    from nltk.tag.brill import Pos, Word
    from nltk.tbl.template import Template

    initial = {tuple(c): [TAG_NAMES[t] for t in i] for c, i in zip(chars, init, strict=True)}

    class Precomputed(TaggerI):
        """The bigram baseline's tags (computed once, identical to termx's initial state)."""

        def tag(self, tokens):  # type: ignore[no-untyped-def]
            return list(zip(tokens, initial[tuple(tokens)], strict=True))

    templates = [Template(*[Pos(list(c.offsets)) if c.feature == "tag" else Word(list(c.offsets))
                            for c in t.conditions]) for t in DEFAULT_TEMPLATES]
    train = [[(ch, TAG_NAMES[t]) for ch, t in zip(c, g, strict=True)] for c, g in zip(chars, gold, strict=True)]
    trainer = BrillTaggerTrainer(Precomputed(), templates, trace=0, deterministic=True)
    t0 = time.perf_counter()
    tagger = trainer.train(train, max_rules=max_rules, min_score=2)
    seconds = time.perf_counter() - t0
    tagged = tagger.tag_sents([list(c) for c in chars])
    right = sum(t == TAG_NAMES[g] for sent, gs in zip(tagged, gold, strict=True)
                for (_, t), g in zip(sent, gs, strict=True))
    return seconds, len(tagger.rules()), right / sum(map(len, gold)), [str(r) for r in tagger.rules()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chars", type=int, default=100_000)
    ap.add_argument("--rules", type=int, default=50)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--repeat", type=int, default=3, help="termx runs (the median is reported)")
    ap.add_argument("--show", type=int, default=10, help="print this many rules of each learner")
    ap.add_argument("--rounds", type=int, default=1, help="whole comparisons (termx and NLTK) in a row")
    ap.add_argument("--publish", action="store_true", help="write bench/published/tbl-speedup-nltk.json")
    args = ap.parse_args()
    run = Run()

    lines = reuters_first_lines(args.chars, args.data)
    enc = encode_lines(lines)
    init = bigram_baseline(enc.tokens, enc.tags, enc.lengths)
    n = enc.tokens.size
    print(f"data: {len(lines)} lines, {n} character-boundary tags, {len(DEFAULT_TEMPLATES)} templates; "
          f"initial (bigram baseline) accuracy {np.mean(init == enc.tags):.4f}")

    t0 = time.perf_counter()
    learn(enc.tokens[:200], enc.tags[:200], init[:200], max_rules=2)  # JIT compile / load the numba cache
    warm = time.perf_counter() - t0
    speedups, differences = [], []
    for round_no in range(args.rounds):
        runs = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            model = learn(enc.tokens, enc.tags, init, enc.lengths, max_rules=args.rules, min_score=2,
                          tag_names=TAG_NAMES, token_kind="char")
            runs.append(time.perf_counter() - t0)
        ours = float(np.median(runs))
        check = float(np.mean(apply(model.rules, enc.tokens, init, enc.lengths) == enc.tags))
        assert abs(check - model.accuracy_after) < 1e-12
        print(f"round {round_no}: termx: {ours:8.3f} s for {len(model.rules)} rules, training accuracy "
              f"{model.accuracy_before:.4f} -> {model.accuracy_after:.4f}   (median of {len(runs)} runs "
              f"{', '.join(f'{r:.3f}' for r in runs)}; numba warm-up {warm:.2f} s, not counted)")

        chars = [[chr(c) for c in s] for s in split(enc.tokens, enc.lengths)]
        nl_s, nl_rules, nl_acc, nl_text = run_nltk(chars, split(enc.tags, enc.lengths), split(init, enc.lengths),
                                                   args.rules)
        print(f"round {round_no}: nltk:  {nl_s:8.3f} s for {nl_rules} rules, training accuracy "
              f"{model.accuracy_before:.4f} -> {nl_acc:.4f}")
        print(f"round {round_no}: speed-up: {nl_s / ours:.1f}x   accuracy difference (termx - nltk): "
              f"{model.accuracy_after - nl_acc:+.4f}", flush=True)
        speedups.append(nl_s / ours)
        differences.append(model.accuracy_after - nl_acc)
    if args.publish:
        run.record("tbl-speedup-nltk", title="TBL training: NLTK's Brill trainer time / termx's, same data, "
                   "templates, initial state and 50 rules", measure="speed-up (x)",
                   seeds=[f"round {n}" for n in range(args.rounds)], per_seed=speedups,
                   split=f"{n:,} character-boundary tags of the first Reuters lines ({len(lines):,} lines)",
                   tuning="none (speed: both learners in the same run, termx the median of "
                          f"{args.repeat} runs per round)", status="speed",
                   extra={"accuracy_before": model.accuracy_before, "accuracy_after": model.accuracy_after,
                          "rules": len(model.rules),
                          "accuracy_difference_termx_minus_nltk": differences})
    if args.show:
        print(f"\nfirst {args.show} rules (termx | nltk):")
        for i in range(min(args.show, max(len(model.rules), len(nl_text)))):
            ours_txt = (f"{model.describe(model.rules[i])} [{model.rules[i].score}]"
                        if i < len(model.rules) else "")
            print(f"{i + 1:3d}. {ours_txt:60s} | {nl_text[i] if i < len(nl_text) else ''}")


if __name__ == "__main__":
    main()
