"""Look-ups on a loaded index: stats, find_class, concordance and class members (the slides' find_class, sufconc).

Every answer comes from the suffix array: two binary searches give the interval <i,j> of the suffixes that
start with the pattern, and the class with that interval holds its statistics (a trivial class <i,i> when the
pattern occurs once). The SQL functions of migration 0004_lookup return the same rows (docs/lookup.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from termx.errors import InputError, PatternError
from termx.index.fold import fold_case
from termx.index.loaded_index import LoadedIndex
from termx.index.units import Unit, split_words
from termx.poisson import poisson_adaptation
from termx.storage.copyrows import REP_MAX_BYTES

STATS_FIELDS = ("pattern", "freq", "df", "adaptation", "poisson_adaptation", "ridf", "i", "j", "lbl", "sil",
                "shortest", "longest")
CLASS_FIELDS = ("pattern", "i", "j", "freq", "df", "lbl", "sil", "size", "shortest", "longest")
CONCORDANCE_FIELDS = ("rank", "doc", "doc_no", "offset", "left", "match", "right")
SHOWN_CHARS = 40  # a pattern named in an error message is cut to this many characters
T = TypeVar("T")


@dataclass
class ClassMatch:
    """The class holding a pattern: interval <i,j> (None when the pattern does not occur) and its statistics."""

    pattern: str
    ids: np.ndarray | None  # token ids; None when a token is not in the corpus
    i: int | None
    j: int | None
    freq: int
    df: list[int]           # df_1..df_K
    lbl: int | None
    sil: int | None
    cls: int                # index into the index's class arrays; -1 for a trivial or absent class

    @property
    def found(self) -> bool:
        """Whether the pattern occurs at all."""
        return self.freq > 0


def adaptation(df: Sequence[int]) -> float | None:
    """df_2 / df_1 = Pr(k >= 2 | k >= 1); None when df_1 = 0 or df_2 was not counted."""
    return df[1] / df[0] if len(df) >= 2 and df[0] > 0 else None


def one_rate_null(freq: int, documents: int) -> float | None:
    """The adaptation a Poisson null predicts when the string falls into every document at the rate
    λ = freq / D (`termx.poisson.poisson_adaptation`); None when it does not occur or there are no documents."""
    return poisson_adaptation(freq / documents) if freq > 0 and documents > 0 else None


def ridf(df1: int, freq: int, documents: int) -> float | None:
    """Residual IDF = IDF − Poisson-predicted IDF = −log2(df_1 / D) + log2(1 − e^(−freq/D)); None when df_1 = 0."""
    if df1 <= 0 or documents <= 0:
        return None
    return (math.log(documents / df1) + math.log(1.0 - math.exp(-freq / documents))) / math.log(2.0)


def pattern_length(index: LoadedIndex, pattern: str, longest: int | None = None) -> int:
    """Tokens of a pattern in the corpus's unit; PatternError when it is empty, not valid text, or longer than
    the longest document (`longest`: of the whole corpus; default: of this shard)."""
    try:
        data = pattern.encode("utf-8")
    except UnicodeEncodeError:
        raise PatternError(f"pattern {shown_pattern(pattern)} is not valid UTF-8",
                           "patterns are text in UTF-8") from None
    if "\0" in pattern:
        raise PatternError("a pattern cannot contain NUL", "NUL separates documents in the index")
    n = len(data) if index.unit is Unit.byte else len(pattern) if index.unit is Unit.char else \
        len(split_words(pattern))
    if n == 0:
        raise PatternError("empty pattern" if not pattern else
                           f"pattern {shown_pattern(pattern)} holds no {index.unit.value}s",
                           "give at least one token")
    if longest is None:
        longest = int(index.doc_len.max()) if index.n_docs else 0
    if n > longest:
        raise PatternError(f"the pattern has {n} {index.unit.value} tokens, more than the longest document "
                           f"({longest})", "it cannot occur in this corpus")
    return n


def find_class(index: LoadedIndex, pattern: str, longest: int | None = None) -> ClassMatch:
    """The class of `pattern` in one shard: two binary searches for <i,j>, then the class with that interval
    (slides). `longest`: the corpus's longest document, when the shard is one of several.

    In a corpus indexed with `fold_case` the pattern is folded first (termx.index.fold), as its text was.
    """
    if index.corpus.params.get("fold_case"):
        pattern = fold_case(pattern)
    pattern_length(index, pattern, longest)
    kmax = index.cls_df.shape[1]
    ids = index.encode(pattern)
    if ids is not None:
        i, j = index.interval(ids)
        if j >= i:
            k = index.class_of(i, j)
            if k >= 0:
                return ClassMatch(pattern, ids, i, j, j - i + 1, index.cls_df[k].tolist(),
                                  int(index.cls_lbl[k]), int(index.cls_sil[k]), k)
            return ClassMatch(pattern, ids, i, j, 1, [1] + [0] * (kmax - 1), index.lbl(i, i),
                              index.suffix_length(i), -1)
    return ClassMatch(pattern, ids, None, None, 0, [0] * kmax, None, None, -1)


def member(index: LoadedIndex, rank: int, length: int) -> str:
    """The first `length` tokens of the suffix at `rank` as text, cut the way the stored rep is cut.

    At most rep_cap tokens, whole tokens within REP_MAX_BYTES bytes; a cut UTF-8 character shows as U+FFFD.
    """
    start = int(index.sa[rank])
    ids = index.tokens[start: start + min(length, index.corpus.rep_cap)]
    if index.unit is Unit.byte:
        return bytes(np.asarray(ids[:REP_MAX_BYTES], dtype=np.uint8)).decode("utf-8", errors="replace")
    assert index.vocab is not None
    joiner = " " if index.unit is Unit.word else ""
    pieces: list[str] = []
    size = 0
    for t in ids.tolist():
        piece = index.vocab[t - 1]
        grow = len(piece.encode("utf-8")) + (len(joiner) if pieces else 0)
        if size + grow > REP_MAX_BYTES:
            break
        pieces.append(piece)
        size += grow
    return joiner.join(pieces)


Shards = LoadedIndex | Sequence[LoadedIndex]


def as_shards(index: Shards) -> list[LoadedIndex]:
    """The shards of a corpus as a list (a single LoadedIndex is a one-shard corpus)."""
    return [index] if isinstance(index, LoadedIndex) else list(index)


def longest_document(shards: Sequence[LoadedIndex]) -> int:
    """Tokens of the corpus's longest document, over all its shards."""
    return max((int(s.doc_len.max()) for s in shards if s.n_docs), default=0)


