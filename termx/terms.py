"""Term extraction: term candidates from the classes, ranked by adaptation, the Poisson null, RIDF or baselines.

A shard's candidates are computed once from its loaded index and stored in termx.candidate (built on first
use); every ranking is a commented query in sql/terms_<rank>.sql over that table, so the CLI and an analyst in
psql see the same list. docs/terms.md states the candidate rules and score formulas exactly.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numba as nb
import numpy as np
import psycopg
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from termx.errors import CorpusNotFound, InputError, TermxError
from termx.index.units import WORD_RE, Unit
from termx.progress import Progress, Silent, Timings
from termx.storage.loaded import LoadedIndex, load_index
from termx.storage.store import get_corpus

CANDIDATE_RULES = 1        # bump when the rules change: stored candidate sets of older rules are rebuilt
SPACED_FRACTION = 0.05     # byte/char text whose tokens are at least 5 % spaces is "spaced" (words between spaces)
NULL_BINS = 1000           # document-length groups of the length-aware Poisson null (exact below this many)
COPY_ROWS = 50_000         # candidates per COPY chunk
_LOCK_CLASS = 0x7465726D   # pg_advisory_xact_lock(class, shard_id): one candidate build per shard at a time

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


class Ranking(str, Enum):
    """How `termx terms` orders the candidates (one sql/terms_<name>.sql each)."""

    adaptation = "adaptation"
    poisson = "poisson"
    ridf = "ridf"
    freq = "freq"
    df = "df"
    specificity = "specificity"


@dataclass
class Candidates:
    """One shard's term candidates: class indices (walk order), their null adaptation and surface forms."""

    cls: np.ndarray     # int64 indices into the loaded index's class arrays
    length: np.ndarray  # int32 tokens of each candidate (a member of its class: lbl < length <= sil)
    p0: np.ndarray      # float64 Pr(k >= 2 | k >= 1) under the length-aware Poisson null, per candidate
    terms: list[str]
    spaced: bool


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


_HASH_PRIME = np.uint64(1099511628211)
_HASH_SEED = np.uint64(14695981039346656037)


@nb.njit(cache=True, inline="always")
def _wordish(k):  # type: ignore[no-untyped-def]
    """A word character/token: a letter or another word character (digits, underscore; stop words)."""
    return k == WORD or k == INNER


@nb.njit(cache=True)
def _left_contexts(tokens, kind, spaced):  # type: ignore[no-untyped-def]
    """Left context of every position: 0 when what precedes cannot begin a term (document start, punctuation,
    a digit, a stop word), else the preceding token, or in spaced text after a space a 64-bit hash of the
    preceding word when it begins with a letter (bit 62 set, so it never equals a token id)."""
    ctx = np.zeros(len(tokens), dtype=np.int64)
    h = _HASH_SEED
    prev_word = np.uint64(0)
    in_word = False
    letter_first = False
    for p in range(1, len(tokens)):
        t = tokens[p - 1]
        k = kind[p - 1]
        if _wordish(k):
            if not in_word:
                h = _HASH_SEED
                in_word = True
                letter_first = k == WORD
            h = (h ^ np.uint64(t)) * _HASH_PRIME
            if k == WORD:
                ctx[p] = t
        elif k == SPACE and spaced:
            if in_word:
                prev_word = h if letter_first else np.uint64(0)
                in_word = False
            if prev_word != 0:
                ctx[p] = np.int64(prev_word & np.uint64((1 << 62) - 1)) | (1 << 62)
        else:
            in_word = False
            prev_word = np.uint64(0)
    return ctx


def left_maximal(ctx: np.ndarray, sa_: np.ndarray, cls_i: np.ndarray, cls_j: np.ndarray) -> np.ndarray:
    """True for classes whose occurrences are not all preceded by the same context (`_left_contexts`; a
    context 0 — nothing a term could be extended by — counts as different from every other)."""
    left = ctx[np.asarray(sa_, dtype=np.int64)]
    bounds = np.concatenate(([0], np.cumsum(left == 0)))
    changes = np.concatenate(([0], np.cumsum(left[1:] != left[:-1])))
    i = np.asarray(cls_i, dtype=np.int64)
    j = np.asarray(cls_j, dtype=np.int64)
    return (bounds[j + 1] - bounds[i] > 0) | (changes[j] - changes[i] > 0)


