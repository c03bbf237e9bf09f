"""A corpus's index in memory: the arrays of one shard (tokens, suffix array, documents, LCP, classes, df_k) and
the look-ups that stand on them (docs/design.md). The engine's core type: look-ups, term extraction, the studies
and word breaking all take it. No database here: termx.storage.index_loader fills it from PostgreSQL through the
disk cache (termx.storage.disk_cache).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from termx.errors import PatternError
from termx.index.units import Unit, encode_pattern


@dataclass
class CorpusInfo:
    """A corpus row as `termx corpora` shows it."""

    id: int
    name: str
    unit: str
    max_k: int
    tokens: int
    documents: int
    classes: int
    rep_cap: int
    params: dict[str, Any]
    timings: dict[str, float]
    created_at: str
    shards: int = 1

    def as_row(self) -> dict[str, Any]:
        """The JSON/table row (stable field names scripts rely on)."""
        return {"name": self.name, "unit": self.unit, "tokens": self.tokens, "documents": self.documents,
                "classes": self.classes, "max_k": self.max_k, "rep_cap": self.rep_cap,
                "created_at": self.created_at, "shards": self.shards}



@dataclass
class LoadedIndex:
    """Arrays of one shard of a corpus; classes are in walk order (j ascending, then i descending)."""

    corpus: CorpusInfo
    shard_id: int
    unit: Unit
    tokens: np.ndarray     # token ids, documents separated by 0
    sa: np.ndarray         # ranks → positions in tokens
    doc_start: np.ndarray  # (D,) first token of each document
    doc_len: np.ndarray    # (D,) tokens per document
    lcp: np.ndarray        # clipped LCP of ranks w, w+1
    cls_i: np.ndarray
    cls_j: np.ndarray
    cls_lbl: np.ndarray
    cls_sil: np.ndarray
    cls_df: np.ndarray     # (classes, K) df_1..df_K
    cls_keys: np.ndarray   # sorted i*(N+1)+j of every class
    cls_order: np.ndarray  # class index of each sorted key
    doc_names: list[str]
    vocab: list[str] | None
    first_doc: int = 0                    # doc_no of this shard's first document in its corpus
    shard_no: int = 0
    token_ids: dict[str, int] | None = None  # token -> id when the vocabulary grew by --append (not in order)

    @property
    def n(self) -> int:
        """Text tokens N."""
        return len(self.sa)

    @property
    def n_docs(self) -> int:
        """Documents D."""
        return len(self.doc_start)

    @cached_property
    def tree(self) -> tuple[np.ndarray, np.ndarray]:
        """(parent of each class, deepest class of each rank): the class tree (termx/index/tree.py), built on first
        use and shared by the studies and word breaking."""
        from termx.index.tree import class_tree  # numba: loaded only when a pass climbs the tree
        return class_tree(self.cls_i, self.cls_j, self.n)

    def encode(self, pattern: str) -> np.ndarray | None:
        """Token ids of a pattern in this corpus's unit; None if it uses a token the corpus lacks."""
        return encode_pattern(pattern, self.unit, self.vocab, self.token_ids)

    def interval(self, ids: np.ndarray) -> tuple[int, int]:
        """<i, j>: the ranks of the suffixes that start with `ids` (j < i when there are none)."""
        if len(ids) == 0:
            raise PatternError("empty pattern")
        prefixes = _Prefixes(self.tokens, self.sa, len(ids))
        key = prefixes.key(np.asarray(ids))
        first = bisect.bisect_left(prefixes, key)
        return first, bisect.bisect_right(prefixes, key, lo=first) - 1

    def class_of(self, i: int, j: int) -> int:
        """Index of the non-trivial class with interval <i, j>, or -1 (a trivial or no class)."""
        if j <= i:
            return -1
        key = i * (self.n + 1) + j
        k = int(np.searchsorted(self.cls_keys, key))
        return int(self.cls_order[k]) if k < len(self.cls_keys) and self.cls_keys[k] == key else -1

    def suffix_length(self, w: int) -> int:
        """Tokens from rank w's suffix to its document end (the SIL of the trivial class <w, w>)."""
        d = self.doc_of_rank(w)
        return int(self.doc_start[d] + self.doc_len[d] - self.sa[w])

    def lbl(self, i: int, j: int) -> int:
        """Longest bounding LCP of <i, j>."""
        return int(max(self.lcp[i - 1] if i > 0 else 0, self.lcp[j]))

    def doc_of_rank(self, w: int) -> int:
        """Document number of the suffix at rank w."""
        return int(np.searchsorted(self.doc_start, self.sa[w], side="right") - 1)

    def decode(self, ids: np.ndarray) -> str:
        """Text of a token sequence (words joined by spaces; cut UTF-8 shown as U+FFFD)."""
        if self.unit is Unit.byte:
            return bytes(np.asarray(ids, dtype=np.uint8)).decode("utf-8", errors="replace")
        assert self.vocab is not None
        pieces = [self.vocab[int(t) - 1] for t in ids]
        return " ".join(pieces) if self.unit is Unit.word else "".join(pieces)


class _Prefixes(Sequence[bytes]):
    """The first `m` tokens of each suffix in rank order, as big-endian bytes, so that bytes order is token order
    and `bisect` finds the interval in C (a look-up needs no compiled kernel, so `termx stats` loads no numba).
    A suffix that ends within `m` tokens compares as its shorter prefix, which is where the 0 that ends every
    document puts it anyway."""

    def __init__(self, tokens: np.ndarray, sa: np.ndarray, m: int) -> None:
        self.m = m
        # indexing a memoryview gives a Python int, fast; it takes native formats only (not an explicit '<i4')
        self.sa = np.ascontiguousarray(sa, dtype=sa.dtype.newbyteorder("=")).data
        self.dtype = np.dtype(f">u{tokens.dtype.itemsize}")
        self.bytewise = tokens.dtype.itemsize == 1  # byte tokens are their own key: slice the buffer
        self.tokens: Any = np.ascontiguousarray(tokens).data if self.bytewise else tokens

    def key(self, ids: np.ndarray) -> bytes:
        """The bytes of a pattern's token ids, ordered as the suffixes' (ids of the corpus fit its dtype)."""
        return ids.astype(self.dtype).tobytes()

    def __len__(self) -> int:
        return len(self.sa)

    def __getitem__(self, w: int) -> bytes:  # type: ignore[override]
        p = self.sa[w]
        chunk = self.tokens[p: p + self.m]
        return bytes(chunk) if self.bytewise else chunk.astype(self.dtype).tobytes()
