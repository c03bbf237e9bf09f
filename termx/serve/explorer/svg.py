"""Server-side SVG plots for the explorer: small text, drawn in microseconds, shown without JavaScript and without
a plotting library (matplotlib, the `plot` extra, takes ~1 s to import and ~50 ms a figure). Every label goes
through markupsafe's escape, so corpus text in a plot stays text."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

WIDTH, HEIGHT = 560, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 150, 16, 40
COLOURS = ("#1f4e9c", "#c0392b", "#2e8b57", "#b8860b", "#6a3d9a")


@dataclass
class Series:
    """One curve or point set: y by x (None: no value there), drawn as a line, dashes or dots."""

    name: str
    xs: Sequence[float]
    ys: Sequence[float | None]
    style: str = "line"  # line, dash, dots
    colour: str = COLOURS[0]


def _ticks(low: float, high: float, log: bool, whole: bool = False) -> list[float]:
    """Round tick values over [low, high]: powers of ten on a log axis, 1/2/5 steps on a linear one (at least 1 when
    `whole`)."""
    if log:
        return [10.0 ** e for e in range(math.floor(low), math.ceil(high) + 1)]
    span = (high - low) or 1.0
    step = 10 ** math.floor(math.log10(span / 5))
    step *= next((m for m in (1, 2, 5, 10) if span / (step * m) <= 6), 10)
    step = max(step, 1) if whole else step
    first = math.ceil(low / step) * step
    return [first + k * step for k in range(int((high - first) / step) + 1)]


def _label(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e5 else f"{value:.0e}"


def plot(series: Sequence[Series], x_label: str, y_label: str, log_x: bool = False, log_y: bool = False,
         title: str = "", whole_x: bool = False) -> Markup:
    """An SVG plot of the series (log axes drop values <= 0), with axes, ticks (whole numbers on x when `whole_x`)
    and a legend."""
    def tx(v: float) -> float | None:
        return (math.log10(v) if v > 0 else None) if log_x else v

    def ty(v: float | None) -> float | None:
        return None if v is None else (math.log10(v) if v > 0 else None) if log_y else v

    points = [[(a, b) for a, b in ((tx(x), ty(y)) for x, y in zip(s.xs, s.ys, strict=True))
               if a is not None and b is not None] for s in series]
    every = [p for ps in points for p in ps]
    if not every:
        return Markup(f'<svg class="plot" width="{WIDTH}" height="{HEIGHT}" role="img"><text x="20" y="40">'
                      f'nothing to plot</text></svg>')
    x0, x1 = min(p[0] for p in every), max(p[0] for p in every)
    y0, y1 = min(p[1] for p in every), max(p[1] for p in every)
    if log_y:
        y0, y1 = math.floor(y0), math.ceil(y1) if y1 > y0 else math.floor(y0) + 1
    x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)
    w, h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def sx(a: float) -> float:
        return LEFT + (a - x0) / (x1 - x0) * w

    def sy(b: float) -> float:
        return TOP + h - (b - y0) / (y1 - y0) * h

    out = [f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title or y_label)}">',
           f'<rect x="{LEFT}" y="{TOP}" width="{w}" height="{h}" fill="#fff" stroke="#999"/>']
    for t in _ticks(x0, x1, log_x, whole_x):
        a = math.log10(t) if log_x else t
        if x0 - 1e-9 <= a <= x1 + 1e-9:
            out.append(f'<line x1="{sx(a):.1f}" x2="{sx(a):.1f}" y1="{TOP + h}" y2="{TOP + h + 4}" stroke="#999"/>'
                       f'<text x="{sx(a):.1f}" y="{TOP + h + 16}" text-anchor="middle">{_label(t)}</text>')
    for t in _ticks(y0, y1, log_y):
        b = math.log10(t) if log_y else t
        if y0 - 1e-9 <= b <= y1 + 1e-9:
            out.append(f'<line x1="{LEFT - 4}" x2="{LEFT + w}" y1="{sy(b):.1f}" y2="{sy(b):.1f}" stroke="#eee"/>'
                       f'<text x="{LEFT - 6}" y="{sy(b) + 4:.1f}" text-anchor="end">{_label(t)}</text>')
    out.append(f'<text x="{LEFT + w / 2}" y="{HEIGHT - 6}" text-anchor="middle">{escape(x_label)}</text>'
               f'<text transform="translate(14 {TOP + h / 2}) rotate(-90)" text-anchor="middle">'
               f'{escape(y_label)}</text>')
    for n, (s, ps) in enumerate(zip(series, points, strict=True)):
        xy = [(sx(a), sy(b)) for a, b in ps]
        if s.style == "dots":
            out.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{3 if s.colour == COLOURS[1] else 2}" '
                       f'fill="{s.colour}" fill-opacity="0.7"/>' for x, y in xy)
        elif xy:
            dash = ' stroke-dasharray="5 3"' if s.style == "dash" else ""
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
            out.append(f'<polyline points="{path}" fill="none" stroke="{s.colour}" stroke-width="2"{dash}/>')
            out.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{s.colour}"/>' for x, y in xy)
        ly = TOP + 14 + 18 * n
        dashed = ' stroke-dasharray="5 3"' if s.style == "dash" else ""
        out.append(f'<line x1="{LEFT + w + 10}" x2="{LEFT + w + 30}" y1="{ly - 4}" y2="{ly - 4}" stroke="{s.colour}" '
                   f'stroke-width="3"{dashed}/>'
                   f'<text x="{LEFT + w + 34}" y="{ly}">{escape(s.name)}</text>')
    out.append("</svg>")
    return Markup("".join(out))