def _ascii_lower(unit: Unit, tokens: np.ndarray, vocab: list[str] | None) -> np.ndarray:
    """Per position: the lower-case ASCII code of a letter A-Z/a-z, else 0 (for matching stop words)."""
    if unit is Unit.byte:
        table = np.zeros(256, dtype=np.uint8)
    else:
        assert vocab is not None
        table = np.zeros(len(vocab) + 1, dtype=np.uint8)
    for t in range(1, len(table)):
        ch = chr(t) if unit is Unit.byte else vocab[t - 1]  # type: ignore[index]
        if len(ch) == 1 and ch.isascii() and ch.isalpha():
            table[t] = ord(ch.lower())
    return table[np.asarray(tokens)]


def _stop_hashes() -> np.ndarray:
    """The sorted 64-bit hashes `_stop_word` compares with."""
    out = []
    for w in STOP_WORDS:
        h = int(_HASH_SEED)
        for ch in w:
            h = ((h ^ ord(ch)) * int(_HASH_PRIME)) & 0xFFFFFFFFFFFFFFFF
        out.append(h)
    return np.array(sorted(out), dtype=np.uint64)


@nb.njit(cache=True)
def _stop_word(lower, start, end, stops):  # type: ignore[no-untyped-def]
    """Is tokens[start:end] (ASCII letters, lower-cased in `lower`) one of the stop words hashed in `stops`?"""
    h = _HASH_SEED
    for x in range(start, end):
        if lower[x] == 0:
            return False
        h = (h ^ np.uint64(lower[x])) * _HASH_PRIME
    k = np.searchsorted(stops, h)
    return k < len(stops) and stops[k] == h


@nb.njit(cache=True)
def _select(sa_, cls_i, cls_j, cls_lbl, cls_sil, max_len, left_max, kind, cont, start_ok, spaced,  # type: ignore[no-untyped-def]
            lower, stops, out):
    """out[c] = length of class c's candidate, 0 for none: its longest member of at most max_len tokens that
    holds no breaking token, begins and ends with a whole word character/token and, in spaced text, occurs
    as whole words at least half the time and neither begins nor ends with a stop word (docs/terms.md)."""
    for c in range(len(cls_i)):
        if not left_max[c]:
            continue
        i = cls_i[c]
        j = cls_j[c]
        lbl = cls_lbl[c]
        sil = cls_sil[c]
        p = sa_[i]
        if kind[p] != WORD or cont[p]:
            continue
        freq = j - i + 1
        if spaced and 2 * (start_ok[j + 1] - start_ok[i]) < freq:
            continue   # mostly starts inside a word
        limit = min(sil, max_len)
        for t in range(limit):
            if kind[p + t] == BREAK:
                limit = t
                break
        for m in range(limit, lbl, -1):
            if cont[p + m]:
                continue   # cuts a UTF-8 character
            q = p + m - 1
            while cont[q]:
                q -= 1
            if kind[q] != WORD:
                continue
            if spaced:
                if m < sil:
                    if _wordish(kind[p + m]):
                        continue   # every occurrence goes on inside the same word
                else:
                    whole = 0
                    for w in range(i, j + 1):
                        s = sa_[w]
                        if not _wordish(kind[s - 1]) and not _wordish(kind[s + m]):
                            whole += 1
                    if 2 * whole < freq:
                        continue
                first = p
                while first < p + m and _wordish(kind[first]):
                    first += 1
                last = p + m
                while _wordish(kind[last - 1]):
                    last -= 1
                if _stop_word(lower, p, first, stops) or _stop_word(lower, last, p + m, stops):
                    continue
            out[c] = m
            break


