"""Strings that share documents with a term more than chance: candidates from sketches, scores from exact jdf.

Every sketched class is compared with the term's sketch (one numba pass over all sketches); the best estimates
become candidates, their exact jdf (documents of the class's interval) gives the final score. A class stands for
its longest member; strings that contain the term, are contained in it or share an end of 2+ characters with it are
skipped, and so is a candidate that overlaps one ranked above it (3+ characters), so that one word does not fill the
list with its fragments.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from termx.errors import InputError, PatternError
from termx.jdf import exact
from termx.jdf.estimate import point, union_count
from termx.jdf.measures import MEASURES, association, g2_cells
from termx.jdf.pairs import Part, documents, sketch_of
from termx.lookup import member

RELATED_FIELDS = ("rank", "term", "df", "jdf", "score", "pmi", "dice", "lift", "g2")
CANDIDATES_PER_RESULT = 10
TERM_OVERLAP = 2    # characters a candidate may not share with an end of the term ("e OPE", "PEC m" for OPEC)
RESULT_OVERLAP = 3  # ... nor with an end of a better result ("il pr" after "l price")


def overlaps(a: str, b: str, m: int) -> bool:
    """One contains the other, or a suffix of one of at least m characters is a prefix of the other."""
    if a in b or b in a:
        return True
    return any(a[-n:] == b[:n] or b[-n:] == a[:n] for n in range(min(m, len(a), len(b)), min(len(a), len(b))))


def related(parts: list[Part], term: str, top: int = 20, measure: str = "g2", min_df: int = 5) -> list[dict[str, Any]]:
    """The `top` strings most associated with `term` by `measure` (g2, pmi, dice or lift), df >= min_df."""
    if measure not in MEASURES:
        raise InputError(f"unknown measure {measure!r}", f"one of {', '.join(MEASURES)}")
    if top < 1 or min_df < 1:
        raise InputError("top and min_df must be at least 1")
    if len(parts) != 1:
        raise InputError("related needs a single-shard corpus")
    part = parts[0]
    sk, index = part.sketches, part.index
    assert sk is not None
    docs_t = documents(parts, term)
    if len(docs_t) == 0:
        raise PatternError(f"{term!r} does not occur in the corpus")
    D = index.n_docs
    _, st = sketch_of(parts, term)
    df1 = np.ascontiguousarray(index.cls_df[:, 0])[sk.cls].astype(np.int64)
    est = _estimates(st, len(docs_t), sk.offsets, sk.hashes, df1, sk.k, min_df, D, MEASURES.index(measure))
    order = np.argsort(-est, kind="stable")
    order = order[np.isfinite(est[order])][: max(CANDIDATES_PER_RESULT * top, 200)]
    rows: list[dict[str, Any]] = []
    for n in order.tolist():
        m = int(sk.cls[n])
        i, j = int(index.cls_i[m]), int(index.cls_j[m])
        text = member(index, i, int(index.cls_sil[m])).strip()
        if not text or overlaps(text, term, TERM_OVERLAP):
            continue
        docs_c = exact.interval_documents(index, i, j)
        jdf = exact.joint(docs_t, docs_c)
        a = association(len(docs_t), len(docs_c), jdf, D)
        if a[measure] is None or jdf == 0:
            continue
        rows.append({"term": text, "df": len(docs_c), "jdf": jdf, "score": a[measure], "pmi": a["pmi"],
                     "dice": a["dice"], "lift": a["lift"], "g2": a["g2"]})
    rows.sort(key=lambda r: -r["score"])
    kept: list[dict[str, Any]] = []
    for r in rows:
        if any(overlaps(r["term"], k["term"], RESULT_OVERLAP) for k in kept):
            continue
        kept.append({"rank": len(kept) + 1, **r})
        if len(kept) == top:
            break
    return kept


@nb.njit(cache=True)
def _estimates(st, df_t, offsets, hashes, df1, k, min_df, documents, measure):  # type: ignore[no-untyped-def]
    """Sketch estimate of the measure (MEASURES order) for every sketched class; -inf when it shares nothing."""
    out = np.full(len(df1), -np.inf)
    for n in range(len(df1)):
        if df1[n] < min_df:
            continue
        sc = hashes[offsets[n]: offsets[n + 1]]
        shared, taken = union_count(st, sc, k)
        if shared == 0:
            continue
        if len(st) < k and len(sc) < k:  # both complete: the count is exact
            jdf = float(shared)
        else:
            jdf = point(shared, taken, df_t, df1[n])
        out[n] = _score(df_t, df1[n], jdf, documents, measure)
    return out


@nb.njit(cache=True)
def _score(dx, dy, a, total, measure):  # type: ignore[no-untyped-def]
    """The measure of a 2×2 document table (as measures.py computes it; jdf > 0 here)."""
    if measure == 1:
        return np.log2(a * total / (dx * dy))
    if measure == 2:
        return 2.0 * a / (dx + dy)
    if measure == 3:
        return a * total / (dx * dy)
    return g2_cells(a, dx - a, dy - a, total - dx - dy + a)
