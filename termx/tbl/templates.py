"""TBL templates as data: one line per template, e.g. `prev_tag  tag[-1]` (seed fig. 5.20/5.22)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from termx.errors import InputError
from termx.line_reader import split_lines

Feature = Literal["tag", "tok"]

# One line per template: a name, then one or more conditions that must all hold.
# `tag[-1]` = the previous tag is z; `tag[-2..-1]` = one of the previous 2 tags is z;
# `tok[0]` = the current token is x; `tag[-1] tok[0]` = both. Offsets are relative to
# the position whose tag changes; the current tag itself is the rule's from-tag.
DEFAULT_TEMPLATE_TEXT = """
prev_tag           tag[-1]
next_tag           tag[+1]
prev_tag_2         tag[-2]
next_tag_2         tag[+2]
prev_tags_any2     tag[-2..-1]
next_tags_any2     tag[+1..+2]
prev_tags_any3     tag[-3..-1]
next_tags_any3     tag[+1..+3]
surrounding_tags   tag[-1] tag[+1]
prev_two_tags      tag[-2] tag[-1]
next_two_tags      tag[+1] tag[+2]
cur_tok            tok[0]
prev_tok           tok[-1]
next_tok           tok[+1]
prev_toks_any2     tok[-2..-1]
next_toks_any2     tok[+1..+2]
prev_cur_tok       tok[-1] tok[0]
cur_next_tok       tok[0] tok[+1]
prev2_prev_tok     tok[-2] tok[-1]
cur_tok_prev_tag   tok[0] tag[-1]
cur_tok_next_tag   tok[0] tag[+1]
prev_tok_prev_tag  tok[-1] tag[-1]
next_tok_next_tag  tok[+1] tag[+1]
"""

# Word breaking: character n-gram contexts around the boundary before tok[0], 3 to 8 characters wide with
# 2 to 4 on each side (tok[-1] is the character before the boundary), then two of them with the neighbouring
# boundary tags (is the previous / next character a word start?).
CHARS4_TEMPLATE_TEXT = """
chars_2_1          tok[-2] tok[-1] tok[0]
chars_1_2          tok[-1] tok[0] tok[+1]
chars_2_2          tok[-2] tok[-1] tok[0] tok[+1]
chars_3_1          tok[-3] tok[-2] tok[-1] tok[0]
chars_1_3          tok[-1] tok[0] tok[+1] tok[+2]
"""
CHARS8_TEMPLATE_TEXT = """
chars_3_2          tok[-3] tok[-2] tok[-1] tok[0] tok[+1]
chars_2_3          tok[-2] tok[-1] tok[0] tok[+1] tok[+2]
chars_3_3          tok[-3] tok[-2] tok[-1] tok[0] tok[+1] tok[+2]
chars_4_3          tok[-4] tok[-3] tok[-2] tok[-1] tok[0] tok[+1] tok[+2]
chars_3_4          tok[-3] tok[-2] tok[-1] tok[0] tok[+1] tok[+2] tok[+3]
chars_4_4          tok[-4] tok[-3] tok[-2] tok[-1] tok[0] tok[+1] tok[+2] tok[+3]
"""
CHARS_TAGS_TEMPLATE_TEXT = """
chars_1_1_prev_tag tok[-1] tok[0] tag[-1]
chars_1_1_next_tag tok[-1] tok[0] tag[+1]
chars_2_1_prev_tag tok[-2] tok[-1] tok[0] tag[-1]
chars_1_2_next_tag tok[-1] tok[0] tok[+1] tag[+1]
"""

_COND = re.compile(r"^(tag|tok)\[([+-]?\d+)(?:\.\.([+-]?\d+))?\]$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Condition:
    """`feature` (tag or token) at one of `offsets` (relative positions) equals the rule's argument."""

    feature: Feature
    offsets: tuple[int, ...]

    @property
    def spec(self) -> str:
        """The condition in template syntax, e.g. `tag[-2..-1]`."""
        lo, hi = (f"{o:+d}" if o else "0" for o in (self.offsets[0], self.offsets[-1]))
        return f"{self.feature}[{lo}]" if lo == hi else f"{self.feature}[{lo}..{hi}]"

    def describe(self, value: str) -> str:
        """Readable form, as in the seed's fig. 5.22: 'one of the previous 2 tags is DT'."""
        noun = "tag" if self.feature == "tag" else "token"
        lo, hi = self.offsets[0], self.offsets[-1]
        if lo == hi:
            where = {0: "current", -1: "previous", 1: "next"}.get(lo)
            if where:
                return f"{where} {noun} is {value}"
            return f"{noun} {abs(lo)} {'before' if lo < 0 else 'after'} is {value}"
        side = "previous" if hi < 0 else "next"
        return f"one of the {side} {len(self.offsets)} {noun}s is {value}"


