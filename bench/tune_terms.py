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
over corp and wind, ties to the earlier grid point; only flag sets `termx index` / `termx terms` can run are
chosen):
- documents: files or paragraphs (blank-line separated) as the corpus's documents;
- case: as written, or folded (`termx index --fold-case`, the reference corpus folded too);
- --min-df 1, 2, 3, 5;
- --rank adaptation, poisson, ridf, freq, df, specificity, cvalue; specificity against each reference corpus of
  general text (unit word): Reuters-21578 (news), the Linux man pages (technical manuals), or both as one corpus;
- `--nested` (C-value's nested-term discount, `+nested`) with freq and with specificity against Reuters and
  against Reuters + man pages: a candidate's freq is replaced by freq minus the mean freq of the longer
  candidates (same filters) that contain it as whole tokens, before scoring. The lists are `termx terms`'s own
  (termx.terms.nested.rerank on the rows of the freq or specificity query), so every grid point can be chosen.

Every (documents, min-df) row also prints the recall ceiling: the share of the part's gold terms that are
candidates at all (lower-cased), so a reader sees what the ranking could reach.

Test (only with --test; the published figures are bench/published_terms.py's): the chosen flags, the freq
baseline (files, min-df 3, the CLI defaults with --min-len 1) and the previously
published flags (paragraphs, folded, min-df 5, specificity against Reuters with the nested discount; here under
the current candidate rules) on the test part of each domain, with paired tests (McNemar over the union of two
lists, sign test over bins of 50 ranks; bench_terms._paired) against both.

Run from the repository root:  .venv/bin/python bench/tune_terms.py --seed 0 [--db URL] [--test]
"""

from __future__ import annotations

import argparse
import itertools
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from _data import data_dir
from bench_terms import REFERENCE, _acter_docs, _corpus, _jsonl, _paired

from termx.evaluation.splits import train_devtest_test
from termx.evaluation.termlists import f1_at_gold_size, occurs_in
from termx.index.ingest import Document
from termx.index.units import Unit
from termx.storage.corpora import get_corpus
from termx.storage.db import get_engine
from termx.terms import extract_terms
from termx.terms.nested import nested_freq, rerank

DOMAINS = ("corp", "wind")
SCHEMES = ("files", "paragraphs")
CASES = ("kept", "folded")
MIN_DFS = (1, 2, 3, 5)
# reference corpora of general text for specificity: name -> the shared data files indexed as one corpus
REFERENCES = {"reuters": ("en/reuters21578.jsonl",), "manpages": ("en/manpages.jsonl",),
              "reuters+manpages": ("en/reuters21578.jsonl", "en/manpages.jsonl")}
RANKS = ("adaptation", "poisson", "ridf", "freq", "df", *(f"specificity@{r}" for r in REFERENCES),
         "freq+nested", "specificity@reuters+nested", "specificity@reuters+manpages+nested", "cvalue")
BASELINE = ("files", "kept", 3, "freq")
PREVIOUS = ("paragraphs", "folded", 5, "specificity@reuters+nested")


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


def split_rank(rank: str) -> tuple[str, bool]:
    """A grid ranking as (the termx ranking, with its reference: "specificity@reuters"; whether nested)."""
    return rank.removesuffix("+nested"), rank.endswith("+nested")


def flags(rank: str) -> tuple[str, str | None]:
    """The `--rank` value and the reference corpus key (None but for specificity) of a termx ranking."""
    name, _, ref = rank.partition("@")
    return name, ref or None


def ranked(rows_by_rank: dict[str, list[dict[str, Any]]], rank: str, min_df: int, tokens: int,
           ref_tokens: dict[str, int], discounted: dict[tuple[str, int, int], float] | None = None) -> list[str]:
    """Terms of one ranking at one --min-df, best first: the stored order, or (cvalue, `--nested`) the rescoring
    `termx terms` does (termx.terms.nested.rerank) on the rows of the freq or specificity query. `discounted`
    caches f' by (term, freq, len) for this --min-df (every ranking keeps the same candidates)."""
    base, nested = split_rank(rank)
    name, ref = flags(base)
    rows = [r for r in rows_by_rank["freq" if name == "cvalue" else base] if r["df"][0] >= min_df]
    if not nested and name != "cvalue":
        return [r["term"] for r in rows]
    keys = [(r["term"], r["freq"], r["len"]) for r in rows]
    if discounted is not None and not discounted:
        discounted.update(zip(keys, nested_freq([r["term"] for r in rows], [r["freq"] for r in rows], Unit.word),
                              strict=True))
    known = [discounted[k] for k in keys] if discounted is not None else None
    out = rerank(rows, name, Unit.word, True, tokens, ref_tokens[ref] if ref else None, len(rows), known)
    return [r["term"] for r in out]


def f1_list(terms: list[str], part: Part) -> tuple[float, list[str]]:
    return f1_at_gold_size(terms, part.gold, part.occurs)


def references(engine: sa.Engine, rebuild: bool, cases: tuple[str, ...] = CASES,
               keys: tuple[str, ...] = tuple(REFERENCES)) -> tuple[dict[tuple[str, str], str], dict[str, int]]:
    """The reference corpora (unit word) in each case: names by (key, case), and their tokens by key."""
    names = {"reuters": REFERENCE, "manpages": "bench-terms-manpages-word",
             "reuters+manpages": "bench-terms-reuters-manpages-word"}
    refs: dict[tuple[str, str], str] = {}
    tokens: dict[str, int] = {}
    for key in keys:
        docs = [Document(str(r["id"]), r["text"]) for f in REFERENCES[key] for r in _jsonl(data_dir() / f)
                if r["text"].strip()]
        for case in cases:
            refs[(key, case)] = names[key] + ("-folded" if case == "folded" else "")
            _corpus(engine, refs[(key, case)], docs, Unit.word, rebuild, case == "folded", candidates=False)
        tokens[key] = get_corpus(engine, refs[(key, cases[0])]).tokens
    return refs, tokens


def candidate_rows(engine: sa.Engine, domain: str, scheme: str, case: str, ranks: set[str],
                   refs: dict[tuple[str, str], str], rebuild: bool) -> tuple[dict[str, list[dict[str, Any]]], int]:
    """Index a domain as `scheme` documents in `case`; every candidate (min-df 1, min-len 1) of each termx ranking
    ("specificity@reuters": against that reference), best first, and the corpus's tokens."""
    docs, _ = _acter_docs(data_dir() / f"en/acter/{domain}", scheme == "paragraphs")
    name = f"bench-terms-acter-{domain}-{scheme}" + ("-folded" if case == "folded" else "")
    _corpus(engine, name, docs, Unit.word, rebuild, case == "folded")
    rows = {}
    for r in ranks - {"cvalue"}:
        rank, ref = flags(r)
        rows[r] = extract_terms(engine, name, rank, 10**8, min_df=1, min_len=1,
                                reference=refs[(ref, case)] if ref else None)
    return rows, get_corpus(engine, name).tokens


@dataclass
class Search:
    """The grid's ranked lists, recall ceilings and development F1, and the flags chosen on them."""

    split: dict[str, tuple[Part, Part]]
    lists: dict[tuple[str, str, str, int, str], list[str]]
    ceiling: dict[tuple[str, str, str, int, int], float]
    dev_f1: dict[tuple[str, str, str, int, str], float]
    chosen: tuple[str, str, int, str]


def ranked_lists(engine: sa.Engine, rebuild: bool = False
                 ) -> tuple[dict[tuple[str, str, str, int, str], list[str]], dict[tuple[str, str, str, int], set[str]]]:
    """Every grid point's ranked list on both domains, and the candidates per (domain, documents, case, min-df):
    they do not depend on the split, so several seeds can share them."""
    refs, ref_tokens = references(engine, rebuild)
    lists: dict[tuple[str, str, str, int, str], list[str]] = {}
    cands: dict[tuple[str, str, str, int], set[str]] = {}
    for d, scheme, case in itertools.product(DOMAINS, SCHEMES, CASES):
        rows, tokens = candidate_rows(engine, d, scheme, case, {split_rank(x)[0] for x in RANKS}, refs, rebuild)
        for m in MIN_DFS:
            cands[(d, scheme, case, m)] = {r["term"].lower() for r in rows["freq"] if r["df"][0] >= m}
            discounted: dict[tuple[str, int, int], float] = {}
            for rank in RANKS:
                lists[(d, scheme, case, m, rank)] = ranked(rows, rank, m, tokens, ref_tokens, discounted)
    return lists, cands


def point_lists(engine: sa.Engine, points: set[tuple[str, str, str, int, str]], rebuild: bool = False
                ) -> dict[tuple[str, str, str, int, str], list[str]]:
    """The ranked lists of just these grid points (domain, documents, case, min-df, ranking), as ranked_lists()
    gives them, indexing only the corpora and references they use: what re-scoring a recorded choice needs."""
    lists: dict[tuple[str, str, str, int, str], list[str]] = {}
    for d, scheme, case in sorted({p[:3] for p in points}):
        mine = [p for p in points if p[:3] == (d, scheme, case)]
        ranks = {split_rank(p[4])[0] for p in mine}
        keys = tuple(sorted({ref for r in ranks if (ref := flags(r)[1])}))
        refs, ref_tokens = references(engine, rebuild, (case,), keys)
        rows, tokens = candidate_rows(engine, d, scheme, case, ranks, refs, rebuild)
        for p in mine:
            lists[p] = ranked(rows, p[4], p[3], tokens, ref_tokens, {})
    return lists


def choose(lists: dict[tuple[str, str, str, int, str], list[str]],
           cands: dict[tuple[str, str, str, int], set[str]], seed: int) -> Search:
    """Score seed's development parts of both domains, and choose the best runnable flags on them."""
    split = {d: parts(d, seed) for d in DOMAINS}
    ceiling = {(d, scheme, case, m, p): len(part.gold & cands[(d, scheme, case, m)]) / len(part.gold)
               for (d, scheme, case, m) in cands for p, part in enumerate(split[d])}
    grid = list(itertools.product(SCHEMES, CASES, MIN_DFS, RANKS))
    dev_f1 = {(d, *g): f1_list(lists[(d, *g)], split[d][0])[0] for d in DOMAINS for g in grid}
    chosen = max(grid, key=lambda g: (sum(dev_f1[(d, *g)] for d in DOMAINS), -grid.index(g)))
    return Search(split, lists, ceiling, dev_f1, chosen)


def search(engine: sa.Engine, seed: int, rebuild: bool = False) -> Search:
    """Rank every grid point on both domains, score the development parts, choose the best runnable flags."""
    return choose(*ranked_lists(engine, rebuild), seed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", default="postgresql://postgres@127.0.0.1:5432/test")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--test", action="store_true", help="also score the test files (bench/published_terms.py "
                    "scores the published figures; leave them alone while developing)")
    args = ap.parse_args()
    found = search(get_engine(args.db), args.seed, args.rebuild)
    split, lists, ceiling, dev_f1, chosen = found.split, found.lists, found.ceiling, found.dev_f1, found.chosen
    print(f"seed {args.seed}; split of the annotated files by document (dev | test):")
    for d in DOMAINS:
        dev, test = split[d]
        print(f"  {d}: dev {dev.files} (K = {len(dev.gold)}) | test {test.files} (K = {len(test.gold)})")
    print("\nDevelopment F1 (mean of corp and wind; recall ceiling per domain in brackets):")
    print("  columns: " + ", ".join(f"{n} = {r}" for n, r in enumerate(RANKS)))
    print(f"  {'documents, case, min-df [ceiling]':<36}" + "".join(f"{n:>7}" for n in range(len(RANKS))))
    for scheme, case, m in itertools.product(SCHEMES, CASES, MIN_DFS):
        cells = [f"{sum(dev_f1[(d, scheme, case, m, r)] for d in DOMAINS) / len(DOMAINS):.3f}" for r in RANKS]
        ceil = "/".join(f"{ceiling[(d, scheme, case, m, 0)]:.2f}" for d in DOMAINS)
        print(f"  {f'{scheme}, {case}, {m} [{ceil}]':<36}" + "".join(f"{c:>7}" for c in cells))
    base, nested = split_rank(chosen[3])
    rank, ref = flags(base)
    print(f"\nchosen (seed {args.seed}): documents={chosen[0]} case={chosen[1]} --min-df {chosen[2]} "
          f"--rank {rank}" + (f" --reference {ref}" if ref else "") + (" --nested" if nested else "") + "  (dev F1 "
          + ", ".join(f"{d} {dev_f1[(d, *chosen)]:.3f}" for d in DOMAINS) + ")")

    if not args.test:
        return
    print("\nTest part only (never used above):")
    for d in DOMAINS:
        test = split[d][1]
        out = {}
        for label, g in (("chosen", chosen), ("freq baseline", BASELINE), ("previous flags", PREVIOUS)):
            f1, top = f1_list(lists[(d, *g)], test)
            out[label] = top
            print(f"  {d} {label:<15} {g[0]}, {g[1]}, min-df {g[2]}, {g[3]:<27} F1 {f1:.3f}  "
                  f"(recall ceiling {ceiling[(d, *g[:3], 1)]:.3f}, K = {len(test.gold)})")
        for other in ("freq baseline", "previous flags"):
            print(f"  {d} chosen vs {other}: {_paired(out['chosen'], out[other], test.gold.__contains__, other)}")


if __name__ == "__main__":
    main()
