"""Pr(k), the number of times a string occurs in a document, from its df_k (slides: "estimate Pr(str) from
leading terms of cdf_k; mean, var, entropy"), and the null models that may describe it (docs/adaptation.md, "Pr(k) and
null models"): Poisson, negative binomial and Katz's K-mixture (Church & Gale 1995).

Pr(k) = (df_k − df_(k+1)) / D for k < K and the tail Pr(k >= K) = df_K / D are exact. The mean freq / D is
exact. Variance and entropy need the tail's shape: the tail model is K + a geometric count whose mean makes
the total exactly freq (the occurrences left for the df_K documents).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, stats

DIST_FIELDS = ("pattern", "freq", "documents", "pr_k", "pr_tail", "mean", "variance", "entropy",
               "poisson_lambda", "poisson_ll", "nb_r", "nb_p", "nb_ll", "katz_alpha", "katz_beta", "katz_ll", "best")


@dataclass
class Distribution:
    """Pr(k) for k = 0..K-1 and the tail Pr(k >= K) of one string over D documents."""

    freq: int
    documents: int
    pr: np.ndarray  # (K,)
    tail: float

    @property
    def k(self) -> int:
        """K: the first count folded into the tail."""
        return len(self.pr)

    @property
    def counts(self) -> np.ndarray:
        """Documents with exactly k occurrences (k < K), then the tail's documents: the fitted histogram."""
        return np.append(self.pr, self.tail) * self.documents

    @property
    def mean(self) -> float:
        """E[k] = freq / D, exact."""
        return self.freq / self.documents

    def _tail_geometric(self) -> float:
        """Mean excess over K of the tail documents (0 when there is no tail)."""
        tail_docs = self.tail * self.documents
        if tail_docs <= 0:
            return 0.0
        head = sum(k * self.pr[k] * self.documents for k in range(self.k))
        return max(0.0, (self.freq - head) / tail_docs - self.k)

    @property
    def variance(self) -> float:
        """Var[k] with the geometric tail model."""
        mu = self._tail_geometric()
        second = float(sum(k * k * self.pr[k] for k in range(self.k)))
        second += self.tail * ((self.k + mu) ** 2 + mu * (1 + mu))
        return max(0.0, second - self.mean ** 2)

    @property
    def entropy(self) -> float:
        """H(k) in bits with the geometric tail model."""
        h = -sum(p * math.log2(p) for p in self.pr if p > 0)
        h += 0.0  # no -0.0
        if self.tail > 0:
            mu = self._tail_geometric()
            q = mu / (mu + 1)
            h_geo = 0.0 if q == 0 else (-(1 - q) * math.log2(1 - q) - q * math.log2(q)) / (1 - q)
            h += -self.tail * math.log2(self.tail) + self.tail * h_geo
        return float(h)


def distribution(freq: int, df: Sequence[int], documents: int) -> Distribution:
    """Pr(k) from freq, df_1..df_K and D."""
    d = np.asarray(list(df) + [0], dtype=np.float64)
    pr = np.empty(len(df))
    pr[0] = 1.0 - d[0] / documents
    pr[1:] = (d[:-2] - d[1:-1]) / documents if len(df) > 1 else pr[1:]
    return Distribution(freq, documents, pr, float(d[len(df) - 1] / documents))


def _loglik(counts: np.ndarray, probs: np.ndarray) -> float:
    """Σ n_k log p_k over the histogram (k < K and the tail); -inf when an observed cell has probability 0."""
    mask = counts > 0
    if np.any(probs[mask] <= 0):
        return -math.inf
    return float(np.sum(counts[mask] * np.log(probs[mask])))


def _cells(pmf: np.ndarray, k: int) -> np.ndarray:
    """pmf over k = 0..K-1, then the tail mass 1 - Σ."""
    return np.append(pmf[:k], max(0.0, 1.0 - float(pmf[:k].sum())))


def poisson_fit(dist: Distribution) -> tuple[float, float]:
    """(λ = freq / D, log-likelihood); λ is the maximum-likelihood rate of the full counts."""
    lam = dist.mean
    ks = np.arange(dist.k)
    pmf = stats.poisson.pmf(ks, lam) if lam > 0 else (ks == 0).astype(float)
    return lam, _loglik(dist.counts, _cells(pmf, dist.k))