def find_in_shards(index: Shards, pattern: str) -> tuple[int, list[int], list[tuple[LoadedIndex, ClassMatch]]]:
    """freq and df_1..df_K of `pattern` summed over the shards (disjoint sets of documents, so the sums are
    exact), and each shard's class match."""
    shards = as_shards(index)
    longest = longest_document(shards) if len(shards) > 1 else None
    matches = [(s, find_class(s, pattern, longest)) for s in shards]
    freq = sum(m.freq for _, m in matches)
    df = np.sum([m.df for _, m in matches], axis=0).tolist()
    return freq, df, matches


def _class_fields(index: LoadedIndex, m: ClassMatch) -> dict[str, Any]:
    """<i,j>, LBL, SIL and the shortest/longest member of a class in one shard (None when absent)."""
    row: dict[str, Any] = {"i": m.i, "j": m.j, "lbl": m.lbl, "sil": m.sil, "shortest": None, "longest": None}
    if m.found:
        assert m.ids is not None and m.i is not None and m.lbl is not None and m.sil is not None
        row["shortest"] = index.decode(m.ids[: m.lbl + 1])
        row["longest"] = member(index, m.i, m.sil)
    return row


def _stats_row(shards: list[LoadedIndex], documents: int, pattern: str) -> dict[str, Any]:
    """The STATS_FIELDS of one pattern (PatternError when it is empty or cannot occur); see `stats`."""
    freq, df, matches = find_in_shards(shards, pattern)
    row: dict[str, Any] = {"pattern": pattern, "freq": freq, "df": df, "adaptation": adaptation(df),
                           "poisson_adaptation": one_rate_null(freq, documents),
                           "ridf": ridf(df[0], freq, documents)}
    if len(shards) == 1:
        row.update(_class_fields(*matches[0]))
    else:
        row.update(dict.fromkeys(("i", "j", "lbl", "sil", "shortest", "longest")))
        row["shards"] = [{"shard_no": s.shard_no, "freq": m.freq, "df": m.df, **_class_fields(s, m)}
                         for s, m in matches if m.found]
    return row


