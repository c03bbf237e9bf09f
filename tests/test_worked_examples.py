"""The worked examples of docs/design.md, checked on the in-memory build and by brute force."""

from __future__ import annotations

from termx.index.build import build_shard
from termx.index.ingest import Document
from termx.index.units import Unit

from .oracle import brute_classes, df_k, substring_occurrences, token_lists


def _members(shard, k: int) -> set[str]:  # type: ignore[no-untyped-def]
    text = shard.tokens.tokens.tobytes()
    p = int(shard.sa[shard.classes.i[k]])
    lbl, sil = int(shard.classes.lbl[k]), int(shard.classes.sil[k])
    return {text[p:p + m].decode() for m in range(lbl + 1, sil + 1)}


def test_to_be_or_not_to_be() -> None:
    text = "to_be_or_not_to_be"
    occ = substring_occurrences(token_lists([text], Unit.byte))
    assert len(occ) == 150
    assert sum(1 for o in occ.values() if len(o) == 1) == 135
    assert sum(1 for o in occ.values() if len(o) > 1) == 15
    groups = brute_classes(token_lists([text], Unit.byte))
    assert len(groups) == 21 and sum(1 for g in groups if len(g) == 1) == 13

    shard = build_shard([Document("d", text)], Unit.byte)
    assert shard.trivial_classes == 13
    members = {frozenset(_members(shard, k)) for k in range(len(shard.classes))}
    assert members == {frozenset(s) for s in (
        {"_"}, {"o"}, {"t"}, {"to", "to_", "to_b", "to_be"}, {"o_", "o_b", "o_be"}, {"_b", "_be"}, {"b", "be"}, {"e"})}
    # the slides' intervals, in their 1-based numbering: Class(<6,7>) = {b, be}, Class(<17,18>) = {to ... to_be}
    by_members = {frozenset(_members(shard, k)): (int(shard.classes.i[k]) + 1, int(shard.classes.j[k]) + 1)
                  for k in range(len(shard.classes))}
    assert by_members[frozenset({"b", "be"})] == (6, 7)
    assert by_members[frozenset({"to", "to_", "to_b", "to_be"})] == (17, 18)
    assert by_members[frozenset({"o"})] == (11, 14)


def test_hi_ho_df_k_table() -> None:
    texts = ["Hi_Ho_Hi_Ho", "Hi_Ho", "Hi"]
    shard = build_shard([Document(str(n), t) for n, t in enumerate(texts)], Unit.byte, max_k=3)
    want = {"H": (7, [3, 2, 1]), "Hi": (4, [3, 1, 0]), "Ho": (3, [2, 1, 0]), "Hi_Ho": (3, [2, 1, 0]),
            "_": (4, [2, 1, 1])}
    occ = substring_occurrences(token_lists(texts, Unit.byte))
    got = {}
    for k in range(len(shard.classes)):
        freq = int(shard.classes.j[k] - shard.classes.i[k] + 1)
        for m in _members(shard, k):
            got[m] = (freq, shard.df[k].tolist())
    for s, expected in want.items():
        assert got[s] == expected
        assert (len(occ[tuple(s.encode())]), df_k(occ[tuple(s.encode())], 3)) == expected


def test_walk_order_is_j_ascending_then_i_descending() -> None:
    shard = build_shard([Document("d", "abracadabra_abracadabra")], Unit.byte)
    keys = list(zip(shard.classes.j.tolist(), (-shard.classes.i).tolist(), strict=True))
    assert keys == sorted(keys)
