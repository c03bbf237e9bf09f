"""Training a branching word model and segmenting new text with it, timed against another checkout in the same run.

Each measurement is a child process on one checkout (PYTHONPATH = its directory): it indexes a sample in memory
(Reuters documents, byte unit; PKU test lines joined 40 to a pseudo-document, char unit; or the sentences of every
UD Japanese GSD CoNLL-U file given, gold words joined without spaces, 10 to a pseudo-document, char unit), trains
the model (Segmenter with the checkout's defaults for the script), builds the stored form (compact_model) and
segments the held-out documents with it. Inside a child, training and segmenting are each repeated `--repeat`
times (the first also loads numba's cached kernels) and the least CPU time is kept; checkouts take turns (first
mover alternating by round) and the best per checkout is kept. The children also print a digest of the trained
counts, the word values and every cut, so the run says whether the outputs are bit-identical.

    git worktree add /tmp/old <commit>
    .venv/bin/python bench/bench_wordbreak_train.py --data ja --data pku --compare /tmp/old
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPOSITORY = Path(__file__).resolve().parents[1]


def child(data: str, size: int, held_out: int, repeat: int, conllu: list[Path]) -> None:
    """Train, compact and segment in this process (the checkout on sys.path); print timings and digests as JSON."""
    sys.path.insert(0, str(REPOSITORY / "bench"))  # this script's _data (the data are the same for every checkout);
    from _data import conllu_sentences, pku_gold_lines, reuters_documents  # termx stays the checkout's

    from termx.index.build import build_shard
    from termx.index.ingest import Document
    from termx.index.loaded_index import LoadedIndex
    from termx.index.suffix import clipped_lcp
    from termx.index.units import Unit
    from termx.storage.corpora import CorpusInfo
    from termx.wordbreak import Scorer, Segmenter
    from termx.wordbreak.ngram_tables import compact_model

    if data == "reuters":
        texts = [d.text for d in reuters_documents()]
        unit = Unit.byte
    elif data == "pku":
        lines = ["".join(line.split()) for line in pku_gold_lines()]
        texts = ["\n".join(lines[k:k + 40]) for k in range(0, len(lines), 40)]
        unit = Unit.char
    else:
        lines = conllu_sentences(conllu, "")
        texts = ["\n".join(lines[k:k + 10]) for k in range(0, len(lines), 10)]
        unit = Unit.char
    train, new, total = [], texts[-held_out:], 0
    for t in texts[:-held_out]:
        if total >= size:
            break
        train.append(t)
        total += len(t)
    shard = build_shard([Document(f"d{n}", t) for n, t in enumerate(train)], unit, 3)
    c, ta = shard.classes, shard.tokens
    keys = c.i.astype(np.int64) * (shard.n + 1) + c.j
    order = np.argsort(keys, kind="stable").astype(np.int32)
    info = CorpusInfo(0, "bench", unit.value, 3, ta.n_tokens, len(train), len(c), 100, {}, {}, "")
    index = LoadedIndex(info, 0, unit, ta.tokens, shard.sa, ta.doc_start, ta.doc_len, clipped_lcp(ta.tokens, shard.sa),
                        c.i, c.j, c.lbl, c.sil, shard.df, keys[order], order, [d.name for d in shard.documents],
                        ta.vocab)
    trained = segmented = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        seg = Segmenter(index, Scorer.branching)
        trained = min(trained, time.process_time() - t0)
    assert seg.model is not None
    model = compact_model(seg.model, index.unit, index.vocab)
    lines = [line for t in new for line in t.splitlines() if line.strip()]
    for _ in range(repeat):
        t0 = time.process_time()
        words = model.segment_lines(lines)
        segmented = min(segmented, time.process_time() - t0)
    spans = [(int(s), int(s + n)) for s, n in zip(index.doc_start[:50], index.doc_len[:50], strict=True)]
    digest = hashlib.sha256()
    for part in (seg.model.counts, seg.model.log_p, *seg.corpus_spans(spans), *(model.arrays().values())):
        digest.update(np.ascontiguousarray(part).tobytes())
    digest.update(json.dumps(words).encode())
    print(json.dumps({"train": trained, "segment": segmented, "chars": sum(map(len, lines)),  # noqa: T201
                      "tokens": int(len(index.tokens)), "sentences": sum(t.count("\n") + 1 for t in train),
                      "script": seg.script, "digest": digest.hexdigest(),
                      "termx": str(Path(sys.modules["termx"].__file__ or "").parent)}))


def measure(checkout: Path, data: str, args: argparse.Namespace) -> dict[str, float | str]:
    """One child run on `checkout`."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    conllu = [a for path in args.conllu or [] for a in ("--conllu", str(path))]
    out = subprocess.run([sys.executable, __file__, "--child", data, "--size", str(args.size), "--held-out",
                          str(args.held_out), "--repeat", str(args.repeat), *conllu],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", choices=["reuters", "pku", "ja"], action="append")
    parser.add_argument("--size", type=int, default=400_000, help="characters of training text")
    parser.add_argument("--held-out", type=int, default=20, help="documents segmented as new text")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=1, help="trainings and segmentings per child (least kept)")
    parser.add_argument("--conllu", type=Path, action="append",
                        help="ja: a UD Japanese GSD CoNLL-U file (repeatable; default: every ja_gsd-ud-*.conllu "
                             "of the shared data)")
    parser.add_argument("--compare", type=Path, help="a checkout (holding termx/) to take turns with")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.data and "ja" in args.data and not args.conllu:
        from bench._data import data_dir

        folder = data_dir() / "ja" / "ud-japanese-gsd"
        args.conllu = sorted(folder.glob("ja_gsd-ud-*.conllu"))
        if not args.conllu:  # an empty corpus would be timed (or crash the index build) instead
            parser.error(f"no ja_gsd-ud-*.conllu in {folder} (set TERMX_DATA or give --conllu)")
    if args.child:
        child(args.child, args.size, args.held_out, args.repeat, args.conllu or [])
        return
    checkouts = {"new": REPOSITORY, **({"old": args.compare} if args.compare else {})}
    for data in args.data or ["reuters", "pku"]:
        runs: dict[str, list[dict[str, float | str]]] = {label: [] for label in checkouts}
        for path in checkouts.values():  # numba's caches are filled here, not timed
            measure(path, data, args)
        for r in range(args.rounds):
            turns = list(checkouts.items())
            for label, path in turns if r % 2 == 0 else turns[::-1]:
                runs[label].append(measure(path, data, args))
        best = {label: {key: min(float(x[key]) for x in got) for key in ("train", "segment")}
                for label, got in runs.items()}
        digests = {label: {str(x["digest"]) for x in got} for label, got in runs.items()}
        for label, path in checkouts.items():
            assert {str(x["termx"]) for x in runs[label]} == {str(Path(path).resolve() / "termx")}, "wrong termx"
        first = runs["new"][0]
        print(f"{data}: {first['sentences']} training lines, {first['tokens']} tokens ({first['script']}), "  # noqa: T201
              f"{first['chars']} new characters; load {os.getloadavg()[0]:.1f}")
        for label in checkouts:
            b = best[label]
            speed = float(first["chars"]) / b["segment"]
            print(f"  {label:4} train {b['train'] * 1e3:8.1f} ms CPU   new text {speed:10.0f} chars/s   "  # noqa: T201
                  f"digest {','.join(sorted(digests[label]))[:16]}")
        if args.compare:
            new, old = best["new"], best["old"]
            print(f"  new/old: train {new['train'] / old['train']:.3f}, new-text chars/s "  # noqa: T201
                  f"{old['segment'] / new['segment']:.3f}, outputs identical: {digests['new'] == digests['old']}")


if __name__ == "__main__":
    main()
