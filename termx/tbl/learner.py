"""Brill's transformation-based learner (seed fig. 5.21), made fast the fnTBL way.

Semantics, shared by `learn`, `apply` and the reference learner in the tests:
- Positions are grouped into sequences (`lengths`); a condition never looks across a sequence
  end, and an out-of-range offset simply does not match (as in NLTK).
- A rule `f → g if C` is applied *simultaneously*: every position whose tag is f and where C
  holds on the tags before the rule is found first, then all of them change to g.
- Score = good (errors fixed) − bad (correct tags broken). The best rule has the highest score,
  then the fewest bad, then the earliest template, then the smallest from-tag, to-tag and
  arguments (lexicographic, token ids compared as numbers). Learning stops below `min_score`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from termx.errors import InputError
from termx.progress import Progress, Silent
from termx.tbl._kernels import learn_rules, new_tables, rule_positions, rule_positions_among, score_positions
from termx.tbl.templates import DEFAULT_TEMPLATES, Template

TokenName = Callable[[int], str]
SCORE_CHUNK = 1 << 16
"""Positions scored per kernel call before learning starts (the progress bar's step)."""


@dataclass(frozen=True)
class Rule:
    """`from_tag → to_tag if <template's conditions with args>`, with its training score = good − bad."""

    template: Template
    from_tag: int
    to_tag: int
    args: tuple[int, ...]
    score: int = 0
    good: int = 0
    bad: int = 0

    def describe(self, tag_names: Sequence[str] | None = None, token_name: TokenName | None = None) -> str:
        """Readable form as in the seed's fig. 5.22, e.g. `· → | if previous tag is |`."""
        def tag(t: int) -> str:
            return tag_names[t] if tag_names is not None and 0 <= t < len(tag_names) else str(t)

        def tok(x: int) -> str:
            return token_name(x) if token_name is not None else str(x)

        conds = " and ".join(c.describe(tag(v) if c.feature == "tag" else tok(v))
                             for c, v in zip(self.template.conditions, self.args, strict=True))
        return f"{tag(self.from_tag)} → {tag(self.to_tag)} if {conds}"


@dataclass(frozen=True)
class Model:
    """An ordered rule list plus what is needed to apply and print it."""

    rules: tuple[Rule, ...]
    templates: tuple[Template, ...]
    n_tags: int
    tag_names: tuple[str, ...] | None = None
    token_kind: str = "id"  # "char": token ids are Unicode code points
    min_score: int = 2
    n_positions: int = 0
    accuracy_before: float = float("nan")
    accuracy_after: float = float("nan")

    def token_name(self, x: int) -> str:
        """How a token id prints in rules: a quoted character for char models, the id otherwise."""
        return repr(chr(x)) if self.token_kind == "char" else str(x)

    def describe(self, rule: Rule) -> str:
        """A rule of this model in readable form, with this model's tag and token names."""
        return rule.describe(self.tag_names, self.token_name)


def _bounds(n: int, lengths: Sequence[int] | np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Per position, the start and end (exclusive) of its sequence."""
    if lengths is None:
        return np.zeros(n, np.int64), np.full(n, n, np.int64)
    lens = np.asarray(lengths, dtype=np.int64)
    if lens.ndim != 1 or (lens < 0).any() or int(lens.sum()) != n:
        raise InputError(f"sequence lengths do not add up to {n} positions",
                         hint="lengths must be non-negative and sum to the number of tokens")
    ends = np.cumsum(lens)
    starts = ends - lens
    return np.repeat(starts, lens), np.repeat(ends, lens)


def _as_tags(a: np.ndarray | Sequence[int], n: int, what: str) -> np.ndarray:
    arr = np.asarray(a, dtype=np.int64)
    if arr.shape != (n,):
        raise InputError(f"{what} has {arr.size} entries, tokens have {n}", hint="one tag per token")
    if n and arr.min() < 0:
        raise InputError(f"{what} has negative tags", hint="tags are small non-negative integers")
    return arr


def _condition_arrays(templates: Sequence[Template]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Templates as padded arrays: #conditions, feature (0 tag, 1 token), #offsets, offsets."""
    k = len(templates)
    maxc = max(len(t.conditions) for t in templates)
    maxo = max(len(c.offsets) for t in templates for c in t.conditions)
    ncond = np.zeros(k, np.int64)
    feat = np.zeros((k, maxc), np.int64)
    noff = np.zeros((k, maxc), np.int64)
    off = np.zeros((k, maxc, maxo), np.int64)
    for i, t in enumerate(templates):
        ncond[i] = len(t.conditions)
        for j, c in enumerate(t.conditions):
            feat[i, j] = 0 if c.feature == "tag" else 1
            noff[i, j] = len(c.offsets)
            off[i, j, : len(c.offsets)] = c.offsets
    return ncond, feat, noff, off


def rule_keys_fit(templates: Sequence[Template], n_tags: int, n_tokens: int) -> bool:
    """Whether every rule of `templates` over `n_tags` tags and `n_tokens` distinct tokens gets a 64-bit key."""
    total = 0
    for t in templates:
        r = 1
        for c in t.conditions:
            r *= n_tags if c.feature == "tag" else max(n_tokens, 1)
        total += n_tags * n_tags * r
    return total < 2**62


def learn(tokens: np.ndarray | Sequence[int], gold: np.ndarray | Sequence[int],
          initial: np.ndarray | Sequence[int], lengths: Sequence[int] | np.ndarray | None = None, *,
          templates: Sequence[Template] = DEFAULT_TEMPLATES, min_score: int = 2, max_rules: int | None = None,
          n_tags: int | None = None, tag_names: Sequence[str] | None = None, token_kind: str = "id",
          progress: Progress | None = None) -> Model:
    """Learn an ordered rule list that turns `initial` tags into `gold` tags (greedy, fnTBL-style), reporting
    the positions scored and then each rule learnt to `progress`."""
    toks = np.asarray(tokens, dtype=np.int64)
    if toks.ndim != 1:
        raise InputError("tokens must be a flat sequence of ids")
    n = toks.shape[0]
    g = _as_tags(gold, n, "gold")
    cur = _as_tags(initial, n, "initial").copy()
    lo, hi = _bounds(n, lengths)
    if min_score < 1:
        raise InputError(f"min score {min_score} < 1", hint="a rule must fix more errors than it makes")
    if not templates:
        raise InputError("no templates given")
    if n and toks.min() < 0:
        raise InputError("token ids must be non-negative")
    seen = int(max(g.max(), cur.max())) + 1 if n else 1
    T = n_tags if n_tags is not None else (len(tag_names) if tag_names is not None else max(seen, 2))
    if seen > T:
        raise InputError(f"a tag is {seen - 1} but there are only {T} tags", hint="raise n_tags")
    vocab, dense = np.unique(toks, return_inverse=True)
    dense = dense.astype(np.int64).reshape(-1)
    V = max(len(vocab), 1)

    ncond, feat, noff, off = _condition_arrays(templates)
    radix = np.where(feat == 0, T, V).astype(np.int64)
    mult = np.ones_like(radix)
    R = np.ones(len(templates), np.int64)
    base = np.zeros(len(templates), np.int64)
    total = 0
    for i, t in enumerate(templates):
        r = 1
        for j in reversed(range(len(t.conditions))):
            mult[i, j] = r
            r *= int(radix[i, j])
        R[i] = r
        base[i] = total
        total += T * T * r
        if total >= 2**62:
            raise InputError("too many distinct rules to number them in 64 bits",
                             hint="use fewer token conditions per template or fewer distinct tokens")
    window = max(t.window for t in templates)
    # Which templates must be rescored at q when the tag at q + d changed (d = 0: all of them).
    delta_mask = np.zeros(2 * window + 1, np.uint64)
    delta_mask[window] = ~np.uint64(0)
    for i, t in enumerate(templates):
        bit = np.uint64(1) << np.uint64(i) if i < 64 else ~np.uint64(0)  # the kernel masks 64 templates
        for c in t.conditions:
            if c.feature == "tag":
                for o in c.offsets:
                    delta_mask[o + window] |= bit
    progress = progress or Silent()
    tables = new_tables()
    progress.start("tbl: score positions", n)
    for q0 in range(0, n, SCORE_CHUNK):
        q1 = min(n, q0 + SCORE_CHUNK)
        tables = score_positions(q0, q1, cur, g, dense, lo, hi, T, ncond, feat, noff, off, mult, R, base,
                                          tables)
        progress.advance(q1 - q0)
    progress.finish()
    limit = max_rules if max_rules is not None else n + 1
    progress.start("tbl: learn rules", max_rules)  # the number of rules is known only with max_rules
    keys: list[int] = []
    goods: list[int] = []
    bads: list[int] = []
    argl: list[np.ndarray] = []
    mark, aff = np.zeros(n, np.uint64), np.empty(n, np.int64)
    while len(keys) < limit:  # one rule a call: progress per rule, at a negligible cost next to a rule's search
        k, gd, bd, ar, tables = learn_rules(cur, g, dense, lo, hi, T, ncond, feat, noff, off, mult, radix,
                                                     R, base, window, delta_mask, min_score, 1, tables, mark, aff)
        if not k:
            break
        keys += k
        goods += gd
        bads += bd
        argl += ar
        progress.advance(1)
    progress.finish()
    rules = []
    for key, good, bad, a in zip(keys, goods, bads, argl, strict=True):
        ti = int(np.searchsorted(base, key, side="right")) - 1
        rem = int(key) - int(base[ti])
        ft = rem // int(R[ti])
        tmpl = templates[ti]
        args = tuple(int(a[j]) if c.feature == "tag" else int(vocab[a[j]])
                     for j, c in enumerate(tmpl.conditions))
        rules.append(Rule(tmpl, ft // T, ft % T, args, int(good) - int(bad), int(good), int(bad)))
    init_acc = float(np.mean(np.asarray(initial, dtype=np.int64) == g)) if n else 1.0
    return Model(tuple(rules), tuple(templates), T, tuple(tag_names) if tag_names is not None else None,
                 token_kind, min_score, n, init_acc, float(np.mean(cur == g)) if n else 1.0)


def apply(rules: Sequence[Rule], tokens: np.ndarray | Sequence[int], tags: np.ndarray | Sequence[int],
          lengths: Sequence[int] | np.ndarray | None = None, advance: Callable[[int], None] | None = None
          ) -> np.ndarray:
    """Run `rules` in order over `tags` (a new array is returned), each applied simultaneously; `advance(1)`
    after each rule (a progress bar's total: the rules).

    A rule with a one-offset token condition `tok[o] = x` is only checked where x occurs (shifted by o): the
    positions of each token are indexed once, so a rule costs the occurrences of its token, not the text."""
    toks = np.asarray(tokens, dtype=np.int64)
    n = toks.shape[0]
    out = _as_tags(tags, n, "tags").copy()
    lo, hi = _bounds(n, lengths)
    by_token = np.argsort(toks, kind="stable")
    sorted_toks = toks[by_token]
    arrays: dict[Template, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
    for r in rules:
        if r.template not in arrays:
            arrays[r.template] = _condition_arrays([r.template])
        ncond, feat, noff, off = arrays[r.template]
        args = np.asarray(r.args, dtype=np.int64)
        anchor = next(((c.offsets[0], v) for c, v in zip(r.template.conditions, r.args, strict=True)
                       if c.feature == "tok" and len(c.offsets) == 1), None)
        if anchor is None:
            pos = rule_positions(out, toks, lo, hi, r.from_tag, ncond[0], feat[0], noff[0], off[0], args)
        else:
            o, v = anchor
            at = by_token[np.searchsorted(sorted_toks, v, "left"):np.searchsorted(sorted_toks, v, "right")] - o
            cand = at[(at >= 0) & (at < n)]
            pos = rule_positions_among(cand, out, toks, lo, hi, r.from_tag, ncond[0], feat[0], noff[0],
                                                off[0], args)
        out[pos] = r.to_tag
        if advance is not None:
            advance(1)
    return out