def nbinom_fit(dist: Distribution) -> tuple[float | None, float | None, float]:
    """(r, p, log-likelihood) of a negative binomial fitted by maximum likelihood on the histogram."""
    ks = np.arange(dist.k)
    counts = dist.counts

    def nll(theta: np.ndarray) -> float:
        if abs(theta[0]) > 700 or abs(theta[1]) > 700:
            return 1e300
        r, p = math.exp(theta[0]), 1.0 / (1.0 + math.exp(-theta[1]))
        ll = _loglik(counts, _cells(stats.nbinom.pmf(ks, r, p), dist.k))
        return -ll if math.isfinite(ll) else 1e300

    if dist.freq == 0:
        return None, None, 0.0
    mean, var = dist.mean, max(dist.variance, dist.mean * 1.0001)
    r0 = mean * mean / (var - mean)
    p0 = min(max(r0 / (r0 + mean), 1e-9), 1 - 1e-9)
    best = optimize.minimize(nll, np.array([math.log(r0), math.log(p0 / (1 - p0))]), method="Nelder-Mead",
                             options={"xatol": 1e-8, "fatol": 1e-10, "maxiter": 4000})
    r, p = math.exp(min(best.x[0], 700.0)), 1.0 / (1.0 + math.exp(-min(max(best.x[1], -700.0), 700.0)))
    return r, p, -float(best.fun)


def katz_fit(dist: Distribution) -> tuple[float | None, float | None, float]:
    """(α, β, log-likelihood) of Katz's K-mixture with β = (freq − df)/df and α = λ/β from freq and df."""
    df1 = (1.0 - dist.pr[0]) * dist.documents
    if dist.freq == 0:
        return None, None, 0.0
    lam = dist.mean
    beta = (dist.freq - df1) / df1
    ks = np.arange(dist.k)
    if beta <= 0:  # every occurrence alone in its document: Pr(1) = λ
        pmf = np.where(ks == 0, 1 - lam, np.where(ks == 1, lam, 0.0))
        return None, 0.0, _loglik(dist.counts, _cells(pmf, dist.k))
    alpha = lam / beta
    ratio = beta / (beta + 1)
    pmf = alpha / (beta + 1) * ratio ** ks
    pmf[0] += 1 - alpha
    return alpha, beta, _loglik(dist.counts, _cells(pmf, dist.k))


def dist_row(pattern: str, freq: int, df: Sequence[int], documents: int) -> dict[str, Any]:
    """Pr(k), summaries and the three fits of one string; `best` has the smallest AIC (parameters: 1, 2, 2)."""
    dist = distribution(freq, df, documents)
    lam, p_ll = poisson_fit(dist)
    r, p, nb_ll = nbinom_fit(dist)
    alpha, beta, k_ll = katz_fit(dist)
    aic = {"poisson": 2 - 2 * p_ll, "negative_binomial": 4 - 2 * nb_ll, "katz": 4 - 2 * k_ll}
    return {"pattern": pattern, "freq": freq, "documents": documents, "pr_k": dist.pr.tolist(),
            "pr_tail": dist.tail, "mean": dist.mean, "variance": dist.variance, "entropy": dist.entropy,
            "poisson_lambda": lam, "poisson_ll": p_ll, "nb_r": r, "nb_p": p, "nb_ll": nb_ll,
            "katz_alpha": alpha, "katz_beta": beta, "katz_ll": k_ll,
            "best": min(aic, key=lambda m: aic[m]) if freq else None}


def expected_df(row: dict[str, Any], k: int) -> dict[str, list[float] | None]:
    """df_1..df_k that each fitted null model of a dist_row expects: D · Pr(count >= k) under the Poisson, the
    negative binomial and Katz's K-mixture (None for a model the row could not fit), for a plot beside the
    observed df_k (docs/adaptation.md)."""
    documents, ks = row["documents"], np.arange(1, k + 1)
    lam = row["poisson_lambda"]
    poisson = stats.poisson.sf(ks - 1, lam) if lam else np.zeros(k)
    nb = stats.nbinom.sf(ks - 1, row["nb_r"], row["nb_p"]) if row["nb_r"] is not None else None
    if row["katz_alpha"] is not None and row["katz_beta"]:
        ratio = row["katz_beta"] / (row["katz_beta"] + 1)
        katz: np.ndarray | None = row["katz_alpha"] * ratio ** ks
    elif row["katz_beta"] == 0.0:  # every occurrence alone in its document: Pr(k >= 1) = λ, none beyond
        katz = np.where(ks == 1, lam, 0.0)
    else:
        katz = None
    return {name: None if curve is None else (np.asarray(curve, dtype=np.float64) * documents).tolist()
            for name, curve in (("poisson", poisson), ("negative_binomial", nb), ("katz", katz))}
