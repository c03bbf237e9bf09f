"""Token kinds for the candidate rules: what each character (byte/char units) or token (word units) is — a
letter, another word character, a space, breaking punctuation or other punctuation — and the stop words."""

from __future__ import annotations

import re
import unicodedata

import numpy as np

from termx.index.units import Unit

# Token kinds (per character for byte/char units, per token for word units).
SEP, WORD, SPACE, BREAK, OTHER, INNER = 0, 1, 2, 3, 4, 5
# Punctuation that may sit inside a term (apostrophes, ampersand, slash, middle dots); other sentence
# punctuation, brackets and quotes (Unicode P[oseif]) and control characters (line breaks, tabs) break terms.
JOINERS = frozenset("'’&/·・‧")
# Classic English stop words (the NLTK list): a word-unit candidate may not start or end with one.
STOP_WORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on
once only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves s t d ll m re ve
""".split())
# The stop words that may sit inside a multi-word term of a word corpus, once ("abuse of power", "right to
# information"): the prepositions of the list, the P of Justeson & Katz's noun-phrase pattern without tagging.
PREPOSITIONS = frozenset("""
about above after against at before below between by during for from in into of off on over through to under until
with
""".split())


def char_kind(ch: str) -> int:
    """Kind of one character: a letter (or mark), another word character (digit, underscore), a space,
    breaking punctuation or a control character, or other punctuation and symbols."""
    if ch == "\0":
        return SEP
    if re.match(r"[^\W\d_]", ch):
        return WORD
    if re.match(r"\w", ch):
        return INNER
    cat = unicodedata.category(ch)
    if cat == "Zs":
        return SPACE
    if ch in JOINERS:
        return OTHER
    if cat[0] == "C" or cat in ("Zl", "Zp", "Po", "Ps", "Pe", "Pi", "Pf"):
        return BREAK
    return OTHER


def word_kind(token: str) -> int:
    """Kind of one word-unit token: a word with a letter, a stop word or number (inner only), or punctuation."""
    if not re.match(r"\w", token):
        return char_kind(token)
    if token.lower() in STOP_WORDS or not re.search(r"[^\W\d_]", token):
        return INNER
    return WORD


def token_kinds(unit: Unit, tokens: np.ndarray, vocab: list[str] | None) -> tuple[np.ndarray, np.ndarray]:
    """(kind of every position, is-UTF-8-continuation-byte of every position) of a token array.

    Byte units: every byte gets the kind of the character it belongs to, found by decoding the whole text.
    Byte and char units: a space right after another space is breaking (runs of spaces are layout).
    """
    if unit is Unit.word:
        assert vocab is not None
        table = np.array([SEP] + [word_kind(v) for v in vocab], dtype=np.int8)
        return table[np.asarray(tokens)], np.zeros(len(tokens), dtype=bool)
    if unit is Unit.byte:
        data = np.asarray(tokens, dtype=np.uint8)
        codes = np.frombuffer(data.tobytes().decode("utf-8").encode("utf-32-le"), dtype=np.uint32)
        table = np.zeros(int(codes.max()) + 1, dtype=np.int8)
        for c in np.flatnonzero(np.bincount(codes)).tolist():
            table[c] = char_kind(chr(c))
        per_char = table[codes]
        cont = (data & 0xC0) == 0x80
        char_of = np.cumsum(~cont) - 1
    else:
        assert vocab is not None
        per_char = np.array([SEP] + [char_kind(v) for v in vocab], dtype=np.int8)[np.asarray(tokens)]
        cont = np.zeros(len(tokens), dtype=bool)
        char_of = None
    per_char[1:][(per_char[1:] == SPACE) & (per_char[:-1] == SPACE)] = BREAK
    return (per_char if char_of is None else per_char[char_of]), cont
