"""Issue 32: does ESA (bench/esa.py; Wang, Zhu, Tang and Fan 2011) beat or help termx's word breaking on the
devtest pseudo-documents of PKU and Japanese? An exploration: nothing here changes a default.

The split is tune_segment.py's (`documents`: seeded `train_devtest_test`, 10 lines per pseudo-document, a quarter
devtest). As termx does, everything is trained on the whole de-spaced text (no labels); only the devtest lines are
scored (their spacing is the only label read) and the test pseudo-documents are never segmented for scoring nor
scored. (ESA's Selection and termx's passes segment every corpus line while training, as unlabelled text.)

Measured, all against the current defaults (`DEFAULTS["unspaced"]` / `["kana"]`, as `termx segment` trains them)
on the same devtest parts in the same run:

(a) ESA alone: e (the LRV exponent) in EXPONENTS, up to ITERATIONS Selection/Adjustment rounds; (e, rounds) chosen by
    devtest word F1.
(b) ESA on top of termx, from the chosen ESA segmentation: as counts (per (class, length) word id, as the passes
    count them) — `esa-init`: ESA's counts replace self-training's, then the default re-estimation and bigram
    passes; `esa-pass`: ESA's counts replace the re-estimation pass's, then the bigram pass (from ESA's word
    pairs); `esa-mix G`: the re-estimation pass's counts mixed with ESA's, scaled to the same number of words, share
    G — or as a feature, `esa-iv μ`: the final search's word value log P(w) + μ · log IV(w) with IV from ESA's
    adjusted frequencies (ESA's gap value, branching entropy, is what termx's evidence is already). Each with the
    final (λ, θ) re-fitted on devtest around the default (REFIT_*); so are the defaults (`defaults-refit`), so that
    a gain is not the re-fit's.

Run: TERMX_DATA=../shared/data .venv/bin/python bench/explore_esa.py --data pku --data ja --seed 0 --seed 1 --seed 2

Result (2026-12-06, devtest word F1 of seeds 0 / 1 / 2, one run, load 4.6-7.1 on the shared 2-CPU machine;
docs/segment.md "ESA"): ESA loses. Alone: PKU .7781 / .7861 / .7849 (e .35) against the defaults' .7885 / .7966 /
.7904 (Wilcoxon over 49 pseudo-documents p .018 / .019 / .035); Japanese .5466 / .5532 / .5481 against .6448 /
.6473 / .6567 (12-13 of 13 pseudo-documents worse). On top of termx: esa-init (PKU .7878 / .7929 / .7869) and
esa-pass (.7829 / .7870 / .7831) lose; esa-mix .25 (.7897 / .7972 / .7911) and esa-iv .05 (.7894 / .7970 / .7911)
tie defaults-refit (.7896 / .7972 / .7910: the re-fit, λ 12 θ −36 on every seed, is all of their gain over the
defaults); Japanese best per seed .6454 / .6486 / .6563 against defaults-refit .6448 / .6473 / .6567 (sign test
p >= .45). The chosen ESA rounds alone: 1.1-2.3 s CPU on PKU, against 0.4-0.5 s for the defaults' whole training.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from esa import FLOOR, EsaCorpus
from tune_segment import GoldCuts, documents, pooled

from termx.evaluation.metrics import PRF, segmentation_prf
from termx.evaluation.paired import sign_test, wilcoxon
from termx.experiments.whitespace import SpacedDocument
from termx.experiments.whitespace.segment import segment_documents
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.progress import Progress, Silent
from termx.storage.corpora import drop_corpus
from termx.storage.index_loader import load_index
from termx.storage.indexer import index_documents
from termx.wordbreak import Scorer, Segmenter
from termx.wordbreak.candidates import corpus_candidates
from termx.wordbreak.corpus_passes import Bigram, Counts
from termx.wordbreak.model import BranchingModel

EXPONENTS = [0.0, 0.1, 0.25, 0.35, 0.5, 0.7, 1.0, 2.0]
ITERATIONS = 30
MIXES = [0.25, 0.5]
IV_WEIGHTS = [0.05, 0.1, 0.25, 0.5]
REFIT_WEIGHT = [-4.0, -2.0, 0.0, 4.0]
REFIT_THETA = [-8.0, -4.0, 0.0, 4.0, 8.0]
"""The final (λ, θ) re-fit: offsets from the script's defaults (λ kept at 1 or more)."""


