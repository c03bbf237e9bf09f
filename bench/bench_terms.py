"""Measure term extraction (issue 5, "Must be measured"): does adaptation beat frequency on real text?

Set-up (once): the English word list is Debian's wamerican,
    apt-get update && apt-get install -y wamerican          # → /usr/share/dict/words
Run from the repository root:  .venv/bin/python bench/bench_terms.py [--db URL] [--parts en,zh,acter,time]

Every ranking (adaptation, poisson, ridf, freq, df) runs through termx.terms.extract_terms, i.e. the
sql/terms_*.sql queries, with the CLI's defaults unless a part says otherwise; the freq ranking is the
reference each figure is compared with (a ratio, and a paired test from termx.evaluation).

- en: Reuters-21578 with all white space deleted (unit byte, one document per story): precision at 50, 100,
  500 and 1,000 — a candidate counts when it, or its lower-case form, is a word of /usr/share/dict/words.
- zh: SIGHAN 2005 PKU test text (unit char); pseudo-documents of 10 consecutive lines (the file has no
  document marks); a candidate counts when it is a word of the PKU training word list.
- acter: ACTER 1.5 English, corruption and wind energy; unit word, annotated and unannotated texts together
  as one corpus per domain, one document per file (and, as a second scheme, per paragraph); --min-len 1 (the
  gold lists hold single words). The gold list covers the annotated texts only, so candidates that never
  occur there are skipped. The ranked list is lower-cased and de-duplicated, its first K kept, K = size of
  the gold list (*_terms.tsv, first column, lower-cased, named entities not included): precision, recall,
  F1 (equal when K terms are listed). Headline: files, the default --min-df 3; a table shows the others.
- specificity (ACTER only): weirdness against a reference corpus x ln freq (sql/terms_specificity.sql), the
  reference being Reuters-21578 indexed with unit word (bench-terms-reuters-word), general news text.
- poisson-1: the poisson ranking recomputed in this script with the one-rate null the issue states
  (lambda = freq / D in every document) instead of termx's length-aware one, to see what the difference does.
- Paired tests against freq: McNemar (exact) over the union of the two top-k lists (an item is right for a
  system when it is in that system's list exactly when it is in the gold/word list), and a sign test over
  bins of 50 ranks (precision per bin).
- time: extract_terms top 1,000 per ranking on Reuters as spaced text (unit byte, 15.8 M tokens, the 18.5 MB
  file), warm (candidates stored, repeated calls; median of 5), next to the same adaptation top 1,000 queried
  straight from termx.class (no candidate table) in the same run.

Corpora are named bench-terms-*; an existing one is reused (--rebuild rebuilds them).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from _data import data_dir

from termx.errors import CorpusNotFound
from termx.evaluation.paired import sign_test
from termx.evaluation.paired_outcomes import mcnemar
from termx.evaluation.termlists import occurs_in, top_k
from termx.index.ingest import Document
from termx.index.ingest import paragraphs as split_paragraphs
from termx.index.units import Unit
from termx.poisson import poisson_adaptation
from termx.storage.corpora import get_corpus
from termx.storage.db import get_engine
from termx.storage.indexer import index_documents
from termx.terms import Ranking, ensure_candidates, extract_terms

DATA = data_dir()
DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/test"
WORDS = Path("/usr/share/dict/words")
ONE_RATE = "poisson-1"   # the poisson ranking with a one-rate null, for comparison (computed in this script)
REFERENCE = "bench-terms-reuters-word"   # the general-text reference of the specificity ranking (ACTER)
RANKS = [r.value for r in Ranking if r is not Ranking.specificity] + [ONE_RATE]
ACTER_RANKS = [*RANKS, Ranking.specificity.value]
KS = (50, 100, 500, 1000)
BIN = 50


def _corpus(engine: sa.Engine, name: str, docs: list[Document], unit: Unit, rebuild: bool,
            fold_case: bool = False, candidates: bool = True) -> None:
    """Index `docs` as `name` unless it exists (or rebuild), then make sure its candidates are stored (unless
    not `candidates`: a specificity reference needs only its index)."""
    try:
        get_corpus(engine, name)
        exists = True
    except CorpusNotFound:
        exists = False
    if rebuild or not exists:
        t0 = time.perf_counter()
        index_documents(engine, name, docs, unit, replace=True, fold_case=fold_case)
        print(f"  indexed {name}: {len(docs)} documents in {time.perf_counter() - t0:.1f} s")
    if not candidates:
        return
    t0 = time.perf_counter()
    ensure_candidates(engine, name)
    print(f"  candidates of {name} ready in {time.perf_counter() - t0:.1f} s")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _ranked(engine: sa.Engine, name: str, rank: str, top: int, **filters: int) -> list[str]:
    """The top terms of a ranking; ONE_RATE is the poisson ranking recomputed here with a one-rate null."""
    if rank == Ranking.specificity.value:
        return [r["term"] for r in extract_terms(engine, name, rank, top, reference=REFERENCE, **filters)]
    if rank != ONE_RATE:
        return [r["term"] for r in extract_terms(engine, name, rank, top, **filters)]
    d = get_corpus(engine, name).documents
    scored = []
    for r in extract_terms(engine, name, "freq", 10**8, **filters):
        lam = r["freq"] / d
        p0 = min(max(poisson_adaptation(lam), 1e-300), 1 - 1e-15)
        n, x = r["df"][0], r["df"][1]
        e = n * p0
        g2 = 2 * ((x * math.log(x / e) if x else 0.0) + ((n - x) * math.log((n - x) / (n - e)) if n > x else 0.0))
        scored.append((-math.copysign(g2, x - e), -r["freq"], r["term"].encode("utf-8"), r["term"]))
    return [t[-1] for t in sorted(scored)[:top]]


def _paired(a: list[str], b: list[str], good: Any, other: str = "freq") -> str:
    """McNemar over the union of two top-k lists and a sign test over bins of BIN ranks; `good(term)` says
    whether a listed term is right."""
    union = sorted(set(a) | set(b))
    in_a, in_b = set(a), set(b)
    right_a = [int((t in in_a) == bool(good(t))) for t in union]
    right_b = [int((t in in_b) == bool(good(t))) for t in union]
    mc = mcnemar(right_a, right_b)
    bins = range(0, min(len(a), len(b)) - BIN + 1, BIN)
    pa = [sum(bool(good(t)) for t in a[s:s + BIN]) for s in bins]
    pb = [sum(bool(good(t)) for t in b[s:s + BIN]) for s in bins]
    st = sign_test(pa, pb)
    fmt = "n/a" if mc.p_value is None else f"{mc.p_value:.2g}"
    sfmt = "n/a" if st.p_value is None else f"{st.p_value:.2g}"
    d = mc.details
    return (f"McNemar only-this {d['x_only_right']} vs only-{other} {d['y_only_right']}: p={fmt}; "
            f"sign test over {len(pa)} bins of {BIN}: {st.details['x_better']} better, "
            f"{st.details['y_better']} worse, p={sfmt}")


def _precision_table(engine: sa.Engine, name: str, good: Any, filters: dict[str, int]) -> None:
    lists = {r: _ranked(engine, name, r, max(KS), **filters) for r in RANKS}
    base = {k: sum(bool(good(t)) for t in lists["freq"][:k]) / k for k in KS}
    print(f"  {'ranking':<11}" + "".join(f"{'P@' + str(k):>16}" for k in KS))
    for r in RANKS:
        cells = []
        for k in KS:
            p = sum(bool(good(t)) for t in lists[r][:k]) / k
            cells.append(f"{p:.3f} ({p / base[k]:.2f}x)" if base[k] else f"{p:.3f}")
        print(f"  {r:<11}" + "".join(f"{c:>16}" for c in cells))
    for r in RANKS:
        if r != "freq":
            print(f"  {r} vs freq, top {max(KS)}: {_paired(lists[r], lists['freq'], good)}")
    for r in ("adaptation", "freq"):
        print(f"  {r} top 20: {' | '.join(lists[r][:20])}")


def english(engine: sa.Engine, rebuild: bool) -> None:
    print("\n== English, white space deleted (Reuters-21578, unit byte) vs /usr/share/dict/words ==")
    if not WORDS.exists():
        print("  skipped: /usr/share/dict/words missing (apt-get update && apt-get install -y wamerican)")
        return
    words = {w.strip() for w in WORDS.read_text(encoding="utf-8").splitlines() if w.strip()}
    lower = {w.lower() for w in words}
    docs = [Document(str(r["id"]), re.sub(r"\s+", "", r["text"])) for r in _jsonl(DATA / "en/reuters21578.jsonl")]
    docs = [d for d in docs if d.text]
    name = "bench-terms-en-nospace"
    _corpus(engine, name, docs, Unit.byte, rebuild)
    _precision_table(engine, name, lambda t: t in words or t.lower() in lower, {})


def chinese(engine: sa.Engine, rebuild: bool) -> None:
    print("\n== Chinese (SIGHAN 2005 PKU test text, unit char) vs the PKU training word list ==")
    folder = DATA / "zh/sighan2005-pku"
    if not folder.exists():
        print(f"  skipped: {folder} missing")
        return
    lines = [ln.strip() for ln in (folder / "pku_test.utf8").read_text(encoding="utf-8").splitlines()]
    lines = [ln for ln in lines if ln]
    docs = [Document(f"lines{n:04d}", "\n".join(lines[n:n + 10])) for n in range(0, len(lines), 10)]
    gold = {w.strip() for w in (folder / "pku_training_words.utf8").read_text(encoding="utf-8").splitlines()}
    gold.discard("")
    name = "bench-terms-zh-pku"
    _corpus(engine, name, docs, Unit.char, rebuild)
    print(f"  {len(docs)} pseudo-documents of 10 lines, {len(gold)} gold words")
    _precision_table(engine, name, lambda t: t in gold, {})


def _acter_docs(domain: Path, paragraphs: bool) -> tuple[list[Document], str]:
    """The domain's documents (files, or their blank-line separated paragraphs) and its annotated text."""
    annotated = sorted((domain / "annotated/texts").glob("*.txt"))
    files = annotated + sorted((domain / "unannotated_texts").glob("*.txt"))
    texts = {p: p.read_text(encoding="utf-8") for p in files}
    if paragraphs:
        docs = [d for p in files for d in split_paragraphs(texts[p], p.stem)]   # as `termx index --input paragraphs`
    else:
        docs = [Document(p.stem, texts[p]) for p in files]
    return docs, "\n".join(texts[p] for p in annotated).lower()


