"""Strings that share documents with a term more than chance: candidates from sketches, scores from exact jdf.

The definition (docs/jdf.md, "Related strings"; SQL termx.related computes the same from the stored tables):
1. the probe is the term's PROBE documents with the smallest hashes (a uniform sample of its documents);
2. every related class (termx.jdf.postings) whose sketch holds a probe document is a candidate; with `shared`
   such documents and c = the probe's hashes up to the class's tau, its jdf is estimated as shared · df / c (the
   share of the sampled term documents it holds, among those its sketch can see); candidates merge by text over
   shards, summing df and estimates;
3. in order of the measure on that estimate (then text), skipping strings that overlap the term, the first
   CANDIDATES_PER_RESULT × top are scored from exact jdf;
4. in order of the exact score (then text), a string that overlaps one ranked above it is skipped.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numba as nb
import numpy as np

from termx.defaults import RELATED_MEASURE, RELATED_MIN_DF, RELATED_TOP
from termx.errors import InputError, PatternError
from termx.jdf import exact
from termx.jdf.measures import MEASURES, association, g2_cells
from termx.jdf.pairs import Part, documents, n_documents
from termx.jdf.sketches import doc_hashes

RELATED_FIELDS = ("rank", "term", "df", "jdf", "score", "pmi", "dice", "lift", "g2")
PROBE = 32                 # term documents (smallest hashes) that probe the inverted table
CANDIDATES_PER_RESULT = 10
TERM_OVERLAP = 2    # characters a candidate may not share with an end of the term ("e OPE", "PEC m" for OPEC)
RESULT_OVERLAP = 3  # ... nor with an end of a better result


def overlaps(a: str, b: str, m: int) -> bool:
    """One contains the other, or a suffix of one of at least m characters is a prefix of the other."""
    if a in b or b in a:
        return True
    return any(a[-n:] == b[:n] or b[-n:] == a[:n] for n in range(min(m, len(a), len(b)), min(len(a), len(b))))


def related(parts: list[Part], term: str, top: int = RELATED_TOP, measure: str = RELATED_MEASURE,
            min_df: int = RELATED_MIN_DF) -> list[dict[str, Any]]:
    """The `top` strings most associated with `term` by `measure` (g2, pmi, dice or lift), df >= min_df."""
    if measure not in MEASURES:
        raise InputError(f"unknown measure {measure!r}", f"one of {', '.join(MEASURES)}")
    if top < 1 or min_df < 1:
        raise InputError("top and min_df must be at least 1")
    docs_t = documents(parts, term)
    if len(docs_t) == 0:
        raise PatternError(f"{term!r} does not occur in the corpus")
    D, dt, code = n_documents(parts), len(docs_t), MEASURES.index(measure)
    estimates = candidates(parts, docs_t)
    ranked = sorted(((-_score(dt, cdf, min(e, dt, cdf), D, code), t) for t, (cdf, e) in estimates.items()
                     if cdf >= min_df))
    picked = [text for _, text in ranked if not overlaps(text, term, TERM_OVERLAP)][: CANDIDATES_PER_RESULT * top]
    rows: list[dict[str, Any]] = []
    for text in picked:
        docs_c = documents(parts, text)
        jdf = exact.joint(docs_t, docs_c)
        a = association(dt, len(docs_c), jdf, D)
        if jdf > 0 and a[measure] is not None:
            rows.append({"term": text, "df": len(docs_c), "jdf": jdf, "score": a[measure], "pmi": a["pmi"],
                         "dice": a["dice"], "lift": a["lift"], "g2": a["g2"]})
    rows.sort(key=lambda r: (-r["score"], r["term"]))
    kept: list[dict[str, Any]] = []
    for r in rows:
        if any(overlaps(r["term"], k["term"], RESULT_OVERLAP) for k in kept):
            continue
        kept.append({"rank": len(kept) + 1, **r})
        if len(kept) == top:
            break
    return kept


def candidates(parts: list[Part], docs_t: np.ndarray) -> dict[str, tuple[int, float]]:
    """text -> (df, estimated jdf) of every related string whose sketch holds one of the term's probe documents."""
    h = doc_hashes(docs_t, parts[0].seed)
    order = np.argsort(h, kind="stable")[:PROBE]
    probe, probe_docs = h[order], docs_t[order]
    out: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for p in parts:
        rc = p.related
        if rc is None:
            raise InputError(f"corpus {p.index.corpus.name!r} has no related classes", "run termx sketch again")
        local = probe_docs[(probe_docs >= p.first_doc) & (probe_docs < p.first_doc + p.index.n_docs)] - p.first_doc
        if len(local) == 0:
            continue
        n, shared = np.unique(np.concatenate([rc.holding(int(d)) for d in local]), return_counts=True)
        c = np.searchsorted(probe, rc.tau[n], side="right")
        for k, s, ck in zip(n.tolist(), shared.tolist(), c.tolist(), strict=True):
            acc = out[rc.terms[k]]
            acc[0] += int(rc.df[k])
            acc[1] += s * len(docs_t) / ck
    return {t: (int(v[0]), float(v[1])) for t, v in out.items()}


@nb.njit(cache=True)
def _score(dx, dy, a, total, measure):  # type: ignore[no-untyped-def]
    """The measure of a 2×2 document table (as measures.py computes it; a > 0 here)."""
    if measure == 1:
        return np.log2(a * total / (dx * dy))
    if measure == 2:
        return 2.0 * a / (dx + dy)
    if measure == 3:
        return a * total / (dx * dy)
    return g2_cells(a, dx - a, dy - a, total - dx - dy + a)
