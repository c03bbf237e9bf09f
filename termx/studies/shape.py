"""The shape of adaptation (slides, "Hist >> Near >> Prior"; "1st mention depends on freq, 2nd does not"):
Pr(k >= 1) = df_1 / D and Pr(k >= 2 | k >= 1) = df_2 / df_1, averaged over strings in bins of freq."""

from __future__ import annotations

from typing import Any

import numpy as np

from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit

SHAPE_FIELDS = ("strings_of", "freq_lo", "freq_hi", "strings", "p_first", "p_second")


def shape_rows(index: LoadedIndex, min_freq: int = 2) -> list[dict[str, Any]]:
    """Rows per freq bin [2^b, 2^(b+1)) for all strings (class members, weighted by class size, freq >= min_freq)
    and, in word-unit corpora, for single words."""
    freq = (index.cls_j - index.cls_i + 1).astype(np.int64)
    df1 = index.cls_df[:, 0].astype(np.float64)
    df2 = index.cls_df[:, 1].astype(np.float64) if index.cls_df.shape[1] > 1 else np.zeros(len(freq))
    size = (index.cls_sil - index.cls_lbl).astype(np.float64)
    groups = [("all", freq >= min_freq, size)]
    if index.unit is Unit.word:
        groups.append(("words", (freq >= min_freq) & (index.cls_lbl == 0), np.ones(len(freq))))
    rows = []
    for name, keep, weight in groups:
        b = np.floor(np.log2(freq[keep])).astype(np.int64)
        w = weight[keep]
        n = np.bincount(b, weights=w)
        first = np.bincount(b, weights=w * df1[keep] / index.n_docs)
        second = np.bincount(b, weights=w * df2[keep] / df1[keep])
        for k in np.flatnonzero(n):
            rows.append({"strings_of": name, "freq_lo": int(2 ** k), "freq_hi": int(2 ** (k + 1) - 1),
                         "freq_mid": float(2 ** (k + 0.5)), "strings": int(n[k]), "p_first": first[k] / n[k],
                         "p_second": second[k] / n[k]})
    return rows
