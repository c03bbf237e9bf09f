"""Pr(+adapt1) ≈ Pr(+adapt2)? (slides: "within factors of 2-3"). Every string s has a class in the history/test
tree (method 1: a/(a+b)) and one in the whole-document tree (method 2: df_2/df_1); the strings of a history/test
class are a run of lengths on one suffix, which the whole-document classes on that suffix's path cut into
segments. Each segment is a set of strings sharing both statistics."""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from termx.index.loaded_index import LoadedIndex
from termx.studies.adaptation import SplitCounts


@dataclass
class Segments:
    """Strings grouped by (history/test class, whole-document class), restricted to df_1 >= min_df."""

    p1: np.ndarray       # a/(a+b), NaN when a+b = 0
    p2: np.ndarray       # df_2/df_1
    strings: np.ndarray  # members
    df: np.ndarray       # df_1


@dataclass
class Agreement:
    """How often the two methods agree, over strings (class members) with df_1 >= min_df."""

    min_df: int
    strings: int
    undefined: int       # a+b = 0: no occurrence wholly inside a history
    both_zero: int
    one_zero: int
    compared: int        # both > 0
    within_2: int
    within_3: int

    def as_dict(self) -> dict[str, object]:
        """Fields and the two shares the slides talk about."""
        out: dict[str, object] = dict(self.__dict__)
        out["share_within_2"] = self.within_2 / self.compared if self.compared else None
        out["share_within_3"] = self.within_3 / self.compared if self.compared else None
        return out


def segments(index: LoadedIndex, sc: SplitCounts, min_df: int) -> Segments:
    """Join every string's method-1 and method-2 statistics (both trees walked once)."""
    parent, deepest = index.tree
    df = np.ascontiguousarray(index.cls_df[:, :2]) if index.cls_df.shape[1] >= 2 else \
        np.concatenate([index.cls_df[:, :1], np.zeros((len(index.cls_i), 1), index.cls_df.dtype)], axis=1)
    ab = (sc.a + sc.b).astype(np.float64)
    p1 = np.divide(sc.a, ab, out=np.full(len(ab), np.nan), where=ab > 0)
    args = (sc.cls_i, sc.cls_lbl, sc.cls_sil, p1, sc.split.order, sc.split.lcp, sc.split.room, sc.split.half,
            deepest, parent, index.cls_lbl, index.cls_sil, df, min_df)
    n = _join(*args, np.empty(0), np.empty(0), np.empty(0, np.int64), np.empty(0, np.int64), True)
    out = (np.empty(n), np.empty(n), np.empty(n, np.int64), np.empty(n, np.int64))
    _join(*args, *out, False)
    return Segments(*out)


def agreement(seg: Segments, min_df: int) -> Agreement:
    """Counts of strings whose two adaptation estimates agree within a factor of 2 and of 3."""
    undefined = np.isnan(seg.p1)
    p1 = np.where(undefined, 0.0, seg.p1)
    zero1, zero2 = (p1 == 0) & ~undefined, seg.p2 == 0
    both = ~undefined & ~zero1 & ~zero2
    ratio = np.ones(len(p1))
    ratio[both] = np.maximum(p1[both], seg.p2[both]) / np.minimum(p1[both], seg.p2[both])
    w = seg.strings

    def total(mask: np.ndarray) -> int:
        return int(w[mask].sum())

    return Agreement(min_df, int(w.sum()), total(undefined), total(zero1 & zero2),
                     total(~undefined & (zero1 ^ zero2)), total(both), total(both & (ratio <= 2.0)),
                     total(both & (ratio <= 3.0)))


@nb.njit(cache=True)
def _join(s_i, s_lbl, s_sil, s_p1, order, s_lcp, s_room, s_half, deepest, parent, c_lbl, c_sil, c_df, min_df,  # type: ignore[no-untyped-def]
          o_p1, o_p2, o_n, o_df, count_only):
    m = 0
    n_split = len(s_i)
    n = len(order)
    for x in range(n_split + n):
        if x < n_split:  # a non-trivial history/test class
            e = order[s_i[x]]
            lo, hi, p1 = s_lbl[x], s_sil[x], s_p1[x]
        else:  # a trivial one: one occurrence, in the history (p1 = 0) or the test (undefined)
            k = x - n_split
            lo = max(s_lcp[k - 1] if k > 0 else 0, s_lcp[k])
            hi = s_room[k]
            if hi <= lo:
                continue
            e = order[k]
            p1 = 0.0 if s_half[k] == 0 else np.nan
        c = deepest[e]
        top = c_sil[c] if c >= 0 else 0
        if hi > top and min_df <= 1:  # lengths beyond every non-trivial class: e's own trivial class
            if not count_only:
                o_p1[m], o_p2[m], o_n[m], o_df[m] = p1, 0.0, hi - max(lo, top), 1
            m += 1
        while c >= 0 and c_sil[c] > lo:
            if c_lbl[c] < hi and c_df[c, 0] >= min_df:
                if not count_only:
                    o_p1[m] = p1
                    o_p2[m] = c_df[c, 1] / c_df[c, 0]
                    o_n[m] = min(hi, c_sil[c]) - max(lo, c_lbl[c])
                    o_df[m] = c_df[c, 0]
                m += 1
            c = parent[c]
    return m
