"""Co-occurrence on the face: joint document frequency, related strings and the sketches they read, as the records
of `termx jdf|related|sketch` (docs/design.md, "Joint document frequency")."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from termx.defaults import RELATED_MEASURE, RELATED_MIN_DF, RELATED_TOP, SKETCH_K, SKETCH_THRESHOLD
from termx.errors import InputError
from termx.json_values import jsonable

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from termx.jdf.pairs import Part
    from termx.progress import Progress


class CoOccurrence:
    """The jdf, related and sketch capability of a Corpus (needs its `engine` and `name`)."""

    engine: Engine
    name: str

    def _init_parts(self) -> None:
        """No jdf parts loaded yet."""
        self._jdf_parts: dict[str, list[Part]] = {}  # by method: "sketch" parts carry the stored sketches

    def jdf(self, x: str, ys: Iterable[str] | str, method: str = "exact") -> list[dict[str, Any]]:
        """Joint document frequency of `x` with each of `ys` (one string or an iterable), as `termx jdf CORPUS X
        Y... --format json`: df_x, df_y, jdf, the 2x2 document table, PMI, Dice, lift, G2 and its p-value.
        `method`: exact, or sketch (estimated from the stored sketches). A bad `x` raises PatternError; a bad y
        gets a record with an `error`, as in stats()."""
        from termx.jdf.pairs import documents

        parts = self._parts(method)
        documents(parts, x)  # a bad x is one error, not one per pair
        return list(self.iter_jdf(((x, y) for y in ([ys] if isinstance(ys, str) else ys)), method))

    def iter_jdf(self, pairs: Iterable[tuple[str, str]], method: str = "exact") -> Iterator[dict[str, Any]]:
        """jdf() of (x, y) pairs, lazily, one record per pair (`termx jdf CORPUS --patterns FILE` of X<TAB>Y
        lines); a pair with a bad string gets a record with an `error` naming its position."""
        from termx.jdf.pairs import jdf_each

        for record in jdf_each(self._parts(method), pairs, method):
            yield jsonable(record)

    def related(self, term: str, top: int = RELATED_TOP, measure: str = RELATED_MEASURE,
                min_df: int = RELATED_MIN_DF) -> list[dict[str, Any]]:
        """The `top` strings that share documents with `term` more than chance, ranked by `measure` (g2, pmi, dice
        or lift), in at least `min_df` documents, as `termx related --format json` (needs the corpus's sketches:
        termx sketch, or index(..., sketches=True))."""
        from termx.jdf.related import related

        return jsonable(related(self._parts("sketch"), term, top, measure, min_df))  # type: ignore[no-any-return]

    def sketch(self, k: int = SKETCH_K, threshold: int = SKETCH_THRESHOLD,
               progress: Progress | None = None) -> dict[str, Any]:
        """Compute and store bottom-k MinHash sketches of the document sets of the classes in at least `threshold`
        documents, for jdf(method="sketch") and related(); the summary `termx sketch --format json` prints."""
        from termx.jdf.sketch_store import build_sketches

        summary = build_sketches(self.engine, self.name, k, threshold, progress)
        self._jdf_parts.pop("sketch", None)  # the next jdf or related reads the new sketches
        return summary

    def _parts(self, method: str) -> list[Part]:
        """The shards as jdf parts, with their sketches for method "sketch" (loaded once, then kept)."""
        from termx.jdf.pairs import METHODS, load_parts

        if method not in METHODS:
            raise InputError(f"`method` {method!r} is not one of {', '.join(METHODS)}", params=("method",))
        if method not in self._jdf_parts:
            self._jdf_parts[method] = load_parts(self.engine, self.name, with_sketches=method == "sketch")
        return self._jdf_parts[method]
