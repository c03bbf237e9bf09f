"""The branching scorer's trained model as n-gram tables: everything segmenting new text needs, without the index.

For each position of a text the branching scorer reads the corpus's candidates of every length: the n-grams of
up to `window` tokens that occur twice or more, with their branching entropy (the class's entropy at its longest
member, 0 at a shorter member), the same for the reversed text, and the self-trained word log-probabilities.
`CompactModel` holds exactly those n-grams, each once, keyed by a 64-bit fingerprint of its token ids, in an
open-addressing hash table per direction. The set is prefix-closed (every prefix of a stored n-gram is stored),
so the walk from a position stops at the first miss. The scores equal the class-tree path's, so new text gets
the segmentation it would get inside the corpus (tests) — up to fingerprint collisions, whose probability is
about (entries / 2^64) per look-up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np

from termx.index.units import Unit
from termx.wordbreak.candidates import ABSENT, char_lengths
from termx.wordbreak.char_table import CharTable
from termx.wordbreak.entropy import _evidence, class_bonus, run_lengths, text_classes
from termx.wordbreak.hash_table import find_value, hash_table
from termx.wordbreak.line_batches import Batch
from termx.wordbreak.viterbi import append_best_within, combine

FORMAT = 2
"""Version of the stored arrays; a model stored in another format is retrained."""
_PRIME = np.uint64(0x100000001B3)
_SEED = np.uint64(0xCBF29CE484222325)
_TABLES = ("ftable", "rtable", "fvalues", "rvalues")
_ARRAYS = ("fkeys", "fsil", "fh", "flogp", "rkeys", "rsil", "rh", "mean", "vocab")


@dataclass
class CompactModel:
    """The n-gram tables of a trained branching model, dense (as stored) plus their hash tables (built on load).

    Forward node k: fingerprint fkeys[k]; fsil[k] = its length when it is the longest member of its class (it
    branches, with entropy fh[k]), else 0; flogp[k] = its word log-probability, -inf when it is not a word of
    the model. Reverse nodes likewise (rkeys, rsil, rh) for the reversed text.
    """

    unit: Unit
    max_len: int
    params: dict[str, float]
    log_p_unknown: float
    fkeys: np.ndarray
    fsil: np.ndarray
    fh: np.ndarray
    flogp: np.ndarray
    rkeys: np.ndarray
    rsil: np.ndarray
    rh: np.ndarray
    mean: np.ndarray       # (2, window) mean h_R, h_L
    vocab: np.ndarray      # char corpora: code point of token id k at k-1 (sorted search below); else empty
    derived: dict[str, np.ndarray] | None = None  # tables() of an earlier load, if cached

    def __post_init__(self) -> None:
        self.window = int(self.params["window"])
        self.width = max(self.max_len, self.window)
        # look-ups are memory-bound: a slot holds key and node side by side, a node's values share a row
        tables = self.derived or {
            "ftable": hash_table(self.fkeys), "rtable": hash_table(self.rkeys),
            "fvalues": np.stack([self.fsil.astype(np.float64), self.fh, self.flogp], axis=1),
            "rvalues": np.stack([self.rsil.astype(np.float64), self.rh, np.full(len(self.rh), -np.inf)], axis=1)}
        self._ftable, self._rtable = tables["ftable"], tables["rtable"]
        self._fvalues, self._rvalues = tables["fvalues"], tables["rvalues"]
        self.derived = None
        self._chars = CharTable(self.vocab) if self.unit is Unit.char else None  # byte corpora: ids are bytes

    @property
    def nodes(self) -> int:
        """Stored n-grams, both directions."""
        return len(self.fkeys) + len(self.rkeys)

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays to store, each 1-d (the hash tables are rebuilt from them on load)."""
        return {a: getattr(self, a).ravel() for a in _ARRAYS}

    def tables(self) -> dict[str, np.ndarray]:
        """The hash tables and value rows built from arrays(), flat (worth caching on disk, not storing)."""
        return {"ftable": self._ftable.ravel(), "rtable": self._rtable.ravel(), "fvalues": self._fvalues.ravel(),
                "rvalues": self._rvalues.ravel()}

    def meta(self) -> dict[str, Any]:
        """The scalars to store beside the arrays."""
        return {"format": FORMAT, "unit": self.unit.value, "max_len": self.max_len, "params": self.params,
                "log_p_unknown": self.log_p_unknown}

    @classmethod
    def from_stored(cls, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> CompactModel:
        """The model from meta() and arrays() as stored."""
        values = {a: np.asarray(arrays[a]) for a in _ARRAYS}
        values["mean"] = values["mean"].reshape(2, -1)
        derived = None
        if all(t in arrays for t in _TABLES):
            derived = {t: np.asarray(arrays[t]).reshape(-1, 2 if t.endswith("table") else 3) for t in _TABLES}
        return cls(Unit(meta["unit"]), int(meta["max_len"]), dict(meta["params"]), float(meta["log_p_unknown"]),
                   derived=derived, **values)

    def ids_classes(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """The token ids of `text` in the corpus's unit (-1 for a character the corpus never uses) and the class of
        the character at each token (entropy.text_classes)."""
        if self._chars is None:
            return np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.int64), text_classes(text, self.unit)
        cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
        return self._chars.ids(cps), self._chars.classes(cps)

    def segment_lines(self, lines: Sequence[str]) -> list[list[str]]:
        """The words of each line (white space in it stays a boundary), as the class-tree path would find them
        if the line were a document of the corpus."""
        batch = Batch.of(lines, self.unit)
        ids, classes = self.ids_classes(batch.joined)
        cuts, counts = self.segment_spans(ids, batch.starts, batch.stops, classes)
        return batch.words(cuts, counts)

    def segment_spans(self, ids: np.ndarray, starts: np.ndarray, stops: np.ndarray, classes: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
        """Viterbi over spans starts[k]..stops[k]-1 of `ids` (their character classes given): the flat cuts
        (offsets inside each span) and the count per span."""
        cuts = np.empty(max(int((stops - starts).sum()), 0), dtype=np.int64)
        counts = np.zeros(len(starts), dtype=np.int64)
        _segment_text(ids, starts, stops, classes, char_lengths(ids, self.unit), *self._tables(), cuts, counts)  # type: ignore[call-arg]
        return cuts, counts

    def chunk_scores(self, lines: Sequence[str]) -> tuple[Batch, list[tuple[np.ndarray, np.ndarray]]]:
        """The lines' batch and, per white-space-free chunk of it, the word scores segment_lines() maximises over
        (scores[p, L-1]: the word of L tokens at p; -inf: no word) and the boundary evidence ev[p] they include
        (a word at p > 0 scores weight · log P + ev[p] − θ)."""
        batch = Batch.of(lines, self.unit)
        ids, classes = self.ids_classes(batch.joined)
        char_len = char_lengths(ids, self.unit)
        return batch, [_span_scores(ids, int(lo), int(hi - lo), classes, char_len, *self._tables())
                       for lo, hi in zip(batch.starts, batch.stops, strict=True)]

    def _tables(self) -> tuple[Any, ...]:
        """The model's arguments of the compiled search, after the text's."""
        p = self.params
        return (self._ftable, self._fvalues, self._rtable, self._rvalues, self.mean,
                class_bonus(p["kappa"], p["kappa_digit"], p["kappa_han_kana"], p["kappa_run"]), bool(p["runs"]),
                self.log_p_unknown, p["weight"], p["theta"], self.max_len, self.width)


def compact_model(model: Any, unit: Unit, vocab: list[str] | None) -> CompactModel:
    """The tables of a trained `BranchingModel`: forward n-grams up to the window that occur twice or more, the
    model's words (count > 0) and their prefixes; reverse n-grams up to the window."""
    index, tree, br = model.index, model.tree, model.branching
    window, max_len = model.params.window, model.max_len
    width = max(window, max_len)
    f = _nodes(index.tokens, index.sa, index.cls_i, index.cls_lbl, index.cls_sil, tree.parent, tree.branches,
               model.counts, model.log_p, model.type_offset, window, max_len, width)
    rev = br.reverse
    r = _nodes(rev.tokens, rev.sa, rev.cls_i, rev.cls_lbl, rev.cls_sil, br.reverse_tree.parent,
               br.reverse_tree.branches, np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64), window, 0, window)
    cps = np.array([ord(v) for v in vocab], dtype=np.int64) if unit is Unit.char and vocab else \
        np.zeros(0, dtype=np.int64)
    return CompactModel(unit, max_len, model.params.as_dict(), model.log_p_unknown, fkeys=f[0], fsil=f[1], fh=f[2],
                        flogp=f[3], rkeys=r[0], rsil=r[1], rh=r[2], mean=np.ascontiguousarray(br.mean), vocab=cps)


def _nodes(tokens: np.ndarray, sa: np.ndarray, ci: np.ndarray, lbl: np.ndarray, sil: np.ndarray,
           parent: np.ndarray, branches: np.ndarray, counts: np.ndarray, log_p: np.ndarray, offset: np.ndarray,
           window: int, max_len: int, width: int) -> tuple[np.ndarray, ...]:
    """Fingerprint, sil flag, entropy and log P of every node of one direction, in class order."""
    top = np.zeros(len(ci), dtype=np.int64)
    _tops(lbl, sil, parent, counts, offset, window, max_len, width, top)
    size = int(np.maximum(top - lbl, 0).sum())
    keys = np.empty(size, dtype=np.uint64)
    flag = np.empty(size, dtype=np.int16)
    h = np.empty(size, dtype=np.float64)
    lp = np.empty(size, dtype=np.float64)
    _fill(tokens, sa, ci, lbl, sil, branches, log_p, offset, top, max_len, keys, flag, h, lp)
    return keys, flag, h, lp


@nb.njit(cache=True)
def _tops(lbl, sil, parent, counts, offset, window, max_len, width, top):  # type: ignore[no-untyped-def]
    """Longest stored length per class: the window (capped by SIL), its longest word, and whatever prefixes its
    descendants' stored n-grams need (children come before parents in walk order)."""
    for c in range(len(lbl)):
        s = min(sil[c], width)
        t = max(top[c], min(s, window))
        if len(counts):
            for length in range(lbl[c] + 1, min(sil[c], max_len) + 1):
                if counts[offset[c] + length - lbl[c] - 1] > 0:
                    t = max(t, length)
        top[c] = t
        p = parent[c]
        if p >= 0 and t > lbl[c]:
            top[p] = max(top[p], lbl[c])


@nb.njit(cache=True)
def _fingerprint(fp, token):  # type: ignore[no-untyped-def]
    """FNV-1a step over token ids; 0 is reserved for an empty slot."""
    fp = (fp ^ np.uint64(token)) * _PRIME
    return fp if fp != 0 else np.uint64(1)


@nb.njit(cache=True)
def _fill(tokens, sa, ci, lbl, sil, branches, log_p, offset, top, max_len, keys, flag, h, lp):  # type: ignore[no-untyped-def]
    k = 0
    for c in range(len(ci)):
        if top[c] <= lbl[c]:
            continue
        start = sa[ci[c]]
        fp = _SEED
        for length in range(1, top[c] + 1):
            fp = _fingerprint(fp, tokens[start + length - 1])
            if length <= lbl[c]:
                continue
            keys[k] = fp
            flag[k] = length if sil[c] == length else 0
            h[k] = branches[c]
            lp[k] = -np.inf
            if length <= max_len and len(log_p):
                lp[k] = log_p[offset[c] + length - lbl[c] - 1]
            k += 1


@nb.njit(cache=True)
def _walk(ids, first, step, n, table, values, cand, sil, h, lp):  # type: ignore[no-untyped-def]
    """The stored n-grams of a span read forward (step 1 from `first`) or reversed (step -1): cand[q, L-1] =
    q * width + L - 1 for the L tokens from the span's q-th, its sil flag and entropy at that place of `sil`
    and `h`, its log P at lp[q, L-1]; ABSENT where it is not stored."""
    width = cand.shape[1]
    for q in range(n):
        fp = _SEED
        for length in range(1, min(width, n - q) + 1):
            t = ids[first + step * (q + length - 1)]
            if t <= 0:
                break
            fp = _fingerprint(fp, t)
            node = find_value(table, fp)
            if node < 0:
                break
            at = q * width + length - 1
            cand[q, length - 1] = at
            sil[at] = np.int64(values[node, 0])
            h[at] = values[node, 1]
            if lp.shape[1] >= length:
                lp[q, length - 1] = values[node, 2]


@nb.njit(cache=True)
def _span_values(ids, lo, n, classes, ftable, fvalues, rtable, rvalues, mean, bonus, runs_on, max_len, width):  # type: ignore[no-untyped-def]
    """For the span of n tokens from `lo`: the stored word values lp[p, L-1] (-inf: no word), the boundary evidence
    ev[p], the run lengths and depth[p], how many tokens the forward walk from p found stored."""
    window = mean.shape[1]
    fcand = np.full((n, width), ABSENT, dtype=np.int64)
    rcand = np.full((n, window), ABSENT, dtype=np.int64)
    fsil = np.zeros(n * width, dtype=np.int64)
    rsil = np.zeros(n * window, dtype=np.int64)
    fh = np.zeros(n * width)
    rh = np.zeros(n * window)
    lp = np.full((n, max_len), -np.inf)
    _walk(ids, lo, 1, n, ftable, fvalues, fcand, fsil, fh, lp)
    _walk(ids, lo + n - 1, -1, n, rtable, rvalues, rcand, rsil, rh, lp[:, :0])
    ev = np.zeros(n + 1)
    _evidence(fcand, rcand, fsil, fh, rsil, rh, mean, classes[lo:lo + n], bonus, ev)
    runs = np.zeros(n, dtype=np.int64)
    run_lengths(classes[lo:lo + n], runs_on, runs)
    depth = np.zeros(n, dtype=np.int64)
    for p in range(n):
        while depth[p] < width and fcand[p, depth[p]] != ABSENT:
            depth[p] += 1
    return lp, ev, runs, depth


@nb.njit(cache=True)
def _span_scores(ids, lo, n, classes, char_len, ftable, fvalues, rtable, rvalues, mean, bonus, runs_on,  # type: ignore[no-untyped-def]
                 log_p_unknown, weight, theta, max_len, width):
    """The scores[p, L-1] the Viterbi search maximises over (`combine`) for the span of n tokens from `lo`, and
    the boundary evidence ev[p] they include."""
    scores, ev, runs, _ = _span_values(ids, lo, n, classes, ftable, fvalues, rtable, rvalues, mean, bonus, runs_on,
                                       max_len, width)
    combine(scores, ev, log_p_unknown, weight, theta, char_len[lo:lo + n], runs)
    return scores, ev


@nb.njit(cache=True)
def _segment_text(ids, starts, stops, classes, char_len, ftable, fvalues, rtable, rvalues, mean, bonus,  # type: ignore[no-untyped-def]
                  runs_on, log_p_unknown, weight, theta, max_len, width, cuts, counts):
    at = 0
    for k in range(len(starts)):
        lo, n = starts[k], stops[k] - starts[k]
        lp, ev, runs, depth = _span_values(ids, lo, n, classes, ftable, fvalues, rtable, rvalues, mean, bonus, runs_on,
                                           max_len, width)
        at = append_best_within(lp, depth, ev, log_p_unknown, weight, theta, char_len[lo:lo + n], runs, cuts,
                                counts, k, at)
