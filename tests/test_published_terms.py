"""The published ACTER term-extraction figures (docs/figures.md, records `terms-acter-*` of
bench/published_terms.py), recomputed on the real data: for each of the three split seeds, bench/tune_terms.py's
grid chooses the recorded flags on that seed's development files, and those flags and the frequency baseline score
the recorded F1 on its test files.

These are development figures (docs/evaluation.md, "The protocol"; each record says why).

Slow (indexes Reuters-21578 and the man pages as references and ACTER eight ways, then ranks the whole grid once
for all seeds: ~2-5 min); skipped when the shared data is absent (found as bench/_data.py finds it: $TERMX_DATA,
else ../shared/data next to the repository), failed instead under TERMX_REQUIRE_DATA=1 (CI).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

pytestmark = pytest.mark.slow

TOLERANCE = 0.00005  # docs/figures.md prints 4 decimals (the README 3) and the pipeline is deterministic


def test_each_seed_chooses_the_recorded_flags_and_scores_the_recorded_f1(  # type: ignore[no-untyped-def]
        engine, shared_data: Callable[..., Path]) -> None:
    shared_data("en/acter", "en/reuters21578.jsonl", "en/manpages.jsonl")
    import tune_terms

    records = {d: json.loads((BENCH / "published" / f"terms-acter-{d}-f1.json").read_text(encoding="utf-8"))
               for d in tune_terms.DOMAINS}
    baselines = {d: json.loads((BENCH / "published" / f"terms-acter-{d}-freq-f1.json").read_text(encoding="utf-8"))
                 for d in tune_terms.DOMAINS}
    lists, cands = tune_terms.ranked_lists(engine)
    seeds = records["corp"]["seeds"]
    assert len(seeds) >= 3 and all(records[d]["seeds"] == seeds == baselines[d]["seeds"] for d in tune_terms.DOMAINS)
    for n, seed in enumerate(seeds):
        found = tune_terms.choose(lists, cands, seed)
        base, nested = tune_terms.split_rank(found.chosen[3])
        rank, ref = tune_terms.flags(base)
        recorded = records["corp"]["chosen_per_seed"][n]
        assert (found.chosen[0], found.chosen[1], found.chosen[2], rank, ref, nested) == (
            recorded["documents"], recorded["case"], recorded["min_df"], recorded["rank"], recorded["reference"],
            recorded["nested"])
        for d in tune_terms.DOMAINS:
            test = found.split[d][1]
            f1, _ = tune_terms.f1_list(lists[(d, *found.chosen)], test)
            assert f1 == pytest.approx(records[d]["per_seed"][n], abs=TOLERANCE), (seed, d, f1)
            base, _ = tune_terms.f1_list(lists[(d, *tune_terms.BASELINE)], test)
            assert base == pytest.approx(baselines[d]["per_seed"][n], abs=TOLERANCE), (seed, d, base)
