"""The Poisson prediction of adaptation, Pr(k >= 2 | k >= 1): what df_2 / df_1 would be if a string fell into
documents by chance. Defined here once; look-ups, term ranking and word breaking import it.

One rate:      λ = freq / D in every document:  1 − λe^−λ / (1 − e^−λ).
Length-aware:  λ_d = freq · len_d / N per document d:  Σ_d Pr(k_d >= 2) / Σ_d Pr(k_d >= 1) = E[df_2] / E[df_1].
"""

from __future__ import annotations

import math

import numpy as np

_CHUNK = 1024   # frequencies per block of the length-aware computation (bounds the memory of one block)
_FLOOR = 1e-300  # the smallest prediction returned, so that a log of it is finite


def poisson_adaptation(lam: float) -> float:
    """Pr(k >= 2 | k >= 1) for k ~ Poisson(λ), λ > 0: 1 − λe^−λ / (1 − e^−λ)."""
    return 1.0 - lam * math.exp(-lam) / (1.0 - math.exp(-lam))


def length_aware_poisson_adaptation(freq: np.ndarray, doc_len: np.ndarray, bins: int | None = None) -> np.ndarray:
    """Pr(k >= 2 | k >= 1) for each total frequency in `freq` when document d draws the string as Poisson with
    rate λ_d = freq · len_d / N: E[df_2] / E[df_1] summed over documents, at least 1e-300. With `bins`, more
    distinct document lengths than that are grouped into `bins` groups of equal document count (their mean
    length stands for the group), which bounds the work on corpora of many lengths."""
    lengths, counts = np.unique(np.asarray(doc_len, dtype=np.float64), return_counts=True)
    if bins is not None and len(lengths) > bins:
        every = np.repeat(lengths, counts)
        groups = np.array_split(every, bins)
        lengths = np.array([g.mean() for g in groups])
        counts = np.array([len(g) for g in groups])
    n = float(np.dot(lengths, counts))
    values, back = np.unique(np.asarray(freq, dtype=np.float64), return_inverse=True)
    out = np.empty(len(values))
    for at in range(0, len(values), _CHUNK):
        lam = values[at: at + _CHUNK, None] * lengths[None, :] / n
        at_least_one = -np.expm1(-lam)
        at_least_two = at_least_one - lam * np.exp(-lam)
        out[at: at + _CHUNK] = (at_least_two @ counts) / (at_least_one @ counts)
    return np.maximum(out, _FLOOR)[back]
