"""The class table's rows written straight from NumPy arrays by a numba kernel (`class_rows`), in PostgreSQL's
binary COPY format.

Class row layout: int16 field count, then per field int32 length + big-endian value: shard_id int4, i int4,
j int4, lbl int4, sil int4, freq int4, df int4[K], rep text (the longest member, at most `rep_cap` tokens and
`REP_MAX_BYTES` bytes, as valid UTF-8 — see `_put_rep`).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numba as nb
import numpy as np

from termx.storage.copyrows import COPY_HEADER, COPY_TRAILER, INT4_OID, REP_MAX_BYTES

BUFFER_BYTES = 8 << 20


def class_rows(shard_id: int, i: np.ndarray, j: np.ndarray, lbl: np.ndarray, sil: np.ndarray,
               df: np.ndarray, sa: np.ndarray, tokens: np.ndarray, blob: np.ndarray, offsets: np.ndarray,
               joiner: bytes, rep_cap: int, rows: np.ndarray | None = None) -> Iterator[tuple[bytes, int]]:
    """Yield (binary COPY bytes, rows in them) chunks for the classes `rows` (indexes into the class arrays, in
    order; None: all of them), header first and trailer last. Selecting rows by index copies none of the arrays.

    The next chunk is encoded in a worker thread (the kernel releases the GIL) while the caller sends the
    current one, so encoding hides behind the database's COPY.
    """
    join = np.frombuffer(joiner, dtype=np.uint8).copy()
    sel = np.empty(0, dtype=np.int32) if rows is None else np.asarray(rows, dtype=np.int32)  # class ids are int32
    total = len(i) if rows is None else len(sel)

    def encode(row: int) -> tuple[int, bytes]:
        buf = np.empty(BUFFER_BYTES, dtype=np.uint8)
        stop, nbytes = _encode(row, shard_id, i, j, lbl, sil, df, sa, tokens, blob, offsets, join,
                               rep_cap, REP_MAX_BYTES, buf, sel, total)
        return stop, buf[:nbytes].tobytes()

    yield COPY_HEADER, 0
    row = 0
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(encode, row) if total else None
        while pending is not None:
            stop, data = pending.result()
            pending = pool.submit(encode, stop) if stop < total else None
            yield data, stop - row
            row = stop
    yield COPY_TRAILER, 0


@nb.njit(cache=True, inline="always")
def _put32(buf, pos, v):  # type: ignore[no-untyped-def]
    buf[pos] = (v >> 24) & 0xFF
    buf[pos + 1] = (v >> 16) & 0xFF
    buf[pos + 2] = (v >> 8) & 0xFF
    buf[pos + 3] = v & 0xFF
    return pos + 4


@nb.njit(cache=True, inline="always")
def _put_int4(buf, pos, v):  # type: ignore[no-untyped-def]
    """One int4 field: length 4, then the value."""
    return _put32(buf, _put32(buf, pos, 4), v)


@nb.njit(cache=True)
def _put_rep(buf, pos, start, length, tokens, blob, offsets, join, max_bytes):  # type: ignore[no-untyped-def]
    """Write the member tokens[start:start+length] as UTF-8; returns the end position.

    Byte corpora can cut a character: leading continuation bytes become U+FFFD and a trailing
    incomplete character is dropped, so the stored text is always valid UTF-8 and begins with every
    member that begins at a character boundary.
    """
    begin = pos
    for t in range(length):
        tok = tokens[start + t]
        a = offsets[tok]
        b = offsets[tok + 1]
        extra = len(join) if t > 0 else 0
        if pos - begin + extra + (b - a) > max_bytes:
            break
        if t > 0:
            for x in range(len(join)):
                buf[pos] = join[x]
                pos += 1
        for x in range(a, b):
            buf[pos] = blob[x]
            pos += 1
    # trailing incomplete UTF-8 sequence
    k = pos - 1
    back = 0
    while k >= begin and back < 4 and (buf[k] & 0xC0) == 0x80:
        k -= 1
        back += 1
    if k >= begin and buf[k] >= 0xC0:
        need = 2 if buf[k] < 0xE0 else (3 if buf[k] < 0xF0 else 4)
        if pos - k < need:
            pos = k
    # leading continuation bytes → U+FFFD (shift the rest right by 2 bytes per replacement)
    lead = 0
    while begin + lead < pos and (buf[begin + lead] & 0xC0) == 0x80:
        lead += 1
    if lead > 0:
        for x in range(pos - 1, begin + lead - 1, -1):
            buf[x + 2 * lead] = buf[x]
        for r in range(lead):
            buf[begin + 3 * r] = 0xEF
            buf[begin + 3 * r + 1] = 0xBF
            buf[begin + 3 * r + 2] = 0xBD
        pos += 2 * lead
    return pos


@nb.njit(cache=True, nogil=True)
def _encode(row, shard_id, ci, cj, clbl, csil, df, sa, tokens, blob, offsets, join, rep_cap,  # type: ignore[no-untyped-def]
            max_bytes, buf, sel, n):
    """Encode rows from `row` on (of `n`: class sel[row], or class row when sel is empty) until the buffer could
    overflow; returns (next row, bytes written)."""
    kmax = df.shape[1]
    worst = 2 + 6 * 8 + 4 + 20 + 8 * kmax + 4 + max_bytes + 16
    pos = 0
    while row < n and pos + worst <= len(buf):
        buf[pos] = 0
        buf[pos + 1] = 8
        pos += 2
        c = sel[row] if len(sel) else row
        i = ci[c]
        j = cj[c]
        pos = _put_int4(buf, pos, shard_id)
        pos = _put_int4(buf, pos, i)
        pos = _put_int4(buf, pos, j)
        pos = _put_int4(buf, pos, clbl[c])
        pos = _put_int4(buf, pos, csil[c])
        pos = _put_int4(buf, pos, j - i + 1)
        pos = _put32(buf, pos, 20 + 8 * kmax)
        pos = _put32(buf, pos, 1)
        pos = _put32(buf, pos, 0)
        pos = _put32(buf, pos, INT4_OID)
        pos = _put32(buf, pos, kmax)
        pos = _put32(buf, pos, 1)
        for k in range(kmax):
            pos = _put_int4(buf, pos, df[c, k])
        length_at = pos
        pos += 4
        length = min(csil[c], rep_cap)
        end = _put_rep(buf, pos, sa[i], length, tokens, blob, offsets, join, max_bytes)
        _put32(buf, length_at, end - pos)
        pos = end
        row += 1
    return row, pos
