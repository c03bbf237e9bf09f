"""Cross-validation by halves (slides, "Cross Validation"; "freq* depends on doc freq").

Half 1 of the collection bins every string by its (freq, df_1) there; freq* of a bin = the mean freq of the
same strings in half 2 (deleted interpolation). Strings are all substrings of the corpus: the members of the
non-trivial classes (one walk counts every class in both halves) and of the trivial classes (one occurrence).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from termx.index.loaded_index import LoadedIndex
from termx.studies.halves import bucket_counts, collection_halves, doc_of_rank

BY = ("df", "freq")
DENSE_FREQ = 1024  # bins with freq up to this are counted in a dense array (no sort)


@dataclass
class CrossvalBins:
    """Bins sorted by freq then df_1 descending; df is -1 in bins by freq alone."""

    freq: np.ndarray       # freq in half 1
    df: np.ndarray         # df_1 in half 1 (-1: not binned by df)
    n: np.ndarray          # strings (class sizes summed)
    classes: np.ndarray    # classes (trivial ones included)
    freq2_sum: np.ndarray  # sum over the bin's strings of their freq in half 2

    @property
    def freq_star(self) -> np.ndarray:
        """Mean freq in half 2 of the bin's strings."""
        return self.freq2_sum / self.n

    def rows(self) -> list[dict[str, object]]:
        """One dict per bin (the CLI and the stored table use these fields)."""
        return [{"freq": int(f), "df": int(d) if d >= 0 else None, "freq_star": float(s2) / int(n), "n": int(n),
                 "classes": int(c)}
                for f, d, n, c, s2 in zip(self.freq, self.df, self.n, self.classes, self.freq2_sum, strict=True)]


@dataclass
class HalfStatistics:
    """Every string's class-level counts in the two halves, before binning."""

    freq1: np.ndarray    # per string group: freq in half 1
    df1: np.ndarray      # df_1 in half 1
    freq2: np.ndarray    # freq in half 2
    strings: np.ndarray  # members of the group (class size)
    tokens_half1: int
    docs_half1: int


def half_statistics(index: LoadedIndex) -> HalfStatistics:
    """Counts per class in both halves (one walk) plus the trivial classes, which live in one half only."""
    half_of_doc = collection_halves(index.doc_len)
    dor = doc_of_rank(index)
    bucket = half_of_doc[dor]
    counts = bucket_counts(index.lcp, len(index.cls_i), dor, index.n_docs, bucket, 2)
    size = (index.cls_sil - index.cls_lbl).astype(np.int64)
    t_size, t_half = _trivial(index.lcp, index.sa, dor, index.doc_start, index.doc_len, bucket)
    in1 = t_half == 0
    freq1 = np.concatenate([counts.freq[:, 0], np.ones(int(in1.sum()), np.int32)])
    df1 = np.concatenate([counts.df[:, 0], np.ones(int(in1.sum()), np.int32)])
    freq2 = np.concatenate([counts.freq[:, 1], np.zeros(int(in1.sum()), np.int32)])
    strings = np.concatenate([size, t_size[in1]])
    return HalfStatistics(freq1, df1, freq2, strings, int(index.doc_len[half_of_doc == 0].sum()),
                          int((half_of_doc == 0).sum()))


@nb.njit(cache=True)
def _trivial(lcp, sa, dor, doc_start, doc_len, bucket):  # type: ignore[no-untyped-def]
    """Size and half of every valid trivial class <w,w> (members: lengths in (LBL, suffix length])."""
    n = len(lcp)
    size = np.zeros(n, dtype=np.int64)
    half = np.zeros(n, dtype=np.int8)
    m = 0
    for w in range(n):
        d = dor[w]
        bound = max(lcp[w - 1] if w > 0 else 0, lcp[w])
        room = doc_start[d] + doc_len[d] - sa[w]
        if room > bound:
            size[m] = room - bound
            half[m] = bucket[w]
            m += 1
    return size[:m], half[:m]


def crossval_bins(stats: HalfStatistics, by: str = "df") -> CrossvalBins:
    """Bin the strings present in half 1 by (freq, df_1) in half 1 (`by="df"`) or by freq alone."""
    if by not in BY:
        raise ValueError(f"by must be one of {BY}")
    keep = stats.freq1 > 0
    f1 = stats.freq1[keep].astype(np.int64)
    d1 = stats.df1[keep].astype(np.int64) if by == "df" else np.zeros(int(keep.sum()), np.int64)
    strings = stats.strings[keep].astype(np.float64)
    f2 = stats.freq2[keep].astype(np.float64)
    # dense keys (no sort) for freq <= DENSE_FREQ: (freq, df) -> freq(freq-1)/2 + df, df in 0..freq-1 or 1..freq
    small = f1 <= DENSE_FREQ
    key = np.where(small, f1 * (f1 + 1) // 2 + d1, 0)
    size = DENSE_FREQ * (DENSE_FREQ + 1) // 2 + DENSE_FREQ + 1
    parts = []
    dense = [np.bincount(key[small], weights=w[small], minlength=size) for w in (strings, np.ones(len(f1)),
                                                                                 strings * f2)]
    ks = np.flatnonzero(dense[1])
    kf = ((np.sqrt(8 * ks + 1) - 1) // 2).astype(np.int64)
    kf[kf * (kf + 1) // 2 > ks] -= 1
    kf[(kf + 1) * (kf + 2) // 2 <= ks] += 1
    parts.append((kf, ks - kf * (kf + 1) // 2, *(d[ks] for d in dense)))
    big = ~small
    if big.any():
        uniq, inverse = np.unique(f1[big] * (int(d1[big].max()) + 1) + d1[big], return_inverse=True)
        sums = [np.bincount(inverse, weights=w[big]) for w in (strings, np.ones(len(f1)), strings * f2)]
        first = np.zeros(len(uniq), np.int64)
        first[inverse] = np.arange(len(inverse))
        parts.append((f1[big][first], d1[big][first], *sums))
    freq, df, n, classes, f2sum = (np.concatenate(c) for c in zip(*parts, strict=True))
    order = np.lexsort((-df, freq))
    df = df if by == "df" else np.full(len(df), -1, np.int64)
    return CrossvalBins(freq[order], df[order], np.rint(n[order]).astype(np.int64),
                        np.rint(classes[order]).astype(np.int64), np.rint(f2sum[order]).astype(np.int64))