def _ceiling(engine: sa.Engine, name: str, gold: set[str], min_df: int) -> float:
    """The recall ceiling: the share of the gold terms that are candidates at all (lower-cased, --min-len 1)."""
    cands = {r["term"].lower() for r in extract_terms(engine, name, "freq", 10**8, min_df=min_df, min_len=1)}
    return len(gold & cands) / len(gold)


def acter(engine: sa.Engine, rebuild: bool) -> None:
    print("\n== ACTER 1.5 English (unit word, --min-len 1) ==")
    print("  Statistics from annotated + unannotated texts; the gold list covers the annotated texts only, so a\n"
          "  candidate is listed only if it occurs there (whole words, lower-cased).")
    root = DATA / "en/acter"
    ref_docs = [Document(str(r["id"]), r["text"]) for r in _jsonl(DATA / "en/reuters21578.jsonl") if r["text"].strip()]
    _corpus(engine, REFERENCE, ref_docs, Unit.word, rebuild, candidates=False)
    peers = {"corp": (0.17, 0.18), "wind": (0.19, 0.25)}
    for dom in ("corp", "wind"):
        domain = root / dom
        if not domain.exists():
            print(f"  skipped: {domain} missing")
            continue
        gold_file = domain / f"annotated/annotations/unique_annotation_lists/{dom}_en_terms.tsv"
        gold = {ln.split("\t")[0].strip().lower() for ln in gold_file.read_text(encoding="utf-8").splitlines()
                if ln.strip()}
        k = len(gold)
        print(f"\n  {dom}: gold list K = {k} terms; peers (same data): n-gram freq F1 {peers[dom][0]}, "
              f"YAKE {peers[dom][1]}")
        f1s: dict[tuple[str, int], list[str]] = {}
        for scheme in ("files", "paragraphs"):
            docs, annotated = _acter_docs(domain, scheme == "paragraphs")
            occurs = occurs_in(annotated)
            name = f"bench-terms-acter-{dom}-{scheme}"
            _corpus(engine, name, docs, Unit.word, rebuild)
            for min_df in (3, 2, 1, 5):
                lists = {r: top_k(_ranked(engine, name, r, 10**6, min_len=1, min_df=min_df), k, occurs)
                         for r in ACTER_RANKS}
                f1s[(scheme, min_df)] = [f"{2 * len(set(lists[r]) & gold) / (len(lists[r]) + k):.3f}"
                                         for r in ACTER_RANKS] + [f"{_ceiling(engine, name, gold, min_df):.3f}"]
                if (scheme, min_df) != ("files", 3):
                    continue
                print(f"  documents = {len(docs)} files, --min-df 3 (the defaults); recall ceiling "
                      f"{_ceiling(engine, name, gold, 3):.3f}:")
                print(f"  {'ranking':<11}{'P':>8}{'R':>8}{'F1':>8}{'F1/freq':>9}")
                base_hits = len(set(lists["freq"]) & gold)
                base_f1 = 2 * base_hits / (len(lists["freq"]) + k)
                for r in ACTER_RANKS:
                    hits = len(set(lists[r]) & gold)
                    p, rec = hits / max(len(lists[r]), 1), hits / k
                    f1 = 2 * hits / (len(lists[r]) + k)
                    print(f"  {r:<11}{p:>8.3f}{rec:>8.3f}{f1:>8.3f}{f1 / base_f1:>8.2f}x")
                for r in ACTER_RANKS:
                    if r != "freq":
                        print(f"  {r} vs freq: {_paired(lists[r], lists['freq'], gold.__contains__)}")
                vs_ridf = _paired(lists["specificity"], lists["ridf"], gold.__contains__, "ridf")
                print(f"  specificity vs ridf: {vs_ridf}")
                for r in ("specificity", "adaptation", "freq"):
                    print(f"  {r} top 20: {' | '.join(lists[r][:20])}")
        print(f"  F1 by document scheme and --min-df (ceiling: share of gold terms that are candidates at all):"
              f"\n  {'':<20}" + "".join(f"{r:>12}" for r in [*ACTER_RANKS, "ceiling"]))
        for (scheme, min_df), row in f1s.items():
            print(f"  {scheme + ', min-df ' + str(min_df):<20}" + "".join(f"{c:>12}" for c in row))


