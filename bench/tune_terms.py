"""Choose `termx terms` flags for ACTER on development documents only, print them, and score the same flags on
the test documents (issue 14, "Term extraction").

Per domain (ACTER 1.5 English corp and wind), the *annotated* files are split by document with
`termx.evaluation.splits.train_devtest_test(files, (0.5, 0, 0.5), seed)`: the train part is the development
part, the test part is never looked at while choosing. The corpus whose statistics rank the candidates is, as in
bench/bench_terms.py, every text of the domain (annotated and unannotated; text without labels is fair to index,
the method is unsupervised). A part is scored with the gold terms that occur in that part's texts (whole words,
lower-cased), and a ranked list keeps only candidates occurring there, lower-cased and de-duplicated, its first
K = |gold of the part| terms: P = R = F1.

The search (one pass per domain, the same flags for both domains; the winner has the best mean development F1
over corp and wind, ties to the earlier grid point):
- documents: files or paragraphs (blank-line separated) as the corpus's documents;
- case: as written, or folded (`termx index --fold-case`, the reference corpus folded too);
- --min-df 1, 2, 3, 5;
- --rank adaptation, poisson, ridf, freq, df, specificity (reference: Reuters-21578, unit word);
- nested-term discount (C-value style, computed here, `+nested`): for freq and specificity, a candidate's freq
  is replaced by freq minus the mean freq of the longer candidates (same filters) that contain it as whole
  tokens, before scoring.

Every (documents, min-df) row also prints the recall ceiling: the share of the part's gold terms that are
candidates at all (lower-cased), so a reader sees what the ranking could reach.

Test: the chosen flags, the freq baseline (files, min-df 3, the CLI defaults with --min-len 1) and the previous
default (specificity, files, min-df 3) on the test part of each domain, with paired tests (McNemar over the union
of two lists, sign test over bins of 50 ranks; bench_terms._paired) against both.

Run from the repository root:  .venv/bin/python bench/tune_terms.py --seed 0 [--db URL]
"""

from __future__ import annotations

import argparse
import itertools
import math
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from _data import data_dir
from bench_terms import REFERENCE, _acter_docs, _corpus, _jsonl, _paired

from termx.evaluation.splits import train_devtest_test
from termx.evaluation.termlists import f1_at_gold_size, occurs_in
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.db import get_engine
from termx.storage.store import get_corpus
from termx.terms import extract_terms

DOMAINS = ("corp", "wind")
SCHEMES = ("files", "paragraphs")
CASES = ("kept", "folded")
MIN_DFS = (1, 2, 3, 5)
RANKS = ("adaptation", "poisson", "ridf", "freq", "df", "specificity", "freq+nested", "specificity+nested")
BASELINE = ("files", "kept", 3, "freq")
PREVIOUS = ("files", "kept", 3, "specificity")
MAX_NESTED_TOKENS = 12   # longer candidates are not searched for nested sub-terms (none are gold terms)


@dataclass
class Part:
    """One split part of a domain: its gold terms and a predicate 'occurs in the part's texts'."""

    files: list[str]
    gold: set[str]
    occurs: Any


def _gold(domain: str) -> set[str]:
    path = data_dir() / f"en/acter/{domain}/annotated/annotations/unique_annotation_lists/{domain}_en_terms.tsv"
    return {ln.split("\t")[0].strip().lower() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()}


def parts(domain: str, seed: int) -> tuple[Part, Part]:
    """The development and test parts of a domain's annotated files (by document, seeded)."""
    folder = data_dir() / f"en/acter/{domain}/annotated/texts"
    texts = {p.stem: p.read_text(encoding="utf-8").lower() for p in sorted(folder.glob("*.txt"))}
    split = train_devtest_test(sorted(texts), (0.5, 0.0, 0.5), seed)
    gold = _gold(domain)
    out = []
    for files in (split.train, split.test):
        occurs = occurs_in("\n".join(texts[f] for f in files))
        out.append(Part(sorted(files), {g for g in gold if occurs(g)}, occurs))
    return out[0], out[1]


