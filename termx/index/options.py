"""The options of a build (`termx index`, `Database.index`, `Database.append`) with their defaults, stated once.

Light imports only (no NumPy, no SQLAlchemy): the CLI builds these before anything heavy loads.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

from termx.defaults import DEFAULT_MAX_K, DEFAULT_STORE_MIN_FREQ, MAX_STORE_MIN_FREQ, Unit
from termx.errors import InputError
from termx.index.ingest import InputMode, OnInvalid

DEFAULT_SHARD_SIZE = "64MB"
"""Text per shard by default: one shard for most corpora, several for one too big to build at once."""

MAX_WORKERS = 4 * (os.cpu_count() or 1)
"""Most worker processes a build may start (each holds a shard's build, ~200 MB for 64 MB of text): more only
queue up behind the cores and can exhaust the machine's memory."""

_E = TypeVar("_E", bound=Enum)


@dataclass(kw_only=True)
class IndexOptions:
    """How documents become a corpus. Enum fields take their value as a string too ("char"); `shard_size` takes a
    size such as "64MB" or a number of bytes (None: one shard). Each field is the `termx index` flag of its name."""

    unit: Unit = Unit.byte
    """Token unit: byte (UTF-8 bytes), char (code points) or word (\\w+ runs and single punctuation marks)."""
    max_k: int = DEFAULT_MAX_K
    """df_1..df_K are computed."""
    input: InputMode = InputMode.auto
    """How paths split into documents (auto, files, jsonl, json, lines, paragraphs); unused for in-memory documents."""
    invalid: OnInvalid = OnInvalid.reject
    """Invalid UTF-8 in files: reject (an error naming file and offset) or replace with U+FFFD."""
    replace: bool = False
    """Rebuild an existing corpus atomically (else an existing name is CorpusExists)."""
    append: bool = False
    """Add the documents to an existing corpus as new shards (its unit and max_k apply)."""
    fold_case: bool = False
    """Index the text lower-cased; look-ups then fold their patterns too."""
    shard_size: int | str | None = DEFAULT_SHARD_SIZE
    """At most this much UTF-8 text per shard, by whole documents in input order."""
    sketches: bool = False
    """Also store the bottom-k sketches that jdf(method="sketch") and related() read."""
    store_min_freq: int = DEFAULT_STORE_MIN_FREQ
    """Store a class row only for classes that occur at least this often (2: every non-trivial class); rarer ones
    are computed from the suffix array when looked up, with the same answers. --append keeps the corpus's."""
    workers: int | None = None
    """Worker processes that build shards in parallel (None: the cores)."""
    dask: str | None = None
    """Build the shards as tasks on this Dask scheduler (tcp://HOST:8786)."""
    server: str | None = None
    """Store the shards' class rows on this registered storage server (`termx servers add`), as foreign partitions."""

    def __post_init__(self) -> None:
        self.unit = _choice(Unit, self.unit, "unit")
        self.input = _choice(InputMode, self.input, "input")
        self.invalid = _choice(OnInvalid, self.invalid, "invalid")
        if isinstance(self.shard_size, str):
            from termx.index.sharding import parse_size  # only when a size is given as text

            self.shard_size = parse_size(self.shard_size)
        if not 2 <= self.store_min_freq <= MAX_STORE_MIN_FREQ:
            raise InputError(f"`store_min_freq` {self.store_min_freq} is not between 2 and {MAX_STORE_MIN_FREQ}",
                             params=("store_min_freq",))
        if self.workers is not None and not 1 <= self.workers <= MAX_WORKERS:
            raise InputError(f"`workers` {self.workers} is not between 1 and {MAX_WORKERS} (4 per core)",
                             params=("workers",))

    @classmethod
    def default(cls, field: str) -> Any:
        """The default of `field`: what `termx index` shows for the flag of that name, taken from here."""
        return cls.__dataclass_fields__[field].default

    @property
    def shard_bytes(self) -> int | None:
        """shard_size in bytes (None: one shard)."""
        assert not isinstance(self.shard_size, str)  # parsed by __post_init__
        return self.shard_size


def _choice(kind: type[_E], value: Any, param: str) -> _E:
    """`value` as a member of the enum `kind` (given as the member or its value), or InputError naming the choices."""
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(str(m.value) for m in kind)
        raise InputError(f"`{param}` {value!r} is not one of {choices}", params=(param,)) from None
