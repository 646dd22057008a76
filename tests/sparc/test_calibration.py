"""Level calibration: generated level-k puzzles have the official level-k statistics.

Per level, the means of grid area, positions of the shortest solution, distinct rule types,
solution count and difficulty score lie within 15 % of the official means of the reference
sample, the presence rate of each symbol type within 0.15, and no puzzle is trivial (a shortest
solution of at least ``MIN_LENGTH[level]`` positions, at least ``MIN_CONSTRAINTS[level]``
constraints). Level 5 costs most of the run.
"""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.analysis.sparc import LEVEL_STATS, calibration_table, level_stats, puzzle_stats
from kumo_gym.envs.sparc.generate import MIN_CONSTRAINTS, MIN_LENGTH, generate

#: generated puzzles per level (level 5 is about 20x slower to generate than level 1)
PER_LEVEL = {1: 100, 2: 100, 3: 120, 4: 120, 5: 60}


@pytest.fixture(scope="module")
def generated():
    out = []
    for level, n in PER_LEVEL.items():
        rng = np.random.default_rng(4200 + level)
        out += [generate(rng, level=level).record() for _ in range(n)]
    return out


def _standard_errors(records) -> dict:
    """``{level: standard error of our mean solution count}`` over the generated records."""
    by: dict = {}
    for rec in records:
        st = puzzle_stats(rec)
        by.setdefault(st["level"], []).append(st["solutions"])
    return {lv: float(np.std(v, ddof=1) / np.sqrt(len(v))) for lv, v in by.items()}


def test_generated_levels_match_the_official_statistics(generated, ref_records):
    """Every statistic within 15 % (rates within 0.15). The solution count is heavy-tailed (a
    standard deviation of 4-9 solutions per level, against official means of 2-10): at these
    sample sizes its mean carries a standard error of 5-12 % of the official mean, so it is
    allowed two standard errors of our sample beyond the 15 % (benchmarks/sparc.py measures it
    on 300 puzzles per level)."""
    ours, official = level_stats(generated), level_stats(ref_records)
    assert sorted(ours) == sorted(official) == [1, 2, 3, 4, 5]
    rows, text = calibration_table(ours, official)
    assert len(rows) == 5 * len(LEVEL_STATS)
    se = _standard_errors(generated)
    bad = [r for r in rows if not r["ok"] and not (
        r["stat"] == "solutions" and abs(r["generated"] - r["official"]) <= 0.15 * r["official"] + 2 * se[r["level"]])]
    assert not bad, "out of tolerance:\n" + text


def test_no_generated_puzzle_is_trivial(generated):
    for rec in generated:
        st = puzzle_stats(rec)
        level = st["level"]
        assert st["shortest"] >= MIN_LENGTH[level], (level, st)
        assert st["constraints"] >= MIN_CONSTRAINTS[level], (level, st)
        assert st["solutions"] >= 1


def test_calibration_table_flags_a_level_that_misses():
    """The table compares relative means and absolute rates, and says NO where one misses."""
    official = {1: {s: 1.0 for s in LEVEL_STATS}}
    official[1].update(area=10.0, has_ylop=0.0)
    ours = {1: dict(official[1], area=11.4, shortest=0.8, has_star=0.9, has_ylop=0.2)}
    rows, text = calibration_table(ours, official)
    by = {r["stat"]: r for r in rows}
    assert by["area"]["ok"] and abs(by["area"]["ratio"] - 1.14) < 1e-9
    assert not by["shortest"]["ok"] and abs(by["shortest"]["deviation"] - 0.2) < 1e-9
    assert by["has_star"]["ok"] and by["has_star"]["kind"] == "absolute"
    assert not by["has_ylop"]["ok"] and by["has_ylop"]["ratio"] is None
    assert text.count("NO") == 2
