"""TBL for word breaking: encoding spaced lines as boundary tags, training and applying a corrector."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termx.errors import InputError
from termx.tbl.segmentation import (
    TAG_NAMES,
    correct_segmentation,
    decode_lines,
    encode_lines,
    encode_pair,
    train_segmentation_corrector,
)

words = st.text(alphabet="abcé日\u0301", min_size=1, max_size=4)
lines = st.lists(st.lists(words, max_size=5).map(" ".join), max_size=4)


@settings(max_examples=200, deadline=None)
@given(lines)
def test_encode_decode_round_trip(text: list[str]) -> None:
    enc = encode_lines(text)
    assert enc.lengths.tolist() == [len("".join(t.split())) for t in text]
    assert decode_lines(enc.tokens, enc.tags, enc.lengths) == [" ".join(t.split()) for t in text]


def test_encoding() -> None:
    enc = encode_lines(["ab  c", "", " d "])
    assert "".join(map(chr, enc.tokens)) == "abcd"
    assert enc.tags.tolist() == [1, 0, 1, 1]
    assert enc.lengths.tolist() == [3, 0, 1]


def test_pair_must_share_text() -> None:
    gold, pred = encode_pair(["ab c"], ["a bc"])
    assert gold.tags.tolist() == [1, 0, 1] and pred.tags.tolist() == [1, 1, 0]
    with pytest.raises(InputError, match="line 2"):
        encode_pair(["ab", "cd"], ["ab", "c e"])
    with pytest.raises(InputError, match="lines"):
        encode_pair(["ab"], ["ab", "cd"])


GOLD = ["the cat sat on the mat", "the dog ate the hat", "a cat and the dog"] * 5
# A segmenter that glues "the" to the next word and splits "cat" as "c at".
PRED = [" ".join(s.replace("the ", "the").replace("cat", "c at").split()) for s in GOLD]


def test_corrector_fixes_segmenter_errors() -> None:
    model = train_segmentation_corrector(GOLD, PRED)
    assert model.accuracy_before < 1.0 and model.accuracy_after == 1.0
    assert model.tag_names == TAG_NAMES and model.token_kind == "char"
    assert correct_segmentation(model, PRED) == GOLD
    # Readable rules with characters and the boundary names.
    text = [model.describe(r) for r in model.rules]
    assert any("'" in t and ("· → |" in t or "| → ·" in t) for t in text)
    # New text with the same errors is corrected too.
    assert correct_segmentation(model, ["thecat sat", "thedog and c at"]) == ["the cat sat", "the dog and cat"]


def test_corrector_respects_max_rules() -> None:
    model = train_segmentation_corrector(GOLD, PRED, max_rules=1)
    assert len(model.rules) == 1
    assert model.accuracy_before < model.accuracy_after < 1.0


def test_correct_needs_a_segmentation_model() -> None:
    from termx.tbl import learn

    model = learn(np.array([1, 2, 3]), [0, 1, 2], [0, 0, 2])
    with pytest.raises(InputError, match="word breaking"):
        correct_segmentation(model, ["abc"])
