"""Brill's learner: against a plain reference learner, on synthetic rule-generated data, and apply."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from termx.errors import InputError
from termx.tbl import DEFAULT_TEMPLATES, Rule, Template, apply, learn, parse_templates
from termx.tbl.templates import TEMPLATE_SETS

ALL_TEMPLATES = TEMPLATE_SETS["chars8_tags"]

# ---------------------------------------------------------------------------------------------
# A simple, slow reference learner: every candidate rule, scored by applying it everywhere.


def ref_applies(tmpl: Template, args: tuple[int, ...], frm: int, toks: list[int], tags: list[int],
                lo: list[int], hi: list[int], q: int) -> bool:
    if tags[q] != frm:
        return False
    for cond, v in zip(tmpl.conditions, args, strict=True):
        feats = tags if cond.feature == "tag" else toks
        if not any(lo[q] <= q + o < hi[q] and feats[q + o] == v for o in cond.offsets):
            return False
    return True


Learned = list[tuple[str, int, int, tuple[int, ...], int, int]]


def ref_learn(templates: tuple[Template, ...], toks: list[int], gold: list[int], tags: list[int],
              lengths: list[int], n_tags: int, min_score: int) -> Learned:
    lo: list[int] = []
    hi: list[int] = []
    start = 0
    for n in lengths:
        lo += [start] * n
        hi += [start + n] * n
        start += n
    tags = list(tags)
    learned = []
    while True:
        candidates = set()
        for ti, tmpl in enumerate(templates):
            for q in range(len(toks)):
                value_sets = []
                for cond in tmpl.conditions:
                    feats = tags if cond.feature == "tag" else toks
                    value_sets.append({feats[q + o] for o in cond.offsets if lo[q] <= q + o < hi[q]})
                combos: list[tuple[int, ...]] = [()]
                for vs in value_sets:
                    combos = [c + (v,) for c in combos for v in sorted(vs)]
                for to in range(n_tags):
                    if to != tags[q]:
                        candidates.update((ti, tags[q], to, c) for c in combos)
        best = None
        for ti, frm, to, args in candidates:
            hits = [q for q in range(len(toks))
                    if ref_applies(templates[ti], args, frm, toks, tags, lo, hi, q)]
            good = sum(gold[q] == to for q in hits)
            bad = sum(gold[q] == tags[q] for q in hits)
            order = (-(good - bad), bad, ti, frm, to, args)
            if best is None or order < best[0]:
                best = (order, ti, frm, to, args, good, bad, hits)
        if best is None or best[5] - best[6] < min_score:
            return learned
        _, ti, frm, to, args, good, bad, hits = best
        for q in hits:
            tags[q] = to
        learned.append((templates[ti].name, frm, to, args, good, bad))


def as_tuples(rules: tuple[Rule, ...]) -> Learned:
    return [(r.template.name, r.from_tag, r.to_tag, r.args, r.good, r.bad) for r in rules]


@st.composite
def tagged_data(draw: st.DrawFn) -> tuple[list[int], list[int], list[int], list[int], int]:
    n_tags = draw(st.integers(2, 3))
    lengths = draw(st.lists(st.integers(0, 9), min_size=1, max_size=3))
    n = sum(lengths)
    toks = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    gold = draw(st.lists(st.integers(0, n_tags - 1), min_size=n, max_size=n))
    init = draw(st.lists(st.integers(0, n_tags - 1), min_size=n, max_size=n))
    return toks, gold, init, lengths, n_tags


@pytest.mark.parametrize("template", ALL_TEMPLATES, ids=lambda t: t.name)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tagged_data(), min_score=st.integers(1, 2))
def test_each_template_matches_reference(template: Template, data, min_score: int) -> None:
    toks, gold, init, lengths, n_tags = data
    model = learn(toks, gold, init, lengths, templates=(template,), min_score=min_score, n_tags=n_tags)
    assert as_tuples(model.rules) == ref_learn((template,), toks, gold, init, lengths, n_tags, min_score)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tagged_data(), min_score=st.integers(1, 3))
def test_all_templates_together_match_reference(data, min_score: int) -> None:
    toks, gold, init, lengths, n_tags = data
    model = learn(toks, gold, init, lengths, min_score=min_score, n_tags=n_tags)
    expected_rules = ref_learn(DEFAULT_TEMPLATES, toks, gold, init, lengths, n_tags, min_score)
    assert as_tuples(model.rules) == expected_rules
    after = apply(model.rules, toks, init, lengths)
    expected = float(np.mean(after == np.asarray(gold))) if toks else 1.0
    assert model.accuracy_after == pytest.approx(expected)
    gain = round((model.accuracy_after - model.accuracy_before) * len(toks))
    assert sum(r.score for r in model.rules) == gain


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tagged_data(), picks=st.sets(st.sampled_from(ALL_TEMPLATES), min_size=2, max_size=4))
def test_template_subsets_match_reference(data, picks: set[Template]) -> None:
    # Mixed windows exercise the incremental rescoring of only the templates that read a changed tag.
    toks, gold, init, lengths, n_tags = data
    chosen = tuple(t for t in ALL_TEMPLATES if t in picks)
    model = learn(toks, gold, init, lengths, templates=chosen, min_score=1, n_tags=n_tags)
    assert as_tuples(model.rules) == ref_learn(chosen, toks, gold, init, lengths, n_tags, 1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tagged_data(), picks=st.lists(st.tuples(st.sampled_from(ALL_TEMPLATES), st.integers(0, 2),
                                                    st.integers(0, 2), st.lists(st.integers(0, 3), min_size=8,
                                                                                max_size=8)),
                                          min_size=1, max_size=6))
def test_apply_matches_reference(data, picks) -> None:  # type: ignore[no-untyped-def]
    # apply() checks a rule with a one-offset token condition only where that token occurs; the reference checks
    # every position, all on the tags before the rule.
    toks, _, init, lengths, n_tags = data
    rules = [Rule(t, f % n_tags, g % n_tags, tuple(a[:len(t.conditions)])) for t, f, g, a in picks]
    starts = np.cumsum([0, *lengths[:-1]]).tolist()
    lo = [s for s, m in zip(starts, lengths, strict=True) for _ in range(m)]
    hi = [s + m for s, m in zip(starts, lengths, strict=True) for _ in range(m)]
    expected = list(init)
    for r in rules:
        hits = [q for q in range(len(toks)) if ref_applies(r.template, r.args, r.from_tag, toks, expected, lo, hi, q)]
        for q in hits:
            expected[q] = r.to_tag
    assert apply(rules, toks, init, lengths).tolist() == expected


# ---------------------------------------------------------------------------------------------
# Synthetic data generated by known rules from a noisy initial state.

T = {t.name: t for t in DEFAULT_TEMPLATES}
TRUE_RULES = (
    Rule(T["cur_tok"], 0, 1, (3,)),
    Rule(T["prev_tag"], 2, 0, (1,)),
    Rule(T["prev_cur_tok"], 0, 2, (5, 6)),
    Rule(T["surrounding_tags"], 1, 2, (2, 2)),
)


def synthetic(seed: int, n_seq: int = 400, length: int = 25
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    rng = np.random.default_rng(seed)
    lengths = [length] * n_seq
    toks = rng.integers(0, 8, n_seq * length)
    init = rng.choice(3, size=toks.size, p=[0.8, 0.1, 0.1])
    return toks, init, apply(TRUE_RULES, toks, init, lengths), lengths


def test_recovers_known_rules_and_reaches_full_accuracy() -> None:
    toks, init, gold, lengths = synthetic(0)
    model = learn(toks, gold, init, lengths, min_score=1)
    assert model.accuracy_before < 0.9
    assert model.accuracy_after == 1.0
    assert np.array_equal(apply(model.rules, toks, init, lengths), gold)
    assert [(r.template, r.from_tag, r.to_tag, r.args) for r in model.rules] == [
        (r.template, r.from_tag, r.to_tag, r.args) for r in TRUE_RULES]
    # In effect the same corrections: on fresh data the learned list does what the true list does.
    for seed in (1, 2):
        toks2, init2, gold2, lengths2 = synthetic(seed)
        assert np.array_equal(apply(model.rules, toks2, init2, lengths2), gold2)


def test_learning_is_deterministic() -> None:
    toks, init, gold, lengths = synthetic(3, n_seq=100)
    first = learn(toks, gold, init, lengths)
    assert first.rules
    for _ in range(2):
        assert learn(toks, gold, init, lengths).rules == first.rules


def test_scores_decrease_and_respect_limits() -> None:
    toks, init, gold, lengths = synthetic(4, n_seq=100)
    model = learn(toks, gold, init, lengths, min_score=3, max_rules=3)
    assert len(model.rules) == 3
    assert all(r.score >= 3 and r.score == r.good - r.bad for r in model.rules)
    assert model.accuracy_after > model.accuracy_before


def test_simultaneous_application() -> None:
    # 0 → 1 if the previous tag is 1: judged on the tags before the rule, so it does not cascade.
    rule = Rule(T["prev_tag"], 0, 1, (1,))
    assert apply([rule], [0] * 5, [1, 0, 0, 0, 0]).tolist() == [1, 1, 0, 0, 0]
    # Conditions never cross a sequence end.
    assert apply([rule], [0] * 4, [1, 0, 1, 0], [1, 3]).tolist() == [1, 0, 1, 1]


def test_readable_rules() -> None:
    tmpl = parse_templates("t tag[-3..-1] tok[+2]")[0]
    rule = Rule(tmpl, 0, 1, (2, 97))
    text = rule.describe(["NN", "VB", "MD"], chr)
    assert text == "NN → VB if one of the previous 3 tags is MD and token 2 after is a"
    text = Rule(T["surrounding_tags"], 1, 0, (0, 1)).describe()
    assert text == "1 → 0 if previous tag is 0 and next tag is 1"


@pytest.mark.parametrize("text, hint", [
    ("x tag[0]", "current tag"), ("x tig[-1]", "bad template condition"), ("x", "bad template line"),
    ("x tag[-1..+1]", "offset range"), ("x tag[-1]\nx tok[0]", "duplicate"),
])
def test_bad_templates(text: str, hint: str) -> None:
    with pytest.raises(InputError, match=hint):
        parse_templates(text)


def test_bad_inputs() -> None:
    with pytest.raises(InputError, match="one tag per token"):
        learn([1, 2], [0], [0, 0])
    with pytest.raises(InputError, match="lengths"):
        learn([1, 2], [0, 1], [0, 0], [3])
    with pytest.raises(InputError, match="min score"):
        learn([1, 2], [0, 1], [0, 0], min_score=0)
    with pytest.raises(InputError, match="only 2 tags"):
        learn([1, 2], [0, 2], [0, 0], n_tags=2)


def test_empty_input() -> None:
    model = learn([], [], [])
    assert model.rules == () and model.accuracy_after == 1.0


def test_template_text_round_trip() -> None:
    assert parse_templates("\n".join(t.spec for t in DEFAULT_TEMPLATES)) == DEFAULT_TEMPLATES
    for templates in TEMPLATE_SETS.values():
        assert templates[:len(DEFAULT_TEMPLATES)] == DEFAULT_TEMPLATES  # every set extends Brill's 23
        assert parse_templates("\n".join(t.spec for t in templates)) == templates
    assert parse_templates("# comment\n\nx tag[-3..-1]  # trailing\n")[0].conditions[0].offsets == (-3, -2, -1)


def test_more_than_64_templates_match_reference() -> None:
    # Templates past the 64th are outside the kernel's rescoring bit mask and always rescored.
    many = parse_templates("\n".join(f"t{i} tag[{-(i % 3) - 1}] tok[{i % 5 - 2}]" for i in range(66))
                           + "\nlast tag[+2]")
    rng = np.random.default_rng(5)
    toks = rng.integers(0, 3, 30).tolist()
    gold = rng.integers(0, 2, 30).tolist()
    init = rng.integers(0, 2, 30).tolist()
    model = learn(toks, gold, init, [12, 18], templates=many, min_score=1)
    assert as_tuples(model.rules) == ref_learn(many, toks, gold, init, [12, 18], 2, 1)
    assert model.rules