def poisson_null_adaptation(freq: np.ndarray, doc_len: np.ndarray) -> np.ndarray:
    """Pr(k >= 2 | k >= 1) under a Poisson null with a rate per document, λ_d = freq · len_d / N:
    E[df_2] / E[df_1] summed over documents (lengths grouped in NULL_BINS bins of equal document count
    when there are more distinct lengths than that)."""
    lengths, counts = np.unique(np.asarray(doc_len, dtype=np.float64), return_counts=True)
    if len(lengths) > NULL_BINS:
        every = np.repeat(lengths, counts)
        groups = np.array_split(every, NULL_BINS)
        lengths = np.array([g.mean() for g in groups])
        counts = np.array([len(g) for g in groups])
    n = float(np.dot(lengths, counts))
    freq = np.asarray(freq, dtype=np.float64)
    values, back = np.unique(freq, return_inverse=True)
    p0 = np.empty(len(values))
    for at in range(0, len(values), 1024):
        x = values[at: at + 1024, None] * lengths[None, :] / n
        e1 = -np.expm1(-x)
        e2 = e1 - x * np.exp(-x)
        p0[at: at + 1024] = (e2 @ counts) / (e1 @ counts)
    return np.clip(p0, 1e-300, 1.0 - 1e-15)[back]


def _glue(texts: Sequence[str], doc_len: np.ndarray, n_total: int) -> np.ndarray:
    """Word units: glue[p] = token p directly follows the previous token with no white space in the text."""
    glue = np.zeros(n_total, dtype=bool)
    at = 0
    for d, text in enumerate(texts):
        spans = np.array([m.span() for m in WORD_RE.finditer(text)], dtype=np.int64).reshape(-1, 2)
        if len(spans) != doc_len[d]:
            raise TermxError(f"document {d} no longer tokenizes as it was indexed",
                             "rebuild the corpus with termx index --replace")
        glue[at + 1: at + len(spans)] = spans[1:, 0] == spans[:-1, 1]
        at += len(spans) + 1
    return glue


def _surface(index: LoadedIndex, starts: np.ndarray, lengths: np.ndarray, glue: np.ndarray | None) -> list[str]:
    """Each candidate's text at its first occurrence in suffix order (word units keep that occurrence's
    spacing: "anti-corruption", not "anti - corruption")."""
    tokens = np.asarray(index.tokens)
    spans = list(zip(starts.tolist(), lengths.tolist(), strict=True))
    if index.unit is Unit.byte:
        blob = tokens.tobytes()
        return [blob[p: p + n].decode("utf-8") for p, n in spans]
    vocab = index.vocab
    assert vocab is not None
    if index.unit is Unit.char:
        return ["".join([vocab[t - 1] for t in tokens[p: p + n].tolist()]) for p, n in spans]
    assert glue is not None
    out = []
    for p, n in spans:
        words = [vocab[t - 1] for t in tokens[p: p + n].tolist()]
        out.append("".join(w if k == 0 or glue[p + k] else " " + w for k, w in enumerate(words)))
    return out


def candidate_classes(index: LoadedIndex, texts: Sequence[str] | None = None, max_len: int | None = None) -> Candidates:
    """The term candidates of a loaded single-shard index (word units need the document texts for spacing).

    Per left-maximal class, the longest member (at most `max_len` tokens, default the corpus's rep_cap) that
    holds no breaking token and begins and ends like a term (`_select`); docs/terms.md has the rules.
    """
    tokens = np.asarray(index.tokens)
    sa_ = np.asarray(index.sa)
    cls_i, cls_j = np.asarray(index.cls_i), np.asarray(index.cls_j)
    cls_sil = np.asarray(index.cls_sil)
    kind, cont = token_kinds(index.unit, tokens, index.vocab)
    spaced = index.unit is not Unit.word and bool(np.count_nonzero(kind == SPACE) >= SPACED_FRACTION * max(index.n, 1))
    ctx = _left_contexts(tokens, kind, spaced)
    before = kind[sa_.astype(np.int64) - 1]
    start_ok = np.concatenate(([0], np.cumsum((before != WORD) & (before != INNER))))
    lengths = np.zeros(len(cls_i), dtype=np.int32)
    lower = _ascii_lower(index.unit, tokens, index.vocab) if spaced else np.zeros(1, dtype=np.uint8)
    _select(sa_, cls_i, cls_j, np.asarray(index.cls_lbl), cls_sil,
            max_len if max_len is not None else index.corpus.rep_cap, left_maximal(ctx, sa_, cls_i, cls_j),
            kind, cont, start_ok, spaced, lower, _stop_hashes(), lengths)
    cls = np.flatnonzero(lengths)
    starts = sa_[cls_i[cls]].astype(np.int64)
    freq = cls_j[cls].astype(np.int64) - cls_i[cls] + 1
    glue = None
    if index.unit is Unit.word:
        if texts is None:
            raise TermxError("word-unit candidates need the document texts")
        glue = _glue(texts, np.asarray(index.doc_len), len(tokens))
    return Candidates(cls, lengths[cls], poisson_null_adaptation(freq, np.asarray(index.doc_len)),
                      _surface(index, starts, lengths[cls], glue), spaced)


