"""The adaptation studies on the face: each pattern's document-count distribution, freq* by cross-validation,
adaptation by method 1 and 2, priming and the shape table, as the records of `termx stats --dist`, `termx
crossval` and `termx adapt` (docs/adaptation.md). A study reads the in-memory index of a one-shard corpus; with
`plot`, it also draws its figure (needs termx[plot])."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from termx.defaults import NEIGHBORS, STUDY_MIN_DF
from termx.json_values import jsonable

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from termx.index.loaded_index import LoadedIndex

ADAPT_METHODS = {"1": ("pattern", "a", "b", "c", "d", "p_adapt", "prior", "p_neg_adapt"),
                 "2": ("pattern", "adaptation", "df")}
"""The fields of adaptation() by method (method "both": every field)."""


class Studies:
    """The study capability of a Corpus (needs its `engine`, `name`, `shards` and `iter_stats`)."""

    engine: Engine
    name: str

    if TYPE_CHECKING:  # the Corpus's
        @property
        def shards(self) -> list[LoadedIndex]: ...

        def iter_stats(self, patterns: Iterable[str] | str) -> Iterator[Any]: ...

    def _study_index(self) -> LoadedIndex:
        """The index of this one-shard corpus (MultiShardUnsupported for several: a study splits documents)."""
        from termx.storage.index_loader import load_index

        return load_index(self.engine, self.name)

    def iter_dist(self, patterns: Iterable[str] | str) -> Iterator[dict[str, Any]]:
        """Each pattern's document-count distribution, lazily (`termx stats --dist --format json`): Pr(k) for
        k = 0..K-1, the tail Pr(k >= K), mean, variance, entropy and the Poisson / negative binomial / Katz fits
        (docs/adaptation.md); a bad pattern gets an error record, as in iter_stats()."""
        from termx.lookup import error_record
        from termx.studies.distribution import DIST_FIELDS, dist_row

        n_docs = sum(s.n_docs for s in self.shards)
        for r in self.iter_stats(patterns):
            yield jsonable(error_record(DIST_FIELDS, r["pattern"], r["error"]) if "error" in r else
                           dist_row(r["pattern"], r["freq"], r["df"], n_docs))

    def iter_fits(self, patterns: Iterable[str] | str) -> Iterator[dict[str, Any]]:
        """iter_dist() with each pattern's observed df_1..df_K ("df") and the df_k each fitted model expects
        ("expected": poisson, negative_binomial, katz; termx.studies.distribution.expected_df): what the
        explorer plots. A bad pattern gets an error record, as in iter_stats()."""
        from termx.lookup import error_record
        from termx.studies.distribution import DIST_FIELDS, dist_row, expected_df

        n_docs = sum(s.n_docs for s in self.shards)
        for r in self.iter_stats(patterns):
            if "error" in r:
                yield jsonable(error_record((*DIST_FIELDS, "df", "expected"), r["pattern"], r["error"]))
                continue
            row = dist_row(r["pattern"], r["freq"], r["df"], n_docs)
            yield jsonable({**row, "df": r["df"], "expected": expected_df(row, len(r["df"]))})

    def crossval(self, by: str = "df", plot: str | None = None) -> dict[str, Any]:
        """freq* by cross-validation (`termx crossval`): the documents split into two halves, every substring
        binned by its freq and df_1 in half 1 (`by` "df"; "freq": by freq alone), freq* = its mean freq in half 2.
        The (freq, df_1) bins are stored (termx.crossval_bin). Returns {"rows": the bins, "bins", "documents",
        "docs_half1", "tokens", "tokens_half1"}."""
        from termx.studies.crossval import crossval_bins, half_statistics
        from termx.studies.crossval_store import save_crossval

        _require_plotting(plot)
        index = self._study_index()
        stats = half_statistics(index)
        by_df = crossval_bins(stats, "df")
        save_crossval(self.engine, index, stats, by_df)
        rows = (by_df if by == "df" else crossval_bins(stats, by)).rows()
        if plot:
            from termx.studies.plots import plot_crossval

            plot_crossval(by_df.rows(), plot)
        return {"rows": jsonable(rows), "bins": len(rows), "documents": index.n_docs,
                "docs_half1": stats.docs_half1, "tokens": index.n, "tokens_half1": stats.tokens_half1}

    def adaptation(self, patterns: Sequence[str], method: str = "both", priming: bool = False,
                   neighbors: int = NEIGHBORS, plot: str | None = None) -> list[dict[str, Any]]:
        """Adaptation of each pattern (`termx adapt CORPUS PATTERN...`): method 1 (history = each document's first
        half, a, b, c, d, Pr(+adapt), prior, Pr(-adapt)), method 2 (df_2/df_1) or both; with `priming`, Pr(test |
        near) over each document's `neighbors` nearest documents. The fields: adaptation_fields(method, priming)."""
        from termx.studies.adaptation import adapt_rows

        _require_plotting(plot)
        index = self._study_index()
        rows = adapt_rows(index, patterns)
        if priming:
            from termx.studies.priming import priming_rows

            for row, extra in zip(rows, priming_rows(index, patterns, neighbors), strict=True):
                row.update(extra)
        if plot:
            import numpy as np

            from termx.studies.plots import plot_agreement

            p1 = np.array([r["p_adapt"] or 0.0 for r in rows])
            p2 = np.array([r["adaptation"] or 0.0 for r in rows])
            plot_agreement(p1, p2, np.ones(len(rows)), plot)
        fields = adaptation_fields(method, priming)
        return jsonable([{k: r[k] for k in fields} for r in rows])  # type: ignore[no-any-return]

    def agreement(self, min_df: int = STUDY_MIN_DF, plot: str | None = None) -> dict[str, Any]:
        """How often method 1 and method 2 agree within a factor of 2 and 3, over every string with df_1 >=
        `min_df` (`termx adapt CORPUS`)."""
        from termx.studies.adaptation import split_counts
        from termx.studies.agreement import agreement, segments

        _require_plotting(plot)
        index = self._study_index()
        seg = segments(index, split_counts(index), min_df)
        if plot:
            from termx.studies.plots import plot_agreement

            plot_agreement(seg.p1, seg.p2, seg.strings, plot)
        return jsonable(agreement(seg, min_df).as_dict())  # type: ignore[no-any-return]

    def priming_summary(self, neighbors: int = NEIGHBORS, min_df: int = STUDY_MIN_DF) -> dict[str, Any]:
        """Pr(test | history), Pr(test | near) and Pr(test | other) over the words with df_1 >= `min_df` (`termx
        adapt CORPUS --priming`); its fields: study_fields("priming")."""
        from termx.studies.priming import priming_summary

        return jsonable(priming_summary(self._study_index(), neighbors, min_df))  # type: ignore[no-any-return]

    def shape(self, priming: bool = False, neighbors: int = NEIGHBORS, plot: str | None = None) -> list[dict[str, Any]]:
        """The shape table (`termx adapt CORPUS --shape`): Pr(k>=1) and Pr(k>=2 | k>=1) by binned freq; with
        `priming`, also p_near. Its fields: study_fields("shape") (and "p_near")."""
        from termx.studies.shape import shape_rows

        _require_plotting(plot)
        index = self._study_index()
        rows = shape_rows(index)
        if priming:
            from termx.studies.priming import near_by_freq

            rows = near_by_freq(index, rows, neighbors)
        if plot:
            from termx.studies.plots import plot_shape

            plot_shape(rows, plot)
        return jsonable(rows)  # type: ignore[no-any-return]


