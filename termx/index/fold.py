"""Case folding for `termx index --fold-case`: lower-case every character whose lower-case form is one character
of the same UTF-8 length, so byte, character and word offsets of a folded text are those of the original.

`str.casefold()` is not used: it changes lengths (ß → ss, ﬁ → fi), and so does `lower()` for a few characters
(İ → i̇, two code points; the Kelvin sign K, 3 bytes → k, 1 byte); those characters are left as they are. Patterns
are folded the same way at look-up time, in Python (termx.lookup) and in SQL (sql/functions/lookup.sql, whose
@U@/@L@ markers termx.storage.sqlfiles fills from FOLD_PAIRS).
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def fold_pairs() -> tuple[str, str]:
    """Every character that folds (as one string) and its folded form (the same positions of a second string)."""
    upper, lower = [], []
    for cp in range(0x20000):   # no character above U+1FFFF has a case
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        low = c.lower()
        if low != c and len(low) == 1 and len(low.encode("utf-8")) == len(c.encode("utf-8")):
            upper.append(c)
            lower.append(low)
    return "".join(upper), "".join(lower)


@lru_cache(maxsize=1)
def _table() -> dict[int, int]:
    upper, lower = fold_pairs()
    return str.maketrans(upper, lower)


def fold_case(text: str) -> str:
    """`text` with every foldable character lower-cased (same length in bytes and characters)."""
    return text.translate(_table())