@dataclass
class Clock:
    """Wall and CPU seconds since start."""

    wall: float
    cpu: float

    @classmethod
    def start(cls) -> Clock:
        return cls(time.perf_counter(), time.process_time())

    def __str__(self) -> str:
        return f"{time.perf_counter() - self.wall:.1f} s wall, {time.process_time() - self.cpu:.1f} s CPU"


def load() -> str:
    """The machine's load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _p(value: float | None) -> str:
    """A p-value as printed (none when the test is undefined, e.g. every pair tied)."""
    return "none" if value is None else f"{float(value):.3g}"


def per_doc_f1(docs: Sequence[SpacedDocument], predicted: Sequence[Sequence[Sequence[str]]]) -> list[float]:
    """Word F1 of each pseudo-document (its lines pooled)."""
    out = []
    for doc, lines in zip(docs, predicted, strict=True):
        w = PRF(0, 0, 0)
        for gold, pred in zip(doc.lines, lines, strict=True):
            w = w + segmentation_prf(gold, pred)["word"]
        out.append(w.f1)
    return out


def esa_alone(spaced: Sequence[SpacedDocument], dev: Sequence[int]) -> tuple[EsaCorpus, dict[str, Any], list[str]]:
    """(a): every exponent's devtest word F1 per round; the best (e, rounds) and its words in corpus order."""
    lines = [ws for d in spaced for ws in d.lines]
    first = np.concatenate([[0], np.cumsum([len(d.lines) for d in spaced])]).tolist()
    clock = Clock.start()
    corpus = EsaCorpus.of(["".join(ws) for ws in lines])
    print(f"ESA statistics: {len(corpus.freq)} n-grams of up to {corpus.max_n} characters ({clock})", flush=True)
    dev_docs = [spaced[k] for k in dev]
    best: dict[str, Any] = {"word_f1": -1.0}
    for e in EXPONENTS:
        clock = Clock.start()
        rounds = corpus.run(e, ITERATIONS)
        f1s = []
        for r, starts in enumerate(rounds, 1):
            words = corpus.words(starts)
            predicted = [words[first[k]:first[k] + len(spaced[k].lines)] for k in dev]
            f1 = pooled(dev_docs, predicted)["word"].f1
            f1s.append(f1)
            if f1 > best["word_f1"]:
                best = {"exponent": e, "rounds": r, "word_f1": f1, "starts": starts, "predicted": predicted}
        print(f"ESA e={e:g}: devtest word F1 per round " + " ".join(f"{f:.4f}" for f in f1s)
              + f" ({len(rounds)} rounds{', fixed point' if len(rounds) < ITERATIONS else ''}; {clock})", flush=True)
    clock = Clock.start()
    corpus.run(best["exponent"], best["rounds"])  # timed alone: the rounds without the scoring
    print(f"ESA chosen: e={best['exponent']:g}, {best['rounds']} rounds, devtest word F1 {best['word_f1']:.4f}; "
          f"those rounds alone took {clock}", flush=True)
    flat = [w for line in corpus.words(best["starts"]) for w in line]
    return corpus, best, flat


def esa_counts(model: BranchingModel, spaced: Sequence[SpacedDocument], words: Sequence[str]) -> Counts:
    """ESA's words as the passes count them: per (class, length) word id, and the id sequence (−1 before each
    document; id `size` for a word that is no class)."""
    index = model.index
    size = model.passes.size
    fcand = corpus_candidates(index, model.tree, 0, len(index.tokens), model.max_len)
    counts = np.zeros(size)
    sequence: list[int] = []
    it = iter(words)
    for d, doc in enumerate(spaced):
        at = int(index.doc_start[d])
        stop = at + len(doc.text)
        sequence.append(-1)
        while at < stop:
            n = len(next(it))
            c = int(fcand[at, n - 1]) if n <= model.max_len else -1
            wid = int(model.type_offset[c]) + n - int(index.cls_lbl[c]) - 1 if c >= 0 else size
            if wid < size:
                counts[wid] += 1
            sequence.append(wid)
            at += n
        assert at == stop
    return Counts(counts, len(sequence) - len(spaced), np.asarray(sequence, dtype=np.int64))