def stats(index: Shards, patterns: Sequence[str]) -> list[dict[str, Any]]:
    """One row per pattern with the STATS_FIELDS (the JSON contract of `termx stats`); PatternError at the first
    bad pattern (`stats_each` answers every good one instead).

    Over several shards freq and df_k are the sums over the shards; a class <i,j>, LBL, SIL and the shortest/
    longest member exist per shard only, so those fields are None and a `shards` list gives them for each shard
    where the pattern occurs (shard_no, freq, df and the class fields).
    """
    shards = as_shards(index)
    documents = sum(s.n_docs for s in shards)
    return [_stats_row(shards, documents, pattern) for pattern in patterns]


def shown_pattern(pattern: str) -> str:
    """A pattern as an error message names it: quoted, cut to SHOWN_CHARS characters with an ellipsis."""
    return repr(pattern if len(pattern) <= SHOWN_CHARS else pattern[:SHOWN_CHARS - 1] + "…")


def pattern_failure(position: int, pattern: str, exc: PatternError, label: str | None = None) -> str:
    """The `error` of a batch's bad pattern: its 1-based position (or `label`), the pattern (cut), what is wrong."""
    return f"{label or f'pattern {position}'} {shown_pattern(pattern)}: {exc}"


def error_record(fields: Iterable[str], pattern: str, error: str) -> dict[str, Any]:
    """A bad pattern's own record in a batch: every field None but the pattern, and its `error`."""
    return {**dict.fromkeys(fields), "pattern": pattern, "error": error}


def answer_each(patterns: Iterable[str], answer: Callable[[str], T]) -> Iterator[tuple[str, T | None, str | None]]:
    """(pattern, answer, None) for each pattern, or (pattern, None, error) where it is bad (a PatternError), so
    that one bad pattern does not abort a batch. Lazy: reads `patterns` (any iterable) one at a time."""
    for position, pattern in enumerate(patterns, 1):
        try:
            yield pattern, answer(pattern), None
        except PatternError as exc:
            yield pattern, None, pattern_failure(position, pattern, exc)


def stats_each(index: Shards, patterns: Iterable[str]) -> Iterator[dict[str, Any]]:
    """`stats` of a batch, lazily: a row per good pattern, and for a bad one (empty, longer than every document)
    its error_record with an `error` naming it and its position."""
    shards = as_shards(index)
    documents = sum(s.n_docs for s in shards)
    for pattern, row, error in answer_each(patterns, lambda p: _stats_row(shards, documents, p)):
        yield row if row is not None else error_record(STATS_FIELDS, pattern, error or "")


