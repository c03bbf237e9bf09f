"""Association of two strings from their 2×2 document contingency table: PMI, Dice, lift, G² and its p-value.

The table counts documents: a = x_and_y (both), b = x only, c = y only, d = neither, a + b + c + d = D. Every measure is
None when it is undefined (a string that does not occur, an empty corpus, PMI of a pair that never co-occurs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np


@dataclass(frozen=True)
class Table:
    """2×2 document counts; floats so that a sketch estimate of jdf can fill it too."""

    x_and_y: float
    x_only: float
    y_only: float
    neither: float

    @classmethod
    def of(cls, df_x: float, df_y: float, jdf: float, documents: int) -> Table:
        """The table from the margins df_x, df_y, the joint count and D."""
        return cls(jdf, df_x - jdf, df_y - jdf, documents - df_x - df_y + jdf)

    def as_dict(self) -> dict[str, float]:
        """JSON-ready cells (ints when whole)."""
        return {k: _whole(v) for k, v in self.__dict__.items()}


def _whole(v: float) -> float:
    return int(v) if float(v).is_integer() else round(v, 3)


def pmi(df_x: float, df_y: float, jdf: float, documents: int) -> float | None:
    """log2 Pr(x, y) / (Pr(x) Pr(y)) over documents; None when a margin or jdf is 0."""
    if df_x <= 0 or df_y <= 0 or jdf <= 0 or documents <= 0:
        return None
    return math.log2(jdf * documents / (df_x * df_y))


def dice(df_x: float, df_y: float, jdf: float) -> float | None:
    """2 jdf / (df_x + df_y); None when neither occurs."""
    return 2 * jdf / (df_x + df_y) if df_x + df_y > 0 else None


def lift(df_x: float, df_y: float, jdf: float, documents: int) -> float | None:
    """Pr(y | x) / Pr(y) = jdf D / (df_x df_y); None when a margin is 0."""
    if df_x <= 0 or df_y <= 0 or documents <= 0:
        return None
    return jdf * documents / (df_x * df_y)


def g2(table: Table) -> float:
    """Log-likelihood ratio G² = 2 Σ O ln(O / E), E from the margins (cells with O = 0 add nothing)."""
    return float(g2_cells(float(table.x_and_y), float(table.x_only), float(table.y_only), float(table.neither)))


@nb.njit(cache=True)
def g2_cells(a, b, c, d):  # type: ignore[no-untyped-def]
    """G² of the table [[a, b], [c, d]] (numba, so that related's candidate pass shares it)."""
    total = a + b + c + d
    cells = (a, b, c, d)
    rows = (a + b, c + d)
    cols = (a + c, b + d)
    out = 0.0
    for n in range(4):
        e = rows[n // 2] * cols[n % 2] / total
        if cells[n] > 0 and e > 0:
            out += cells[n] * np.log(cells[n] / e)
    return max(0.0, 2.0 * out)


def chi2_1_sf(x: float) -> float:
    """Upper tail of the chi-squared distribution with one degree of freedom: erfc(sqrt(x / 2))."""
    return math.erfc(math.sqrt(max(x, 0.0) / 2.0))


def association(df_x: float, df_y: float, jdf: float, documents: int) -> dict[str, Any]:
    """The contingency table and every measure; measures are None when x or y does not occur."""
    table = Table.of(df_x, df_y, jdf, documents)
    row: dict[str, Any] = {"table": table.as_dict(), "pmi": None, "dice": None, "lift": None, "g2": None,
                           "p_value": None}
    if df_x <= 0 or df_y <= 0 or documents <= 0:
        return row
    g = g2(table)
    row.update(pmi=pmi(df_x, df_y, jdf, documents), dice=dice(df_x, df_y, jdf),
               lift=lift(df_x, df_y, jdf, documents), g2=g, p_value=chi2_1_sf(g))
    return row


MEASURES = ("g2", "pmi", "dice", "lift")