def _tokens(term: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\w+|[^\w\s]", term))


def nested_freq(rows: list[dict[str, Any]]) -> list[float]:
    """Each row's freq minus the mean freq of the longer rows containing it as a whole-token run (C-value's
    discount of nested terms); rows contained in nothing keep their freq."""
    index: dict[tuple[str, ...], list[int]] = defaultdict(list)
    toks = [_tokens(r["term"]) for r in rows]
    for n, t in enumerate(toks):
        index[t].append(n)
    total = [0.0] * len(rows)
    count = [0] * len(rows)
    for n, t in enumerate(toks):
        if len(t) > MAX_NESTED_TOKENS:
            continue
        subs = {t[a:b] for a in range(len(t)) for b in range(a + 1, len(t) + 1) if b - a < len(t)}
        for s in subs:
            for m in index.get(s, ()):
                total[m] += rows[n]["freq"]
                count[m] += 1
    return [r["freq"] - (total[n] / count[n] if count[n] else 0.0) for n, r in enumerate(rows)]


def ranked(rows_by_rank: dict[str, list[dict[str, Any]]], rank: str, min_df: int, tokens: int,
           ref_tokens: int) -> list[str]:
    """Terms of one ranking at one --min-df, best first (the stored order, or the nested re-ranking)."""
    base, _, nested = rank.partition("+")
    rows = [r for r in rows_by_rank[base] if r["df"][0] >= min_df]
    if not nested:
        return [r["term"] for r in rows]
    freqs = nested_freq(rows)
    scored = []
    for r, f in zip(rows, freqs, strict=True):
        if base == "freq":
            s = f
        elif f <= 1:
            s = -math.inf
        else:
            s = math.log((f / tokens) / ((r["ref_freq"] + 1.0) / ref_tokens)) * math.log(f)
        scored.append((-s, -r["freq"], r["term"].encode("utf-8"), r["term"]))
    return [t[-1] for t in sorted(scored)]


def f1_list(terms: list[str], part: Part) -> tuple[float, list[str]]:
    return f1_at_gold_size(terms, part.gold, part.occurs)


def references(engine: sa.Engine, rebuild: bool, cases: tuple[str, ...] = CASES) -> tuple[dict[str, str], int]:
    """The reference corpus (Reuters-21578, unit word) in each case: names by case, and its tokens."""
    ref_docs = [Document(str(r["id"]), r["text"]) for r in _jsonl(data_dir() / "en/reuters21578.jsonl")
                if r["text"].strip()]
    refs = {c: REFERENCE + ("-folded" if c == "folded" else "") for c in cases}
    for case, ref in refs.items():
        _corpus(engine, ref, ref_docs, Unit.word, rebuild, case == "folded", candidates=False)
    return refs, get_corpus(engine, refs[cases[0]]).tokens


def candidate_rows(engine: sa.Engine, domain: str, scheme: str, case: str, ranks: set[str], refs: dict[str, str],
                   rebuild: bool) -> tuple[dict[str, list[dict[str, Any]]], int]:
    """Index a domain as `scheme` documents in `case`; every candidate (min-df 1, min-len 1) of each ranking, best
    first, and the corpus's tokens."""
    docs, _ = _acter_docs(data_dir() / f"en/acter/{domain}", scheme == "paragraphs")
    name = f"bench-terms-acter-{domain}-{scheme}" + ("-folded" if case == "folded" else "")
    _corpus(engine, name, docs, Unit.word, rebuild, case == "folded")
    rows = {r: extract_terms(engine, name, r, 10**8, min_df=1, min_len=1,
                             reference=refs[case] if r == "specificity" else None) for r in ranks}
    return rows, get_corpus(engine, name).tokens


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", default="postgresql://postgres@127.0.0.1:5432/test")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rebuild", action="store_true")
    args = ap.parse_args()
    engine: sa.Engine = get_engine(args.db)
    refs, ref_tokens = references(engine, args.rebuild)
    split = {d: parts(d, args.seed) for d in DOMAINS}
    print(f"seed {args.seed}; split of the annotated files by document (dev | test):")
    for d in DOMAINS:
        dev, test = split[d]
        print(f"  {d}: dev {dev.files} (K = {len(dev.gold)}) | test {test.files} (K = {len(test.gold)})")
    lists: dict[tuple[str, str, str, int, str], list[str]] = {}
    ceiling: dict[tuple[str, str, str, int, int], float] = {}
    for d, scheme, case in itertools.product(DOMAINS, SCHEMES, CASES):
        rows, tokens = candidate_rows(engine, d, scheme, case, {x.partition("+")[0] for x in RANKS}, refs,
                                      args.rebuild)
        for m in MIN_DFS:
            cands = {r["term"].lower() for r in rows["freq"] if r["df"][0] >= m}
            for p, part in enumerate(split[d]):
                ceiling[(d, scheme, case, m, p)] = len(part.gold & cands) / len(part.gold)
            for rank in RANKS:
                lists[(d, scheme, case, m, rank)] = ranked(rows, rank, m, tokens, ref_tokens)

    grid = list(itertools.product(SCHEMES, CASES, MIN_DFS, RANKS))
    dev_f1 = {(d, *g): f1_list(lists[(d, *g)], split[d][0])[0] for d in DOMAINS for g in grid}
    print("\nDevelopment F1 (mean of corp and wind; recall ceiling per domain in brackets):")
    print(f"  {'documents, case, min-df [ceiling]':<36}" + "".join(f"{r:>19}" for r in RANKS))
    for scheme, case, m in itertools.product(SCHEMES, CASES, MIN_DFS):
        cells = [f"{sum(dev_f1[(d, scheme, case, m, r)] for d in DOMAINS) / len(DOMAINS):.3f}" for r in RANKS]
        ceil = "/".join(f"{ceiling[(d, scheme, case, m, 0)]:.2f}" for d in DOMAINS)
        print(f"  {f'{scheme}, {case}, {m} [{ceil}]':<36}" + "".join(f"{c:>19}" for c in cells))
    chosen = max(grid, key=lambda g: (sum(dev_f1[(d, *g)] for d in DOMAINS), -grid.index(g)))
    print(f"\nchosen (seed {args.seed}): documents={chosen[0]} case={chosen[1]} --min-df {chosen[2]} "
          f"--rank {chosen[3]}  (dev F1 " + ", ".join(f"{d} {dev_f1[(d, *chosen)]:.3f}" for d in DOMAINS) + ")")

    print("\nTest part only (never used above):")
    for d in DOMAINS:
        test = split[d][1]
        out = {}
        for label, g in (("chosen", chosen), ("freq baseline", BASELINE), ("previous default", PREVIOUS)):
            f1, top = f1_list(lists[(d, *g)], test)
            out[label] = top
            print(f"  {d} {label:<17} {g[0]}, {g[1]}, min-df {g[2]}, {g[3]:<18} F1 {f1:.3f}  "
                  f"(recall ceiling {ceiling[(d, *g[:3], 1)]:.3f}, K = {len(test.gold)})")
        for other in ("freq baseline", "previous default"):
            print(f"  {d} chosen vs {other}: {_paired(out['chosen'], out[other], test.gold.__contains__, other)}")


if __name__ == "__main__":
    main()
