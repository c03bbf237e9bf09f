"""jdf(x, y) for pairs of strings, exact or from sketches, with the contingency table and association measures.

A corpus is a list of parts (its shards): a string's df and documents are sums and unions over parts, document
numbers are global (part.first_doc + local number), and a string's sketch is the bottom-k of the union of the
parts' sketches (a part where the string is too rare to be sketched contributes its documents' hashes).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy.engine import Engine

from termx.errors import PatternError
from termx.index.loaded_index import LoadedIndex
from termx.jdf import exact
from termx.jdf.estimate import Estimate, estimate_jdf
from termx.jdf.measures import association
from termx.jdf.postings import RelatedClasses
from termx.jdf.sketches import SEED, Sketches, doc_hashes, merge
from termx.lookup import pattern_failure

JDF_FIELDS = ("x", "y", "df_x", "df_y", "jdf", "documents", "table", "pmi", "dice", "lift", "g2", "p_value",
              "method", "stderr", "interval", "note")
METHODS = ("exact", "sketch")


@dataclass
class Part:
    """One shard of a corpus: its loaded index, its sketches and related classes (None when not sketched), its
    first global document."""

    index: LoadedIndex
    sketches: Sketches | None = None
    first_doc: int = 0
    seed: int = SEED
    related: RelatedClasses | None = None


def load_parts(engine: Engine, corpus: str, with_sketches: bool) -> list[Part]:
    """The parts (shards) of a stored corpus, with their stored sketches and related classes if asked."""
    from termx.jdf.sketch_store import load_related, load_sketches, stored_params
    from termx.storage.index_loader import load_shards

    parts = []
    for index in load_shards(engine, corpus):
        if not with_sketches:
            parts.append(Part(index, first_doc=index.first_doc))
            continue
        sk = load_sketches(engine, index)
        params = stored_params(engine, index)
        assert params is not None
        parts.append(Part(index, sk, index.first_doc, params.seed, load_related(engine, index)))
    return parts


def documents(parts: Sequence[Part], pattern: str) -> np.ndarray:
    """Global numbers of the documents holding `pattern`, sorted."""
    return np.concatenate([exact.documents(p.index, pattern) + p.first_doc for p in parts])


def n_documents(parts: Sequence[Part]) -> int:
    """D, summed over parts."""
    return sum(p.index.n_docs for p in parts)


def sketch_of(parts: Sequence[Part], pattern: str) -> tuple[int, np.ndarray]:
    """(df, bottom-k hashes) of a string: per part its class's stored sketch, or its documents' hashes when the
    class is below the part's threshold; merged over parts."""
    df, pieces = 0, []
    k = parts[0].sketches.k if parts[0].sketches is not None else 0
    for p in parts:
        assert p.sketches is not None
        m = exact.locate(p.index, pattern)
        if m is None:
            continue
        df += m.df[0]
        n = p.sketches.find(m.cls) if m.cls >= 0 else -1
        if n >= 0:
            pieces.append(np.asarray(p.sketches.of(n)))
        else:
            assert m.i is not None and m.j is not None
            docs = exact.interval_documents(p.index, m.i, m.j) + p.first_doc
            pieces.append(doc_hashes(docs, p.seed))
    return df, merge(pieces, k)


def threshold(parts: Sequence[Part]) -> int:
    """The smallest df a string needs to be estimated from sketches (the parts' sketch threshold)."""
    return max(p.sketches.threshold for p in parts if p.sketches is not None)


def jdf_pairs(parts: Sequence[Part], x: str, ys: Sequence[str], method: str = "exact") -> list[dict[str, Any]]:
    """One row (JDF_FIELDS) per y: df_x, df_y, jdf(x, y), the document table, the measures and, for sketch
    estimates, stderr and the 95 % interval. Strings below the sketch threshold fall back to exact (noted).
    PatternError at the first bad string (jdf_each answers every good pair instead)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}")
    D = n_documents(parts)
    docs_x = documents(parts, x)
    return [_pair_row(parts, D, x, docs_x, y, method) for y in ys]


def jdf_each(parts: Sequence[Part], pairs: Iterable[tuple[str, str]],
             method: str = "exact") -> Iterator[dict[str, Any]]:
    """jdf_pairs of a batch of (x, y) pairs, lazily (x's documents found once for a run of pairs with the same x):
    a row per good pair, and for a pair with a bad string its record with every field None but x and y, and an
    `error` naming the pair's position and the string (termx.lookup.pattern_failure)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}")
    D = n_documents(parts)
    last: tuple[str, np.ndarray] | None = None
    for position, (x, y) in enumerate(pairs, 1):
        side, bad = "x", x
        try:
            if last is None or last[0] != x:
                last = (x, documents(parts, x))
            side, bad = "y", y
            yield _pair_row(parts, D, x, last[1], y, method)
        except PatternError as exc:
            error = pattern_failure(position, bad, exc, label=f"pair {position}, {side}")
            yield {**dict.fromkeys(JDF_FIELDS), "x": x, "y": y, "error": error}


def _pair_row(parts: Sequence[Part], D: int, x: str, docs_x: np.ndarray, y: str, method: str) -> dict[str, Any]:
    """The JDF_FIELDS of one pair, given x's documents (see jdf_pairs)."""
    docs_y = documents(parts, y)
    df_x, df_y = len(docs_x), len(docs_y)
    notes = []
    if x == y:
        notes.append("x and y are the same string: jdf = df")
    for name, s, df in (("x", x, df_x), ("y", y, df_y)):
        if df == 0:
            notes.append(f"{name} ({s!r}) does not occur: measures are undefined")
    est: Estimate | None = None
    if method == "sketch" and df_x and df_y and x != y:
        t = threshold(parts)
        if min(df_x, df_y) < t:
            notes.append(f"df below the sketch threshold ({t}): exact jdf instead")
        else:
            k = parts[0].sketches.k if parts[0].sketches is not None else 0
            (_, sx), (_, sy) = sketch_of(parts, x), sketch_of(parts, y)
            est = estimate_jdf(sx, sy, df_x, df_y, k, D)
    value: float = est.jdf if est is not None else exact.joint(docs_x, docs_y)
    row: dict[str, Any] = {"x": x, "y": y, "df_x": df_x, "df_y": df_y,
                           "jdf": round(value, 2) if est is not None and not est.exact else int(value),
                           "documents": D, **association(df_x, df_y, value, D),
                           "method": "sketch" if est is not None else "exact", "stderr": None,
                           "interval": None, "note": "; ".join(notes) or None}
    if est is not None:
        row["stderr"] = round(est.stderr, 3)
        row["interval"] = [round(est.low, 2), round(est.high, 2)]
    return row
