"""Priming, neighbourhoods and query expansion (slides): a document's neighbourhood is the set of documents
nearest to its history in the IR sense; a string is Hist (in the history), Near (in a neighbour document, not
in the history) or Other. Hist >> Near >> Prior is the slides' claim.

Similarity: tf-idf cosine between the history's word tokens (the query; tf = count, idf = ln(D / df)) and the
other documents' word tokens (whole documents), both L2-normalised; a document is never its own neighbour;
words in more than 10% of the documents are left out of the similarity (stop words).
Word tokens are the word unit's (termx.index.units.split_words): in byte and char corpora the two halves are
decoded to text and split, so a word cut by the history/test boundary counts as a fragment in each half.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit, split_words
from termx.lookup import find_class
from termx.studies.adaptation import halves_of_occurrences

STOP_SHARE = 0.1  # words in more than this share of the documents take no part in the similarity
PRIMING_FIELDS = ("hist", "near", "other", "p_test_hist", "p_test_near", "p_test_other", "prior")
PRIMING_SUMMARY_FIELDS = ("words", "min_df", "neighbors", "p_test_hist", "p_test_near", "p_test_other", "prior",
                          "hist_over_near", "near_over_prior", "share_hist_gt_near_gt_prior")


@dataclass
class WordHalves:
    """Document × word count matrices (CSR) of the histories and the tests, and the word strings."""

    hist_counts: sp.csr_matrix
    test_counts: sp.csr_matrix
    words: list[str]

    @property
    def hist(self) -> sp.csr_matrix:
        """Presence (0/1) in the history."""
        return (self.hist_counts > 0).astype(np.float32).tocsr()

    @property
    def test(self) -> sp.csr_matrix:
        """Presence (0/1) in the test."""
        return (self.test_counts > 0).astype(np.float32).tocsr()

    @property
    def doc_counts(self) -> sp.csr_matrix:
        """Counts over whole documents."""
        return (self.hist_counts + self.test_counts).tocsr()


def _half_words(index: LoadedIndex) -> tuple[list[list[str]], list[list[str]]]:
    """Word tokens of each document's history and test (⌊n/2⌋ tokens of the corpus's unit, then the rest)."""
    hist, test = [], []
    for start, length in zip(index.doc_start.tolist(), index.doc_len.tolist(), strict=True):
        cut = start + length // 2
        if index.unit is Unit.word:
            assert index.vocab is not None
            hist.append([index.vocab[t - 1] for t in index.tokens[start:cut].tolist()])
            test.append([index.vocab[t - 1] for t in index.tokens[cut:start + length].tolist()])
        else:
            hist.append(split_words(index.decode(index.tokens[start:cut])))
            test.append(split_words(index.decode(index.tokens[cut:start + length])))
    return hist, test


def word_halves(index: LoadedIndex) -> WordHalves:
    """Count matrices of the word tokens of every history and test."""
    vocab: dict[str, int] = {}
    mats = []
    for halves in _half_words(index):
        rows: list[int] = []
        cols: list[int] = []
        for d, words in enumerate(halves):
            rows.extend([d] * len(words))
            cols.extend(vocab.setdefault(w, len(vocab)) for w in words)
        mats.append((np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)))
    shape = (index.n_docs, len(vocab))
    h, t = (sp.csr_matrix((np.ones(len(r), np.float32), (r, c)), shape=shape) for r, c in mats)
    words = [""] * len(vocab)
    for w, k in vocab.items():
        words[k] = w
    return WordHalves(h, t, words)


def _tfidf(counts: sp.csr_matrix, idf: np.ndarray) -> sp.csr_matrix:
    """Rows of tf × idf, L2-normalised."""
    x = sp.csr_matrix(counts.multiply(idf[None, :]), dtype=np.float32)
    x.eliminate_zeros()
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sp.csr_matrix(sp.diags(1.0 / norms).astype(np.float32) @ x)


def nearest_documents(wh: WordHalves, neighbors: int, block: int = 1024) -> np.ndarray:
    """(D, n): for each document, the n other documents nearest to its history by tf-idf cosine, nearest first
    (ties by document number)."""
    docs = wh.doc_counts
    n_docs = docs.shape[0]
    n = min(neighbors, max(n_docs - 1, 0))
    df = np.asarray((docs > 0).sum(axis=0)).ravel()
    idf = np.log(n_docs / np.maximum(df, 1)).astype(np.float32)
    idf[df > STOP_SHARE * n_docs] = 0.0  # stop words: little weight, most of the cost of the products
    q = _tfidf(wh.hist_counts, idf)
    c = _tfidf(docs, idf).T.tocsc()
    out = np.empty((n_docs, n), dtype=np.int64)
    for b0 in range(0, n_docs, block):
        b1 = min(n_docs, b0 + block)
        sim = (q[b0:b1] @ c).toarray()
        sim[np.arange(b1 - b0), np.arange(b0, b1)] = -np.inf
        order = np.lexsort((np.broadcast_to(np.arange(n_docs), sim.shape), -sim), axis=1)[:, :n] if n_docs < 2048 \
            else _top(sim, n)
        out[b0:b1] = order
    return out


def _top(sim: np.ndarray, n: int) -> np.ndarray:
    """The n largest per row, largest first (argpartition, then a sort of the n)."""
    if n == 0:
        return np.empty((len(sim), 0), np.int64)
    top = np.argpartition(-sim, n - 1, axis=1)[:, :n]
    vals = np.take_along_axis(sim, top, axis=1)
    order = np.lexsort((top, -vals), axis=1)
    return np.take_along_axis(top, order, axis=1)


def _neighbourhood_matrix(near: np.ndarray, n_docs: int) -> sp.csr_matrix:
    """D × D 0/1: row d marks d's neighbours."""
    rows = np.repeat(np.arange(n_docs), near.shape[1])
    return sp.csr_matrix((np.ones(near.size, np.float32), (rows, near.ravel())), shape=(n_docs, n_docs))