def class_records(index: Shards, pattern: str) -> list[dict[str, Any]]:
    """The class holding a pattern (the JSON contract of `termx class`): <i,j>, freq, df, LBL, SIL, its size
    (members) and its shortest and longest members.

    One shard: its one record (freq 0 and empty class fields when the pattern does not occur). A class exists per
    shard only, so over several shards: one record per shard where the pattern occurs, each with its `shard_no`.
    """
    shards = as_shards(index)
    _, _, matches = find_in_shards(shards, pattern)
    records = []
    for s, m in matches:
        if len(shards) > 1 and not m.found:
            continue
        row = _class_fields(s, m)
        values = {**row, "pattern": pattern, "freq": m.freq, "df": m.df,
                  "size": row["sil"] - row["lbl"] if m.found else 0}
        info = {"shard_no": s.shard_no} if len(shards) > 1 else {}
        records.append({**info, **{k: values[k] for k in CLASS_FIELDS}})
    return records


def class_listing(index: Shards, pattern: str, members: bool = False,
                  limit: int | None = None) -> list[dict[str, Any]]:
    """class_records, each with its "members" (shortest first, at most `limit`) when `members` is asked for: the
    JSON of `termx class [--members]` and of the Python API's classes()."""
    shards = as_shards(index)
    records = class_records(shards, pattern)
    if not members:
        return records
    longest = longest_document(shards) if len(shards) > 1 else None
    by_no = {s.shard_no: s for s in shards}
    return [{**r, "members": class_members(by_no[r["shard_no"]] if len(shards) > 1 else shards[0], pattern, limit,
                                           longest)} for r in records]


def class_each(index: Shards, patterns: Iterable[str], members: bool = False,
               limit: int | None = None) -> Iterator[dict[str, Any]]:
    """class_listing of a batch, lazily: the records of each good pattern, an error_record for each bad one."""
    shards = as_shards(index)
    fields = [*CLASS_FIELDS, "members"] if members else list(CLASS_FIELDS)
    for pattern, records, error in answer_each(patterns, lambda p: class_listing(shards, p, members, limit)):
        yield from records if records is not None else [error_record(fields, pattern, error or "")]


def class_members(index: LoadedIndex, pattern: str, limit: int | None = None, longest: int | None = None) -> list[str]:
    """Members of the pattern's class, shortest first: prefixes of its longest with length in (LBL, SIL].

    `longest`: the corpus's longest document, when the shard is one of several (as in find_class)."""
    m = find_class(index, pattern, longest)
    if not m.found:
        return []
    assert m.i is not None and m.lbl is not None and m.sil is not None
    start = int(index.sa[m.i])
    stop = m.sil if limit is None else min(m.sil, m.lbl + limit)
    return [index.decode(index.tokens[start: start + n]) for n in range(m.lbl + 1, stop + 1)]


def _whole_chars(data: bytes) -> str:
    """UTF-8 cut at arbitrary bytes, without the partial characters at either end."""
    start = 0
    while start < len(data) and data[start] & 0xC0 == 0x80:
        start += 1
    return data[start:].decode("utf-8", errors="ignore") if start < len(data) else ""


def concordance(index: Shards, pattern: str, left: int = 10, right: int = 40,
                limit: int | None = None) -> list[dict[str, Any]]:
    """KWIC lines of every occurrence in suffix-array order (the slides' sufconc), at most `limit` of them.

    Over several shards the lines are merged in one global order, by document (doc_no) then offset; `rank` is
    the suffix-array rank within the line's shard (`shard_no` says which); every occurrence is located before
    the first `limit` are cut out.

    `left`/`right` and `offset` count tokens of the corpus's unit from the document's start (bytes, characters
    or words); byte contexts are trimmed to whole characters, word contexts are tokens joined by single spaces.
    """
    if left < 0 or right < 0 or (limit is not None and limit < 0):
        raise InputError("context sizes and `limit` must be 0 or more", params=("limit",))
    shards = as_shards(index)
    if len(shards) > 1:
        _, _, matches = find_in_shards(shards, pattern)
        merged = [{**row, "shard_no": s.shard_no} for s, m in matches for row in _lines(s, m, left, right, None)]
        merged.sort(key=lambda r: (r["doc_no"], r["offset"]))
        return merged if limit is None else merged[:limit]
    return _lines(shards[0], find_class(shards[0], pattern), left, right, limit)


