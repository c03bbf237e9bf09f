"""The nested-term discount of C-value (Frantzi, Ananiadou & Mima 2000), applied to the ranked candidates.

A candidate a that occurs inside longer candidates owes part of its frequency to them ("wind turbine" inside
"wind turbine blade"). With T_a the set of candidates (after the same filters) that contain a as a run of whole
tokens and are longer than it, the discounted frequency is

    f'(a) = freq(a) - (1 / |T_a|) * sum over b in T_a of freq(b)      (f'(a) = freq(a) when T_a is empty)

and C-value itself is log2(len(a) + 1) * f'(a): the length weight is log2 of len + 1 so that single tokens
(len 1) are not weighted 0 (the single-word variant of Barrón-Cedeño et al. 2009).

`termx terms --nested` replaces freq by f' in the score of `--rank freq` (score f') and `--rank specificity`
(score ln[(f'/N) / ((ref_freq + 1)/N_ref)] * ln f', with f' floored at 1 so that a candidate whose occurrences
all lie inside longer ones scores 0, like a string as frequent in general text as here). `--rank cvalue` ranks by
C-value. The rows keep their freq; ties go as in SQL: score, then freq, descending, then term in C collation.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import Any

from termx.defaults import Unit
from termx.index.units import split_words

NESTED_RANKS = ("freq", "specificity", "cvalue")
"""The rankings whose score uses freq, and so can take the discount (cvalue always does)."""


def token_run(term: str, unit: Unit | str) -> tuple[Hashable, ...]:
    """A term as the tokens its corpus counts in: bytes of its UTF-8, characters, or words (as indexed)."""
    unit = Unit(unit)
    if unit is Unit.byte:
        return tuple(term.encode("utf-8"))
    if unit is Unit.char:
        return tuple(term)
    return tuple(split_words(term))


def nested_freq(terms: Sequence[str], freqs: Sequence[int], unit: Unit | str) -> list[float]:
    """f'(a) of each candidate (see the module): its freq minus the mean freq of the longer candidates of
    `terms` that contain it as a run of whole tokens. Candidates that spell alike are each contained by the
    same longer ones; a longer candidate counts once however often it contains a."""
    runs = [token_run(t, unit) for t in terms]
    where: dict[tuple[Hashable, ...], list[int]] = defaultdict(list)
    for n, run in enumerate(runs):
        where[run].append(n)
    lengths = {len(run) for run in where}
    total = [0.0] * len(runs)
    count = [0] * len(runs)
    for n, run in enumerate(runs):
        size = len(run)
        inner: set[tuple[Hashable, ...]] = set()
        for width in lengths:
            if width < size:
                inner.update(run[a:a + width] for a in range(size - width + 1))
        for sub in inner:
            for m in where.get(sub, ()):
                total[m] += freqs[n]
                count[m] += 1
    return [float(f) - (total[n] / count[n] if count[n] else 0.0) for n, f in enumerate(freqs)]


def cvalue(length: int, discounted: float) -> float:
    """C-value of a candidate of `length` tokens with discounted frequency f'."""
    return math.log2(length + 1) * discounted


def rerank(rows: list[dict[str, Any]], rank: str, unit: Unit | str, nested: bool, tokens: int,
           ref_tokens: int | None, top: int, discounted: Sequence[float] | None = None) -> list[dict[str, Any]]:
    """Rescore every candidate row (as the ranking query returned them, best first) by `rank` with or without
    the discount, and return the `top` best, renumbered. `discounted`: the rows' f', when already known."""
    freqs = [int(r["freq"]) for r in rows]
    if not nested:
        f = [float(x) for x in freqs]
    else:
        f = list(discounted) if discounted is not None else nested_freq([r["term"] for r in rows], freqs, unit)
    scored = []
    for n, (row, g) in enumerate(zip(rows, f, strict=True)):
        if rank == "cvalue":
            score = cvalue(int(row["len"]), g)
        elif rank == "freq":
            score = g
        else:
            g = max(g, 1.0)
            assert ref_tokens is not None
            score = math.log((g / tokens) / ((row["ref_freq"] + 1.0) / ref_tokens)) * math.log(g)
        scored.append((-score, -row["freq"], row["term"].encode("utf-8"), n, score))
    scored.sort()
    out = []
    for rank_no, (*_, n, score) in enumerate(scored[:top], start=1):
        out.append({**rows[n], "rank": rank_no, "score": score})
    return out