def esa_values(model: BranchingModel, corpus: EsaCorpus, spaced: Sequence[SpacedDocument], freq: np.ndarray
               ) -> np.ndarray:
    """log IV(w) = |w| · log(f(w) / mean f) of ESA's frequencies `freq` per termx word id (0 where w is no ESA
    n-gram: it holds a character outside ESA's sequences, or is longer than its n-grams)."""
    index = model.index
    line_start = []  # each line's first token in the index
    for d, doc in enumerate(spaced):
        at = int(index.doc_start[d])
        for ws in doc.lines:
            line_start.append(at)
            at += sum(len(w) for w in ws)
    where = np.full(len(corpus.ids), -1, dtype=np.int64)  # ESA position -> index token position
    for s, n, k, o in zip(corpus.seq_start.tolist(), corpus.seq_len.tolist(), corpus.seq_line.tolist(),
                          corpus.seq_offset.tolist(), strict=True):
        where[s:s + n] = line_start[k] + o + np.arange(n)
    fcand = corpus_candidates(index, model.tree, 0, len(index.tokens), model.max_len)
    log_iv = corpus.length * (np.log(np.maximum(freq, FLOOR)) - corpus.log_mean_f[corpus.length - 1])
    out = np.zeros(model.passes.size)
    for m in range(1, min(corpus.max_n, model.max_len) + 1):
        pos = np.flatnonzero(corpus.gid[m - 1] >= 0)
        ids, first = np.unique(corpus.gid[m - 1, pos], return_index=True)
        c = fcand[where[pos[first]], m - 1].astype(np.int64)
        ok = c >= 0
        out[model.type_offset[c[ok]] + m - index.cls_lbl[c[ok]] - 1] = log_iv[ids[ok]]
    return out


def reestimate(model: BranchingModel, mode: str, esa: Counts, share: float = 0.0) -> Callable[[Progress], Counts]:
    """model._reestimate (steps 4-5) with ESA's counts put in at `mode`: init (in place of self-training's), pass
    (in place of the re-estimation pass's), mix (the pass's and ESA's, ESA's at `share`)."""

    def counts_of(progress: Progress) -> Counts:
        p = model.params
        trained = esa if mode == "init" else model.trained
        counts, words, sequence = trained
        for _ in range(p.passes):
            log_p, unknown = model._word_values(counts, words)
            found = model.passes.count_words(log_p, unknown, p.pass_weight, p.pass_theta, Silent(), pair=p.pass_pair)
            counts = ((1 - p.pass_mix) * trained.counts * (found.words / max(trained.words, 1))
                      + p.pass_mix * found.counts)
            words, sequence = found.words, found.sequence
        if mode == "pass":
            counts, words, sequence = esa
        elif mode == "mix":
            counts = (1 - share) * counts + share * esa.counts * (words / esa.words)
        if p.pass_bigram > 0:
            log_p, unknown = model._word_values(counts, words)
            counts, words, sequence = model.passes.count_words(
                log_p, unknown, p.weight, p.theta, Silent(), Bigram.of(sequence, model.passes.size + 1, p.pass_bigram))
        return Counts(counts, words, sequence)

    return counts_of


def nothing() -> None:
    """No change to the final word values."""


@dataclass
class Variant:
    """How a variant changes the model: the counts its passes give (`install`) and its final word values (`after`)."""

    install: Callable[[], None]
    after: Callable[[], None] = nothing

    def apply(self, model: BranchingModel, weight: float, theta: float) -> None:
        """Train the variant's final word values for (λ, θ)."""
        self.install()
        model.reestimated = None  # the passes run again (the bigram pass reads λ, θ)
        model.set_final(weight, theta)
        self.after()


def refit(seg: Segmenter, gold: GoldCuts, variant: Variant) -> tuple[float, float, float]:
    """The best devtest word F1 over the (λ, θ) re-fit grid around the defaults, and its (λ, θ)."""
    model = seg.model
    assert model is not None
    w0, t0 = model.params.weight, model.params.theta
    best = (-1.0, w0, t0)
    memo: dict[Any, Any] = {}
    for dw in REFIT_WEIGHT:
        for dt in REFIT_THETA:
            variant.apply(model, max(w0 + dw, 1.0), t0 + dt)
            f1 = gold.score(seg.corpus_spans(gold.spans, memo))["word"].f1
            if f1 > best[0]:
                best = (f1, model.params.weight, model.params.theta)
    variant.apply(model, w0, t0)  # back to the defaults' (λ, θ)
    return best


def variants_of(model: BranchingModel, esa: Counts, iv: np.ndarray) -> dict[str, Variant]:
    """Every variant of (b), and the defaults re-fitted."""
    plain = model._reestimate

    def counts(mode: str, share: float = 0.0) -> Variant:
        return Variant(lambda: setattr(model, "_reestimate", reestimate(model, mode, esa, share)))

    def feature(mu: float) -> Callable[[], None]:
        return lambda: setattr(model, "words", replace(model.words, values=model.log_p + mu * iv))

    out = {"defaults-refit": Variant(lambda: setattr(model, "_reestimate", plain)),
           "esa-init": counts("init"), "esa-pass": counts("pass")}
    out.update({f"esa-mix {g:g}": counts("mix", g) for g in MIXES})
    out.update({f"esa-iv {mu:g}": Variant(out["defaults-refit"].install, feature(mu)) for mu in IV_WEIGHTS})
    return out