def _shards_without_candidates(engine: Engine, corpus_id: int) -> list[int]:
    with engine.connect() as conn:
        return list(conn.execute(sa.text(
            "SELECT s.id FROM termx.shard s LEFT JOIN termx.candidate_set c ON c.shard_id = s.id"
            " AND c.rules = :r WHERE s.corpus_id = :c AND c.shard_id IS NULL ORDER BY s.id"),
            {"r": CANDIDATE_RULES, "c": corpus_id}).scalars())


def _texts(engine: Engine, corpus_id: int) -> list[str]:
    with engine.connect() as conn:
        return list(conn.execute(sa.text("SELECT text FROM termx.document WHERE corpus_id = :c ORDER BY doc_no"),
                                 {"c": corpus_id}).scalars())


def ensure_candidates(engine: Engine, corpus: str, progress: Progress | None = None,
                      timings: Timings | None = None) -> None:
    """Compute and store the corpus's term candidates unless they are stored already (one transaction)."""
    progress = progress or Silent()
    timings = timings if timings is not None else Timings()
    info = get_corpus(engine, corpus)
    missing = _shards_without_candidates(engine, info.id)
    if not missing:
        return
    with timings.stage("load index", progress):
        index = load_index(engine, corpus, "termx terms")
    with timings.stage("term candidates", progress):
        texts = _texts(engine, info.id) if index.unit is Unit.word else None
        found = candidate_classes(index, texts)
    with timings.stage("store candidates", progress, len(found.cls)) as advance:
        _store_candidates(engine, index, found, advance)


# COPY text format escapes (the breaking rule keeps these characters out of terms today; the format needs them)
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_lines(index: LoadedIndex, found: Candidates, start: int, stop: int) -> str:
    """Candidates start..stop as COPY text rows (shard_id, i, j, len, freq, df, p0, term)."""
    cls = found.cls[start:stop]
    i = np.asarray(index.cls_i)[cls].tolist()
    j = np.asarray(index.cls_j)[cls].tolist()
    df = np.asarray(index.cls_df)[cls].tolist()
    rows = zip(i, j, found.length[start:stop].tolist(), df, found.p0[start:stop].tolist(), found.terms[start:stop],
               strict=True)
    shard = index.shard_id
    return "".join(f"{shard}\t{a}\t{b}\t{m}\t{b - a + 1}\t{{{','.join(map(str, d))}}}\t{p!r}\t"
                   f"{t.translate(_COPY_ESCAPES)}\n" for a, b, m, d, p, t in rows)


def _store_candidates(engine: Engine, index: LoadedIndex, found: Candidates, advance: Any) -> None:
    raw = engine.raw_connection()
    try:
        conn: psycopg.Connection = raw.driver_connection  # type: ignore[assignment]
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_LOCK_CLASS, index.shard_id))
            done = conn.execute("SELECT rules FROM termx.candidate_set WHERE shard_id = %s",
                                (index.shard_id,)).fetchone()
            if done is not None and done[0] == CANDIDATE_RULES:
                return  # another process stored them while we computed
            conn.execute("DELETE FROM termx.candidate_set WHERE shard_id = %s", (index.shard_id,))
            conn.execute("INSERT INTO termx.candidate_set (shard_id, rules, spaced, candidates, params)"
                         " VALUES (%s, %s, %s, %s, %s)",
                         (index.shard_id, CANDIDATE_RULES, found.spaced, len(found.cls),
                          json.dumps({"spaced_fraction": SPACED_FRACTION, "null_bins": NULL_BINS,
                                      "max_len": index.corpus.rep_cap})))
            with conn.cursor().copy("COPY termx.candidate (shard_id, i, j, len, freq, df, p0, term)"
                                    " FROM STDIN") as copy:
                for at in range(0, len(found.cls), COPY_ROWS):
                    copy.write(_copy_lines(index, found, at, at + COPY_ROWS))
                    advance(min(COPY_ROWS, len(found.cls) - at))
            conn.execute("ANALYZE termx.candidate")
        raw.commit()
    finally:
        raw.close()


