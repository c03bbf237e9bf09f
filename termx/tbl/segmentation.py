"""TBL for word breaking: spaced lines ↔ characters with boundary tags; train and apply a corrector.

Each line is a sequence; token ids are Unicode code points; tag 1 (`|`) = a word starts at this
character, 0 (`·`) = it continues the previous word. A line's first character is always tagged 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from termx.defaults import TBL_MIN_SCORE
from termx.errors import InputError
from termx.progress import Progress
from termx.tbl.learner import Model, apply, learn
from termx.tbl.templates import DEFAULT_TEMPLATES, Template

NONE, BOUNDARY = 0, 1
TAG_NAMES = ("·", "|")


@dataclass(frozen=True)
class Encoded:
    """Lines as one token array (code points) with per-character tags and per-line lengths."""

    tokens: np.ndarray
    tags: np.ndarray
    lengths: np.ndarray


def encode_lines(lines: Sequence[str]) -> Encoded:
    """Spaced lines → de-spaced characters and boundary tags (any run of white space is one boundary)."""
    parts: list[np.ndarray] = []
    tags: list[np.ndarray] = []
    lengths = np.zeros(len(lines), np.int64)
    for i, line in enumerate(lines):
        words = line.split()
        text = "".join(words)
        lengths[i] = len(text)
        parts.append(np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64))
        t = np.zeros(len(text), np.int64)
        if words:
            t[np.cumsum([0] + [len(w) for w in words[:-1]])] = BOUNDARY
        tags.append(t)
    cat = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    return Encoded(cat, np.concatenate(tags) if tags else np.zeros(0, np.int64), lengths)


def decode_lines(tokens: np.ndarray, tags: np.ndarray, lengths: np.ndarray | Sequence[int]) -> list[str]:
    """Characters + boundary tags → spaced lines (a line's first tag is ignored: a word starts there)."""
    out: list[str] = []
    start = 0
    for n in np.asarray(lengths, dtype=np.int64).tolist():
        cuts = [j for j in range(1, n) if tags[start + j] == BOUNDARY]
        text = "".join(map(chr, tokens[start:start + n].tolist()))
        out.append(" ".join(text[a:b] for a, b in zip([0, *cuts], [*cuts, n], strict=True)))
        start += n
    return out


def encode_pair(gold_lines: Sequence[str], pred_lines: Sequence[str]) -> tuple[Encoded, Encoded]:
    """Encode gold and predicted segmentations of the same text; they must differ only in white space."""
    if len(gold_lines) != len(pred_lines):
        raise InputError(f"gold has {len(gold_lines)} lines, predicted has {len(pred_lines)}",
                         hint="one predicted line per gold line, in the same order")
    gold = encode_lines(gold_lines)
    pred = encode_lines(pred_lines)
    if not np.array_equal(gold.lengths, pred.lengths) or not np.array_equal(gold.tokens, pred.tokens):
        bad = next(i for i, (g, p) in enumerate(zip(gold_lines, pred_lines, strict=True))
                   if "".join(g.split()) != "".join(p.split()))
        raise InputError(f"line {bad + 1}: gold and predicted text differ beyond white space",
                         hint="the predicted segmentation must be the gold text with its spaces moved")
    return gold, pred


def train_segmentation_corrector(gold_lines: Sequence[str], pred_lines: Sequence[str], *,
                                 templates: Sequence[Template] = DEFAULT_TEMPLATES, min_score: int = TBL_MIN_SCORE,
                                 max_rules: int | None = None, progress: Progress | None = None) -> Model:
    """Learn rules that turn the segmenter's output `pred_lines` into the spaced `gold_lines` (the learner's
    stages reported to `progress`)."""
    gold, pred = encode_pair(gold_lines, pred_lines)
    if not gold.tokens.size:
        raise InputError("no text to train on", hint="GOLD and PRED hold no non-space characters")
    return learn(gold.tokens, gold.tags, pred.tags, gold.lengths, templates=templates, min_score=min_score,
                 max_rules=max_rules, n_tags=2, tag_names=TAG_NAMES, token_kind="char", progress=progress)


def correct_segmentation(model: Model, pred_lines: Sequence[str],
                         advance: Callable[[int], None] | None = None) -> list[str]:
    """Apply a segmentation corrector's rules to segmented lines; returns the corrected lines (`advance(1)` after
    each rule)."""
    if model.token_kind != "char" or model.n_tags != 2:
        raise InputError("this TBL model was not trained on word breaking",
                         hint="train it with `termx tbl train GOLD PRED`")
    pred = encode_lines(pred_lines)
    return decode_lines(pred.tokens, apply(model.rules, pred.tokens, pred.tags, pred.lengths, advance),
                        pred.lengths)


def bigram_baseline(tokens: np.ndarray, gold: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A supervised initial state: `|` iff the (previous character, character) pair starts a word more often
    than not in the gold tags; a line's first character is `|` (the benchmark's and its test's start)."""
    first = np.zeros(tokens.size, bool)
    first[(np.cumsum(lengths) - lengths)[lengths > 0]] = True
    prev = np.roll(tokens, 1)
    pairs: Counter[tuple[int, int]] = Counter()
    starts: Counter[tuple[int, int]] = Counter()
    for p, c, g, f in zip(prev.tolist(), tokens.tolist(), gold.tolist(), first.tolist(), strict=True):
        if not f:
            pairs[p, c] += 1
            starts[p, c] += g == BOUNDARY
    return np.array([BOUNDARY if f else int(2 * starts[p, c] > pairs[p, c])
                     for p, c, f in zip(prev.tolist(), tokens.tolist(), first.tolist(), strict=True)], np.int64)