def _lines(index: LoadedIndex, m: ClassMatch, left: int, right: int, limit: int | None) -> list[dict[str, Any]]:
    """KWIC lines of one shard's occurrences of a class match, in suffix-array order (doc_no corpus-wide)."""
    if not m.found:
        return []
    assert m.i is not None and m.j is not None and m.ids is not None
    stop = m.j + 1 if limit is None else min(m.j + 1, m.i + limit)
    n = len(m.ids)
    positions = index.sa[m.i: stop].astype(np.int64)
    docs = np.searchsorted(index.doc_start, positions, side="right") - 1
    rows = []
    for rank, p, d in zip(range(m.i, stop), positions.tolist(), docs.tolist(), strict=True):
        begin = int(index.doc_start[d])
        end = begin + int(index.doc_len[d])
        lo, hi = max(begin, p - left), min(end, p + n + right)
        if index.unit is Unit.byte:
            before = _whole_chars(index.tokens[lo:p].tobytes())
            after = index.tokens[p + n: hi].tobytes().decode("utf-8", errors="ignore")
        else:
            before, after = index.decode(index.tokens[lo:p]), index.decode(index.tokens[p + n: hi])
        rows.append({"rank": rank, "doc": index.doc_names[d], "doc_no": index.first_doc + d, "offset": p - begin,
                     "left": before, "match": index.decode(index.tokens[p: p + n]), "right": after})
    return rows


def concordance_each(index: Shards, patterns: Iterable[str], left: int = 10, right: int = 40,
                     limit: int | None = None) -> Iterator[dict[str, Any]]:
    """concordance of a batch, lazily: each line of a good pattern led by its `pattern` (at most `limit` lines a
    pattern), an error_record for each bad pattern."""
    shards = as_shards(index)
    fields = ("pattern", *CONCORDANCE_FIELDS)
    for pattern, lines, error in answer_each(patterns, lambda p: concordance(shards, p, left, right, limit)):
        if lines is None:
            yield error_record(fields, pattern, error or "")
        else:
            yield from ({"pattern": pattern, **line} for line in lines)


DOCUMENT_FIELDS = ("doc", "doc_no", "tokens", "offset", "before", "match", "after")


def document(index: Shards, doc_no: int, offset: int = 0, pattern: str | None = None,
             limit: int | None = None) -> dict[str, Any]:
    """The text of document `doc_no` (numbered corpus-wide, as a concordance line's doc_no) split around the tokens
    of `pattern` at `offset` (a concordance line's match: before + match + after is the document, words joined by
    single spaces in a word corpus); with `limit`, at most that many tokens on either side of the match. InputError
    for a doc_no no shard holds."""
    shards = as_shards(index)
    length = 0 if not pattern else pattern_length(shards[0], pattern, longest_document(shards))
    for s in shards:
        d = doc_no - s.first_doc
        if 0 <= d < s.n_docs:
            begin, size = int(s.doc_start[d]), int(s.doc_len[d])
            lo = min(max(offset, 0), size)
            hi = min(lo + length, size)
            first = 0 if limit is None else max(0, lo - limit)
            last = size if limit is None else min(size, hi + limit)
            before, match, after = (s.decode(s.tokens[begin + a: begin + b]) for a, b in ((first, lo), (lo, hi),
                                                                                        (hi, last)))
            if s.unit is Unit.word:  # words are joined by single spaces, across the cuts too
                before += " " if before and (match or after) else ""
                after = (" " if after and match else "") + after
            return {"doc": s.doc_names[d], "doc_no": doc_no, "tokens": size, "offset": lo, "before": before,
                    "match": match, "after": after}
    raise InputError(f"no document number {doc_no} in this corpus", "a concordance line's doc_no names one",
                     ("doc_no",))