def reference_counts(index: LoadedIndex, terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(freq, df_1) of each term in a loaded reference index: two binary searches in its SA per term, df_1 from
    the class of that interval (a term found once is in one document; one it cannot spell occurs 0 times)."""
    freq = np.zeros(len(terms), dtype=np.int64)
    df = np.zeros(len(terms), dtype=np.int64)
    cls_df = np.asarray(index.cls_df)
    for n, term in enumerate(terms):
        ids = index.encode(term)
        if ids is None or len(ids) == 0:
            continue
        i, j = index.interval(ids)
        freq[n] = max(j - i + 1, 0)
        c = index.class_of(i, j)
        df[n] = cls_df[c, 0] if c >= 0 else freq[n]
    return freq, df


def _reference_info(engine: Engine, corpus: str, reference: str) -> int:
    """The reference corpus's id, after checking that it exists, differs from `corpus` and has its unit."""
    try:
        ref = get_corpus(engine, reference)
    except CorpusNotFound:
        raise CorpusNotFound(f"reference corpus {reference!r} not found",
                             "index it first with termx index --unit UNIT; termx corpora lists the corpora") from None
    info = get_corpus(engine, corpus)
    if ref.id == info.id:
        raise InputError("the reference corpus must differ from the corpus", "use a corpus of general text")
    if ref.unit != info.unit:
        raise InputError(f"reference corpus {reference!r} has unit {ref.unit}, corpus {corpus!r} has {info.unit}",
                         f"index the reference with --unit {info.unit}")
    return ref.id


def ensure_reference(engine: Engine, corpus: str, reference: str, progress: Progress | None = None,
                     timings: Timings | None = None) -> None:
    """Count the corpus's candidates in the reference corpus and store the counts, unless stored already."""
    progress = progress or Silent()
    timings = timings if timings is not None else Timings()
    ref_id = _reference_info(engine, corpus, reference)
    ensure_candidates(engine, corpus, progress, timings)
    info = get_corpus(engine, corpus)
    with engine.connect() as conn:
        missing = list(conn.execute(sa.text(
            "SELECT s.id FROM termx.shard s LEFT JOIN termx.reference_set r ON r.shard_id = s.id"
            " AND r.ref_corpus_id = :r WHERE s.corpus_id = :c AND r.shard_id IS NULL ORDER BY s.id"),
            {"r": ref_id, "c": info.id}).scalars())
    if not missing:
        return
    with timings.stage("load reference index", progress):
        ref_index = load_index(engine, reference, "a reference corpus of termx terms")
    for shard_id in missing:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT i, j, term FROM termx.candidate WHERE shard_id = :s ORDER BY i, j"),
                                {"s": shard_id}).all()
        with timings.stage("count candidates in the reference", progress):
            freq, df = reference_counts(ref_index, [r.term for r in rows])
        with timings.stage("store reference counts", progress):
            _store_reference(engine, shard_id, ref_id, rows, freq, df)


def _store_reference(engine: Engine, shard_id: int, ref_id: int, rows: Sequence[Any], freq: np.ndarray,
                     df: np.ndarray) -> None:
    raw = engine.raw_connection()
    try:
        conn: psycopg.Connection = raw.driver_connection  # type: ignore[assignment]
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_LOCK_CLASS, shard_id))
            if conn.execute("SELECT 1 FROM termx.reference_set WHERE shard_id = %s AND ref_corpus_id = %s",
                            (shard_id, ref_id)).fetchone() is not None:
                return  # another process stored them while we counted
            conn.execute("INSERT INTO termx.reference_set (shard_id, ref_corpus_id) VALUES (%s, %s)",
                         (shard_id, ref_id))
            with conn.cursor().copy("COPY termx.candidate_reference (shard_id, ref_corpus_id, i, j, ref_freq, ref_df)"
                                    " FROM STDIN") as copy:
                for at in range(0, len(rows), COPY_ROWS):
                    copy.write("".join(f"{shard_id}\t{ref_id}\t{r.i}\t{r.j}\t{f}\t{d}\n" for r, f, d in zip(
                        rows[at: at + COPY_ROWS], freq[at: at + COPY_ROWS].tolist(), df[at: at + COPY_ROWS].tolist(),
                        strict=True)))
            conn.execute("ANALYZE termx.candidate_reference")
        raw.commit()
    finally:
        raw.close()