@dataclass(frozen=True)
class Template:
    """A named conjunction of conditions; a rule fills in from-tag, to-tag and one value per condition."""

    name: str
    conditions: tuple[Condition, ...]

    @property
    def spec(self) -> str:
        """The template as one line of template text."""
        return f"{self.name} " + " ".join(c.spec for c in self.conditions)

    @property
    def window(self) -> int:
        """Largest |offset| of a tag condition: how far a tag change reaches other positions' rules."""
        return max((abs(o) for c in self.conditions if c.feature == "tag" for o in c.offsets), default=0)


def _parse_condition(text: str, line: str) -> Condition:
    m = _COND.match(text)
    if not m:
        raise InputError(f"bad template condition {text!r} in {line!r}",
                         hint="write tag[-1], tok[0] or tag[-3..-1]")
    lo = int(m.group(2))
    hi = int(m.group(3)) if m.group(3) is not None else lo
    if hi < lo or (lo < 0 < hi):
        raise InputError(f"bad offset range in {text!r}", hint="a range lies on one side: tag[-3..-1]")
    feature: Feature = "tag" if m.group(1) == "tag" else "tok"
    if feature == "tag" and lo <= 0 <= hi:
        raise InputError(f"{text!r} looks at the current tag",
                         hint="the current tag is the rule's from-tag; use another offset")
    return Condition(feature, tuple(range(lo, hi + 1)))


def parse_templates(text: str) -> tuple[Template, ...]:
    """Parse template lines (`name cond cond ...`; blank lines and `#` comments ignored)."""
    out: list[Template] = []
    for raw in split_lines(text):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, *conds = line.split()
        if not _NAME.match(name) or not conds:
            raise InputError(f"bad template line {line!r}", hint="write: name tag[-1] tok[0]")
        out.append(Template(name, tuple(_parse_condition(c, line) for c in conds)))
    names = [t.name for t in out]
    if len(set(names)) != len(names):
        raise InputError("duplicate template names", hint=", ".join(sorted(names)))
    return tuple(out)


DEFAULT_TEMPLATES: tuple[Template, ...] = parse_templates(DEFAULT_TEMPLATE_TEXT)
TEMPLATE_SETS: dict[str, tuple[Template, ...]] = {
    "brill": DEFAULT_TEMPLATES,
    "chars4": parse_templates(DEFAULT_TEMPLATE_TEXT + CHARS4_TEMPLATE_TEXT),
    "chars4_tags": parse_templates(DEFAULT_TEMPLATE_TEXT + CHARS4_TEMPLATE_TEXT + CHARS_TAGS_TEMPLATE_TEXT),
    "chars8": parse_templates(DEFAULT_TEMPLATE_TEXT + CHARS4_TEMPLATE_TEXT + CHARS8_TEMPLATE_TEXT),
    "chars8_tags": parse_templates(DEFAULT_TEMPLATE_TEXT + CHARS4_TEMPLATE_TEXT + CHARS8_TEMPLATE_TEXT
                                   + CHARS_TAGS_TEMPLATE_TEXT),
}
"""Built-in template sets, each extending Brill's 23 (`brill`); `bench/tune_whitespace_tbl.py` chooses among them."""


def template_set(name: str) -> tuple[Template, ...]:
    """The built-in template set called `name` (a key of TEMPLATE_SETS)."""
    if name not in TEMPLATE_SETS:
        raise InputError(f"unknown template set {name!r}", hint="known: " + ", ".join(TEMPLATE_SETS))
    return TEMPLATE_SETS[name]


def select_templates(names: Iterable[str], available: tuple[Template, ...] = DEFAULT_TEMPLATES
                     ) -> tuple[Template, ...]:
    """The templates called `names`, in the order of `available` (that order breaks ties)."""
    wanted = set(names)
    unknown = wanted - {t.name for t in available}
    if unknown:
        raise InputError(f"unknown template(s): {', '.join(sorted(unknown))}",
                         hint="known: " + ", ".join(t.name for t in available))
    return tuple(t for t in available if t.name in wanted)