def run(engine: Any, data: str, seed: int) -> dict[str, Any]:
    """Everything for one (data, seed); returns the devtest figures."""
    spaced, dev, test, _, _ = documents(data, seed, 300, 0.25)
    assert not set(dev) & set(test)
    dev_docs = [spaced[k] for k in dev]
    print(f"\n== {data} seed {seed}: {len(dev)} devtest pseudo-documents ({len(test)} test ones never scored); "
          f"load {load()}", flush=True)
    corpus, chosen, flat = esa_alone(spaced, dev)
    out: dict[str, Any] = {"esa": {k: chosen[k] for k in ("exponent", "rounds", "word_f1")}}
    name = f"explore_esa_{data}_{seed}"
    index_documents(engine, name, [Document(d.name, d.text) for d in spaced], Unit.char, replace=True)
    try:
        index = load_index(engine, name)
        clock = Clock.start()
        seg = Segmenter(index, Scorer.branching)
        model = seg.model
        assert model is not None
        print(f"defaults ({seg.script}) trained ({clock})", flush=True)
        gold = GoldCuts.of(index, dev_docs, dev)
        default_pred = segment_documents(seg, dev_docs, dev, {})
        out["defaults"] = pooled(dev_docs, default_pred)["word"].f1
        default_docs = per_doc_f1(dev_docs, default_pred)
        print(f"defaults: devtest word F1 {out['defaults']:.4f}; ESA alone {chosen['word_f1']:.4f}", flush=True)
        clock = Clock.start()
        esa = esa_counts(model, spaced, flat)
        iv = esa_values(model, corpus, spaced, corpus.adjusted(chosen["starts"]))
        print(f"ESA counts and IV per word id ({clock})", flush=True)
        variants = variants_of(model, esa, iv)
        results = {}
        for label, variant in variants.items():
            clock = Clock.start()
            results[label] = refit(seg, gold, variant)
            f1, w, t = results[label]
            print(f"{label}: devtest word F1 {f1:.4f} at λ={w:g} θ={t:g} ({clock})", flush=True)
        out["variants"] = {k: v[0] for k, v in results.items()}
        top = max((k for k in results if k.startswith("esa")), key=lambda k: results[k][0])

        def docs_of(label: str) -> list[float]:
            variants[label].apply(model, results[label][1], results[label][2])
            return per_doc_f1(dev_docs, segment_documents(seg, dev_docs, dev, {}))

        top_docs, refit_docs = docs_of(top), docs_of("defaults-refit")
        esa_docs = per_doc_f1(dev_docs, chosen["predicted"])
        for label, docs, ref, against in ((top, top_docs, default_docs, "defaults"),
                                          (top, top_docs, refit_docs, "defaults-refit"),
                                          ("ESA alone", esa_docs, default_docs, "defaults")):
            sign, signed_rank = sign_test(docs, ref), wilcoxon(docs, ref)
            print(f"{label} vs {against} over {len(docs)} pseudo-documents: sign p={_p(sign.p_value)} (better "
                  f"{sign.details['x_better']}, worse {sign.details['y_better']}, ties {sign.details['ties']}), "
                  f"Wilcoxon p={_p(signed_rank.p_value)}", flush=True)
        out["best_variant"] = top
    finally:
        drop_corpus(engine, name)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=["pku", "ja"], action="append")
    parser.add_argument("--seed", type=int, action="append")
    parser.add_argument("--db", default="postgresql://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    from _data import data_dir

    from termx.storage.db import get_engine

    if not data_dir().is_dir():
        sys.exit(f"no data folder at {data_dir()} (set TERMX_DATA)")
    clock = Clock.start()
    print(f"load at start {load()}", flush=True)
    engine = get_engine(args.db)
    found = {(d, s): run(engine, d, s) for d in args.data or ["pku"] for s in args.seed or [0]}
    print(f"\nall done ({clock}); load at end {load()}")
    for (d, s), r in found.items():
        print(d, s, {k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items() if k != "variants"},
              {k: round(v, 4) for k, v in r.get("variants", {}).items()})


if __name__ == "__main__":
    main()