def timing(engine: sa.Engine, rebuild: bool) -> None:
    print("\n== Time to rank the top 1,000 (Reuters-21578 as spaced text, unit byte, warm) ==")
    rows = _jsonl(DATA / "en/reuters21578.jsonl")
    docs = [Document(str(r["id"]), r["text"], r.get("title")) for r in rows if r["text"].strip()]
    name = "bench-terms-en-spaced"
    _corpus(engine, name, docs, Unit.byte, rebuild)
    info = get_corpus(engine, name)
    with engine.connect() as conn:
        n_cand = conn.execute(sa.text("SELECT count(*) FROM termx.candidate t JOIN termx.shard s ON s.id = "
                                      "t.shard_id WHERE s.corpus_id = :c"), {"c": info.id}).scalar()
    print(f"  {info.tokens:,} tokens, {info.documents:,} documents, {info.classes:,} classes, "
          f"{n_cand:,} candidates")

    def from_classes() -> None:
        """The reference: the adaptation top 1,000 straight from termx.class (every class's longest member, no
        candidate rules), the query termx would need without the candidate table."""
        with engine.connect() as conn:
            conn.execute(sa.text(
                "SELECT k.rep, CAST(k.df[2] + 0.5 AS float8) / (k.df[1] + 1) AS score FROM termx.class k"
                " JOIN termx.shard s ON s.id = k.shard_id WHERE s.corpus_id = :c AND k.df[1] >= 3"
                " AND k.sil BETWEEN 2 AND 40 ORDER BY score DESC, k.freq DESC, k.rep LIMIT 1000"), {"c": info.id}).all()

    def median(fn: Any) -> float:
        fn()
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    ref = median(from_classes)
    print(f"  reference, the same top 1,000 by adaptation from termx.class without candidates: {ref * 1000:.0f} ms")
    for r in RANKS[:-1]:
        t = median(lambda r=r: extract_terms(engine, name, r, 1000))
        print(f"  {r:<11} top 1,000: {t * 1000:6.0f} ms = {t / ref:5.3f}x the reference "
              f"({'meets' if t < 1 else 'misses'} the 1 s target)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", default=DEFAULT_DB)
    ap.add_argument("--parts", default="en,zh,acter,time")
    ap.add_argument("--rebuild", action="store_true")
    args = ap.parse_args()
    engine = get_engine(args.db)
    parts = {"en": english, "zh": chinese, "acter": acter, "time": timing}
    for part in args.parts.split(","):
        parts[part](engine, args.rebuild)


if __name__ == "__main__":
    main()
