"""The open-addressing hash table the word breakers share: uint64 keys (0 marks an empty row), linear probing,
load <= 0.7; row s holds a key and its value (the key's index, or with valued_table any 8-byte value).

Used for n-gram fingerprints (ngram_tables), the words model's suffixes and pairs (word_model, word_viterbi) and
the bigram pass's pair counts (viterbi.pair_table).
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True)
def _slot(fp, mask):  # type: ignore[no-untyped-def]
    """The home row of key `fp` (a mix of its bits, then its middle bits)."""
    x = fp ^ (fp >> np.uint64(31))
    x = x * np.uint64(0x9E3779B97F4A7C15)
    return np.int64((x >> np.uint64(17)) & mask)


def hash_table(keys: np.ndarray) -> np.ndarray:
    """The table of `keys` (distinct, non-zero uint64): row s holds a key and its index in `keys`."""
    size = 1 << max(int(len(keys) / 0.7).bit_length(), 4)
    table = np.zeros((size, 2), dtype=np.uint64)
    _insert(keys, table)
    return table


def valued_table(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """A hash_table whose rows hold each key's value (8 bytes, viewed as uint64) instead of its index: read it
    with find_slot and a view of the table as the values' dtype."""
    table = hash_table(keys)
    used = table[:, 0] != 0
    table[used, 1] = values[table[used, 1].astype(np.int64)]
    return table


@nb.njit(cache=True)
def _insert(keys, table):  # type: ignore[no-untyped-def]
    mask = np.uint64(len(table) - 1)
    for k in range(len(keys)):
        s = _slot(keys[k], mask)
        while table[s, 0] != 0 and table[s, 0] != keys[k]:
            s = (s + 1) & (len(table) - 1)
        table[s, 0] = keys[k]
        table[s, 1] = k


@nb.njit(cache=True)
def find_slot(table, fp):  # type: ignore[no-untyped-def]
    """The row of key `fp`, else −1."""
    mask = np.uint64(len(table) - 1)
    s = _slot(fp, mask)
    while table[s, 0] != 0:
        if table[s, 0] == fp:
            return s
        s = (s + 1) & (len(table) - 1)
    return -1


@nb.njit(cache=True)
def find_value(table, fp):  # type: ignore[no-untyped-def]
    """The value stored with key `fp` (column 1 of its row), else −1."""
    s = find_slot(table, fp)
    return np.int64(-1) if s < 0 else np.int64(table[s, 1])
