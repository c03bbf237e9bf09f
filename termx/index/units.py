"""Token units: turn documents into one token array (documents separated by token 0) and patterns into ids.

- byte: the UTF-8 bytes of the text (NUL never occurs, so 0 is free as the separator).
- char: Unicode code points, mapped to dense ids 1..V in code-point order.
- word: runs of letters/digits/underscore (regex \\w+) and single punctuation characters ([^\\w\\s]);
  white space only separates tokens. Case is kept. Ids 1..V in string order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from termx.defaults import Unit
from termx.errors import PatternError

WORD_RE = re.compile(r"\w+|[^\w\s]")


@dataclass
class TokenArray:
    """Documents concatenated as token ids, each followed by the separator 0."""

    unit: Unit
    tokens: np.ndarray       # (N + D,) uint8 / uint16 / int32
    doc_start: np.ndarray    # (D,) int64 offset of each document's first token
    doc_len: np.ndarray      # (D,) int64 tokens per document
    vocab: list[str] | None  # token id t ↦ vocab[t - 1]; None for bytes

    @property
    def n_tokens(self) -> int:
        """Text tokens, separators excluded."""
        return int(self.doc_len.sum())


def split_words(text: str) -> list[str]:
    """Word tokens of a text, exactly as the word unit indexes them."""
    return WORD_RE.findall(text)


def _id_dtype(vocab_size: int) -> type:
    return np.uint16 if vocab_size < 65535 else np.int32


def vocabulary(texts: Sequence[str], unit: Unit) -> list[str] | None:
    """The sorted tokens of char/word texts (None for bytes): the ids 1..V a one-shard build gives them."""
    if unit is Unit.byte:
        return None
    if unit is Unit.char:
        return sorted({c for t in texts for c in t})
    return sorted({w for t in texts for w in split_words(t)})


def tokenize(texts: Sequence[str], unit: Unit, vocab: Sequence[str] | None = None) -> TokenArray:
    """The token array of documents in `unit`, with document offsets and the vocabulary.

    `vocab` (char/word) fixes the ids — token vocab[t - 1] gets id t — so that the shards of one corpus share
    them; it must hold every token of `texts`. Without it the ids are 1..V in string order of these texts.
    """
    if unit is Unit.byte:
        pieces = [t.encode("utf-8") for t in texts]
        vocab = None
        lengths = np.fromiter((len(p) for p in pieces), dtype=np.int64, count=len(pieces))
        tokens = np.frombuffer(b"\0".join(pieces) + b"\0", dtype=np.uint8).copy()
    elif unit is Unit.char:
        lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
        codes = np.frombuffer("\0".join(texts).encode("utf-32-le") + b"\0\0\0\0", dtype=np.uint32)
        if vocab is None:
            alphabet = np.unique(codes[codes != 0])
            vocab = [chr(c) for c in alphabet.tolist()]
            ids = np.searchsorted(alphabet, codes) + 1
        else:
            given = np.fromiter((ord(c) for c in vocab), dtype=np.uint32, count=len(vocab))
            order = np.argsort(given, kind="stable")
            ids = order[np.searchsorted(given[order], codes).clip(0, max(len(given) - 1, 0))] + 1
        ids[codes == 0] = 0
        tokens = ids.astype(_id_dtype(len(vocab)))
    else:
        words = [split_words(t) for t in texts]
        lengths = np.fromiter((len(w) for w in words), dtype=np.int64, count=len(words))
        if vocab is None:
            vocab = sorted({w for ws in words for w in ws})
        index = {w: n for n, w in enumerate(vocab, 1)}
        flat: list[int] = []
        for ws in words:
            flat.extend(index[w] for w in ws)
            flat.append(0)
        tokens = np.array(flat, dtype=_id_dtype(len(vocab)))
    doc_start = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1] + 1, out=doc_start[1:])
    return TokenArray(unit, tokens, doc_start, lengths, None if vocab is None else list(vocab))


def encode_pattern(pattern: str, unit: Unit, vocab: list[str] | None,
                   lookup: Mapping[str, int] | None = None) -> np.ndarray | None:
    """A pattern as token ids of the corpus; None when it holds a token the corpus never uses (freq 0).

    `vocab` is searched by bisection (ids in string order); `lookup` (token -> id) serves a vocabulary that grew
    by --append, where later tokens got ids after the earlier ones.
    """
    if not pattern or (unit is Unit.word and not split_words(pattern)):
        raise PatternError("empty pattern", "give at least one token")
    if unit is Unit.byte:
        if "\0" in pattern:
            raise PatternError("a pattern cannot contain NUL")
        return np.frombuffer(pattern.encode("utf-8"), dtype=np.uint8).astype(np.int64)
    assert vocab is not None
    pieces = list(pattern) if unit is Unit.char else split_words(pattern)
    ids = []
    for piece in pieces:
        k = lookup.get(piece, 0) - 1 if lookup is not None else _find(vocab, piece)
        if k < 0:
            return None
        ids.append(k + 1)
    return np.array(ids, dtype=np.int64)


def _find(vocab: list[str], token: str) -> int:
    import bisect

    k = bisect.bisect_left(vocab, token)
    return k if k < len(vocab) and vocab[k] == token else -1


def token_strings(unit: Unit, vocab: list[str] | None) -> tuple[np.ndarray, np.ndarray, bytes]:
    """(utf-8 blob, offsets, joiner) so that token t is blob[offsets[t]:offsets[t+1]]; joins words by spaces."""
    if unit is Unit.byte:
        return np.arange(256, dtype=np.uint8), np.arange(257, dtype=np.int64), b""
    assert vocab is not None
    encoded = [b""] + [v.encode("utf-8") for v in vocab]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    blob = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
    return blob, offsets, (b" " if unit is Unit.word else b"")