def _check(rank: Ranking, top: int, min_df: int, min_len: int, max_len: int, max_k: int,
           reference: str | None) -> None:
    if top < 1:
        raise InputError("--top must be at least 1")
    if min_df < 1:
        raise InputError("--min-df must be at least 1")
    if min_len < 1 or max_len < min_len:
        raise InputError(f"need 1 <= --min-len <= --max-len (got {min_len} and {max_len})")
    if rank in (Ranking.adaptation, Ranking.poisson) and max_k < 2:
        raise InputError(f"--rank {rank.value} needs df_2, but the corpus was built with --max-k {max_k}",
                         "rebuild it with termx index --max-k 2 or more")
    if rank is Ranking.specificity and reference is None:
        raise InputError("--rank specificity needs --reference REF", "REF: an indexed corpus of general text")
    if rank is not Ranking.specificity and reference is not None:
        raise InputError(f"--reference only serves --rank specificity, not --rank {rank.value}")


def extract_terms(engine: Engine, corpus: str, rank: Ranking | str = Ranking.adaptation, top: int = 100,
                  min_df: int = 3, min_len: int = 2, max_len: int = 40, progress: Progress | None = None,
                  timings: Timings | None = None, reference: str | None = None) -> list[dict[str, Any]]:
    """The corpus's top terms by `rank`, best first: rows with rank, term, score, freq, df (df_1..df_K), len
    (and ref_freq, ref_df for specificity, which compares against the corpus `reference`).

    Filters: df_1 >= min_df and min_len <= length in tokens <= max_len. Ties: score, then freq, descending,
    then term in C collation.
    """
    from termx.storage.sqlfiles import run_sql

    rank = Ranking(rank)
    info = get_corpus(engine, corpus)
    _check(rank, top, min_df, min_len, max_len, info.max_k, reference)
    timings = timings if timings is not None else Timings()
    params: dict[str, Any] = {"corpus": corpus, "min_df": min_df, "min_len": min_len, "max_len": max_len, "top": top}
    if reference is not None:
        ensure_reference(engine, corpus, reference, progress, timings)
        params["reference"] = reference
    else:
        ensure_candidates(engine, corpus, progress, timings)
    with timings.stage(f"rank by {rank.value}", progress or Silent()):
        return run_sql(engine, f"terms_{rank.value}", params)


def save_terms(engine: Engine, name: str, corpus: str, rows: Sequence[dict[str, Any]], params: dict[str, Any],
               replace: bool = False) -> int:
    """Store a ranked list as termx.term_list `name` with its terms (COPY); returns the list id.

    An existing list of that name is an error unless `replace`, which swaps it out in the same transaction.
    """
    if not name or len(name) > 200:
        raise InputError("a term list name must have 1 to 200 characters")
    info = get_corpus(engine, corpus)
    raw = engine.raw_connection()
    try:
        conn: psycopg.Connection = raw.driver_connection  # type: ignore[assignment]
        with conn.transaction():
            old = conn.execute("SELECT id FROM termx.term_list WHERE name = %s FOR UPDATE", (name,)).fetchone()
            if old is not None:
                if not replace:
                    raise InputError(f"term list {name!r} already exists", "use --replace to overwrite it")
                conn.execute("DELETE FROM termx.term_list WHERE id = %s", (old[0],))
            list_id = conn.execute("INSERT INTO termx.term_list (name, corpus_id, params) VALUES (%s, %s, %s)"
                                   " RETURNING id", (name, info.id, json.dumps(params))).fetchone()[0]  # type: ignore[index]
            with conn.cursor().copy("COPY termx.term (list_id, rank, term, score, freq, df)"
                                    " FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["int4", "int4", "text", "float8", "int4", "int4[]"])
                for r in rows:
                    copy.write_row((list_id, r["rank"], r["term"], r["score"], r["freq"], list(r["df"])))
        raw.commit()
    except psycopg.errors.UniqueViolation:
        raise InputError(f"term list {name!r} already exists", "another process saved it; use --replace") from None
    finally:
        raw.close()
    return int(list_id)
