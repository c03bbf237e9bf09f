"""Figures of the adaptation studies as PNG/SVG files, drawn with matplotlib's headless Agg backend.

matplotlib is the optional extra `termx[plot]`; every number is computed without it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from termx.errors import TermxError

HINT = "pip install 'termx[plot]'"


def require_matplotlib() -> None:
    """Fail early, in one line, when --plot cannot be honoured."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise TermxError("--plot needs matplotlib, which is not installed", HINT) from None


def _figure():  # type: ignore[no-untyped-def]
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(plt: Any, fig: Any, path: str | Path) -> None:
    fig.tight_layout()
    fig.savefig(str(path))
    plt.close(fig)


def plot_crossval(rows: Sequence[dict[str, Any]], path: str | Path, dfs: Sequence[int] = (1, 2, 5, 10, 20)) -> None:
    """freq* against freq (log-log) for several df_1, with the diagonal freq* = freq."""
    plt = _figure()
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for d in dfs:
        pts = sorted((r["freq"], r["freq_star"]) for r in rows if r["df"] == d and r["freq_star"] > 0)
        if pts:
            ax.plot(*zip(*pts, strict=True), marker=".", label=f"df_1 = {d}")
    top = max((r["freq"] for r in rows), default=1)
    ax.plot([1, top], [1, top], color="grey", linestyle=":", label="freq* = freq")
    ax.set(xscale="log", yscale="log", xlabel="freq in half 1", ylabel="freq* (mean freq in half 2)",
           title="Cross-validation: freq* depends on df")
    ax.legend(fontsize="small")
    _save(plt, fig, path)


def plot_agreement(p1: np.ndarray, p2: np.ndarray, weights: np.ndarray, path: str | Path) -> None:
    """Method 1 (Pr(test | hist)) against method 2 (df_2 / df_1), one point per group of strings, with the
    factor-2 and factor-3 bands."""
    plt = _figure()
    fig, ax = plt.subplots(figsize=(5.5, 5))
    ok = (p1 > 0) & (p2 > 0)
    ax.scatter(p2[ok], p1[ok], s=np.clip(np.sqrt(weights[ok]), 1, 30), alpha=0.25, linewidths=0)
    x = np.array([1e-4, 1.0])
    for f, style in ((1, "-"), (2, "--"), (3, ":")):
        ax.plot(x, np.minimum(x * f, 1), color="grey", linestyle=style, linewidth=0.8)
        if f > 1:
            ax.plot(x, x / f, color="grey", linestyle=style, linewidth=0.8)
    ax.set(xscale="log", yscale="log", xlabel="method 2: df_2 / df_1", ylabel="method 1: Pr(test | hist)",
           title="Pr(+adapt1) vs Pr(+adapt2)")
    _save(plt, fig, path)


def plot_shape(rows: Sequence[dict[str, Any]], path: str | Path) -> None:
    """Pr(k >= 1) and Pr(k >= 2 | k >= 1) against binned freq: the 1st mention depends on freq, the 2nd less."""
    plt = _figure()
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for group in sorted({r["strings_of"] for r in rows}):
        sel = [r for r in rows if r["strings_of"] == group]
        x = [r["freq_mid"] for r in sel]
        ax.plot(x, [r["p_first"] for r in sel], marker="o", label=f"Pr(k>=1), {group}")
        ax.plot(x, [r["p_second"] for r in sel], marker="s", label=f"Pr(k>=2 | k>=1), {group}")
        if any(r.get("p_near") is not None for r in sel):
            ax.plot(x, [r.get("p_near") for r in sel], marker="^", label=f"Pr(test | near), {group}")
    ax.set(xscale="log", yscale="log", xlabel="freq (bin)", ylabel="probability", title="The shape of adaptation")
    ax.legend(fontsize="small")
    _save(plt, fig, path)