def _probabilities(hist: int, hist_test: int, near: int, near_test: int, other: int, other_test: int,
                   test: int, n_docs: int) -> dict[str, Any]:
    def ratio(a: int, b: int) -> float | None:
        return a / b if b else None

    return {"hist": hist, "near": near, "other": other, "p_test_hist": ratio(hist_test, hist),
            "p_test_near": ratio(near_test, near), "p_test_other": ratio(other_test, other),
            "prior": ratio(test, n_docs)}


def priming_rows(index: LoadedIndex, patterns: Sequence[str], neighbors: int,
                 near: np.ndarray | None = None) -> list[dict[str, Any]]:
    """Hist / Near / Other counts of documents and Pr(test | each) per pattern (occurrences as in method 1)."""
    near = nearest_documents(word_halves(index), neighbors) if near is None else near
    m = _neighbourhood_matrix(near, index.n_docs)
    rows = []
    for p in patterns:
        match = find_class(index, p)
        in_hist = np.zeros(index.n_docs, bool)
        in_test = np.zeros(index.n_docs, bool)
        anywhere = np.zeros(index.n_docs, np.float32)
        if match.found:
            assert match.i is not None and match.j is not None and match.ids is not None
            ranks = np.arange(match.i, match.j + 1)
            h, t = halves_of_occurrences(index, ranks, len(match.ids))
            in_hist[h] = True
            in_test[t] = True
            anywhere[index.doc_start.searchsorted(index.sa[ranks], side="right") - 1] = 1.0
        is_near = ((m @ anywhere) > 0) & ~in_hist
        other = ~in_hist & ~is_near
        rows.append(_probabilities(int(in_hist.sum()), int((in_hist & in_test).sum()), int(is_near.sum()),
                                   int((is_near & in_test).sum()), int(other.sum()), int((other & in_test).sum()),
                                   int(in_test.sum()), index.n_docs))
    return rows


@dataclass
class WordPriming:
    """Per word type: documents Hist / Near and those of them with the word in the test; test = df in tests."""

    words: list[str]
    freq: np.ndarray
    df: np.ndarray
    hist: np.ndarray
    hist_test: np.ndarray
    near: np.ndarray
    near_test: np.ndarray
    test: np.ndarray


def word_priming(index: LoadedIndex, neighbors: int) -> WordPriming:
    """Hist / Near counts of every word type at once (sparse products; neighbours by nearest_documents)."""
    wh = word_halves(index)
    near_docs = nearest_documents(wh, neighbors)
    hist, test = wh.hist, wh.test
    anywhere = (wh.doc_counts > 0).astype(np.float32)
    near = ((_neighbourhood_matrix(near_docs, index.n_docs) @ anywhere) > 0).astype(np.float32) - hist
    near = sp.csr_matrix(near.multiply(near > 0))

    def col(x: sp.spmatrix) -> np.ndarray:
        return np.asarray(x.sum(axis=0)).ravel().astype(np.int64)

    return WordPriming(wh.words, col(wh.doc_counts), col(anywhere), col(hist), col(hist.multiply(test)), col(near),
                       col(near.multiply(test)), col(test))


def priming_summary(index: LoadedIndex, neighbors: int, min_df: int) -> dict[str, Any]:
    """Pooled Pr(test | Hist), Pr(test | Near), Pr(test | Other) and prior over word types with df >= min_df,
    and the share of those words whose own probabilities are ordered Hist > Near > Prior."""
    wp = word_priming(index, neighbors)
    keep = wp.df >= min_df
    n_docs = index.n_docs

    def s(x: np.ndarray) -> int:
        return int(x[keep].sum())

    other = n_docs - wp.hist - wp.near
    other_test = wp.test - wp.hist_test - wp.near_test
    row = _probabilities(s(wp.hist), s(wp.hist_test), s(wp.near), s(wp.near_test), s(other), s(other_test),
                         s(wp.test), n_docs * int(keep.sum()))
    with np.errstate(divide="ignore", invalid="ignore"):
        ph = wp.hist_test / wp.hist
        pn = wp.near_test / wp.near
        prior = wp.test / n_docs
    ordered = keep & (ph > pn) & (pn > prior)
    row.update(words=int(keep.sum()), min_df=min_df, neighbors=neighbors,
               hist_over_near=row["p_test_hist"] / row["p_test_near"] if row["p_test_near"] else None,
               near_over_prior=row["p_test_near"] / row["prior"] if row["prior"] else None,
               share_hist_gt_near_gt_prior=int(ordered.sum()) / int(keep.sum()) if keep.any() else None)
    return row


def near_by_freq(index: LoadedIndex, rows: list[dict[str, Any]], neighbors: int) -> list[dict[str, Any]]:
    """Add p_near (pooled Pr(test | Near) of the word types whose freq falls in the row's bin) to shape rows."""
    wp = word_priming(index, neighbors)
    ok = wp.freq > 0
    b = np.floor(np.log2(wp.freq[ok])).astype(np.int64)
    near = np.bincount(b, weights=wp.near[ok])
    near_test = np.bincount(b, weights=wp.near_test[ok])
    out = []
    for r in rows:
        k = int(np.log2(r["freq_lo"]))
        out.append({**r, "p_near": near_test[k] / near[k] if k < len(near) and near[k] else None})
    return out