def adaptation_fields(method: str = "both", priming: bool = False) -> tuple[str, ...]:
    """The fields of adaptation(patterns, method, priming), in the order `termx adapt` shows them."""
    from termx.studies.adaptation import ADAPT_FIELDS

    fields = ADAPT_METHODS.get(method, ADAPT_FIELDS)
    if priming:
        from termx.studies.priming import PRIMING_FIELDS

        fields = (*fields, *(f for f in PRIMING_FIELDS if f not in fields))
    return fields


def study_fields(study: str) -> tuple[str, ...]:
    """The fields of a study's records: "crossval", "dist", "shape" or "priming" (the summary)."""
    if study == "crossval":
        return "freq", "df", "freq_star", "n", "classes"
    if study == "dist":
        from termx.studies.distribution import DIST_FIELDS

        return DIST_FIELDS
    if study == "shape":
        from termx.studies.shape import SHAPE_FIELDS

        return SHAPE_FIELDS
    from termx.studies.priming import PRIMING_SUMMARY_FIELDS

    return PRIMING_SUMMARY_FIELDS


def _require_plotting(plot: str | None) -> None:
    """MissingDependency before the work when a figure is asked for and matplotlib is not installed."""
    if plot:
        from termx.studies.plots import require_matplotlib

        require_matplotlib()
