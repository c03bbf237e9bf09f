"""Cut a corpus's documents into shards (docs/scale-out.md): by whole documents, in input order, each shard
at most a given number of bytes of UTF-8 text; a document larger than that is a shard of its own."""

from __future__ import annotations

import re
from collections.abc import Sequence

from termx.errors import InputError
from termx.index.ingest import Document

_SIZE_RE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)[bB]?\s*")
_FACTORS = {"": 1, "k": 1000, "m": 1000 ** 2, "g": 1000 ** 3}


def parse_size(text: str) -> int:
    """Bytes of a size such as 1kB, 64MB, 2GB or 5000 (decimal units: 1 kB = 1000 bytes)."""
    m = _SIZE_RE.fullmatch(text)
    if m is None:
        raise InputError(f"`shard_size` {text!r} is not a size", "e.g. 64MB, 512kB, 1GB or a number of bytes",
                         params=("shard_size",))
    size = int(float(m.group(1)) * _FACTORS[m.group(2).lower()])
    if size < 1:
        raise InputError(f"`shard_size` {text!r} is less than one byte", params=("shard_size",))
    return size


def cut_shards(documents: Sequence[Document], max_bytes: int | None) -> list[list[Document]]:
    """Consecutive runs of documents whose UTF-8 text adds up to at most `max_bytes` (None: one shard)."""
    if max_bytes is None:
        return [list(documents)]
    groups: list[list[Document]] = []
    current: list[Document] = []
    size = 0
    for doc in documents:
        n = len(doc.text.encode("utf-8"))
        if current and size + n > max_bytes:
            groups.append(current)
            current, size = [], 0
        current.append(doc)
        size += n
    if current:
        groups.append(current)
    return groups
