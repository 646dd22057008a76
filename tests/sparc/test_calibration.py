"""Level calibration: generated level-k puzzles have the statistics of the 500 official level-k
test puzzles, and the statistics are measured as that table defines them.

The table (``OFFICIAL_TEST_LEVELS``) gives per level the mean grid area in cells, the positions of
the shortest solution, the distinct rule types among dot, gap, square, star, triangle,
polyomino and ylop, and the solution count (distinct valid paths). The band of the benchmark
(``benchmarks/sparc.py``, 1,000 puzzles per level) is 10 % of each official mean; the test here
generates 100 puzzles per level from fixed seeds and allows its sampling error on top (two
standard errors of our mean), so it fails when a level drifts out of the band by more than
the noise of a sample that small. No generated puzzle is trivial.
"""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.analysis.sparc import (
    CALIBRATED,
    OFFICIAL_TEST_LEVELS,
    calibration_markdown,
    calibration_table,
    level_stats,
    puzzle_stats,
)
from kumo_gym.envs.sparc.generate import MIN_CONSTRAINTS, MIN_LENGTH, border_walks, generate, shortest_line
from kumo_gym.envs.sparc.puzzle import SparcPuzzle

PER_LEVEL = 100


@pytest.fixture(scope="module")
def generated():
    out = []
    for level in OFFICIAL_TEST_LEVELS:
        rng = np.random.default_rng(4200 + level)
        out += [generate(rng, level=level).record() for _ in range(PER_LEVEL)]
    return out


def test_generated_levels_match_the_official_table(generated):
    ours = level_stats(generated)
    assert sorted(ours) == [1, 2, 3, 4, 5] and all(ours[lv]["n"] == PER_LEVEL for lv in ours)
    rows, text = calibration_table(ours, allowance=2.0)
    assert len(rows) == 5 * len(CALIBRATED)
    assert all(r["ok"] for r in rows), "a level left the band:\n" + text


def _by_hand(record) -> dict:
    """The table's columns for one record, computed straight from its fields."""
    grid = record["puzzle_array"]
    tokens = [t for row in grid for t in row]
    types = {"dot": "." in tokens, "gap": "G" in tokens}
    for name, head in (("square", "o-"), ("star", "*-"), ("poly", "P-"), ("ylop", "Y-")):
        types[name] = any(t.startswith(head) for t in tokens)
    types["triangle"] = any(t[:2] in ("A-", "B-", "C-", "D-") for t in tokens)
    paths = {tuple((d["x"], d["y"]) for d in s["path"]) for s in record["solutions"]}
    return {"area": record["grid_size"]["width"] * record["grid_size"]["height"],
            "shortest": min(len(p) for p in paths), "rule_types": sum(types.values()), "solutions": len(paths)}


def test_the_columns_are_measured_as_the_table_defines_them(ref_records):
    """Area in cells, positions of the shortest path (S and E included), rule types counted over
    the seven types (dots and gaps too), solutions = distinct paths; on the 50 official records
    the per-level means come out as the table's kind of numbers (2.3 rule types at level 1, not
    the 0.9 cell-symbol types)."""
    for rec in ref_records:
        st = puzzle_stats(rec)
        assert {k: st[k] for k in CALIBRATED} == _by_hand(rec), rec["id"]
    ours = level_stats(ref_records)
    for lv, d in ours.items():
        rows = [_by_hand(r) for r in ref_records if r["difficulty_level"] == lv]
        for k in CALIBRATED:
            assert d[k] == pytest.approx(np.mean([r[k] for r in rows]))
            assert d[f"{k}_se"] == pytest.approx(np.std([r[k] for r in rows], ddof=1) / np.sqrt(len(rows)))
    assert ours[1]["rule_types"] == pytest.approx(16 / 7)
    assert [ours[lv]["n"] for lv in ours] == [7, 11, 11, 11, 10]
    # the same kind of numbers as the official table: every level mean of the sample within a
    # factor of 3 of the official one (a sample of 7-11 puzzles per level, heavy-tailed counts)
    for lv in ours:
        for k in CALIBRATED:
            assert 1 / 3 < ours[lv][k] / OFFICIAL_TEST_LEVELS[lv][k] < 3, (lv, k)


def test_no_generated_puzzle_is_trivial(generated):
    for rec in generated:
        st = puzzle_stats(rec)
        level = st["level"]
        assert st["shortest"] >= MIN_LENGTH[level], (level, st)
        assert st["constraints"] >= MIN_CONSTRAINTS[level], (level, st)
        p = SparcPuzzle.from_record(rec)
        paths = {tuple((d["x"], d["y"]) for d in s["path"]) for s in rec["solutions"]}
        assert st["shortest"] > len(shortest_line(p.width, p.height, p.start, p.end)), rec["id"]
        assert not any(tuple(w) in paths for w in border_walks(p.width, p.height, p.start, p.end)), rec["id"]


def test_short_solutions_are_not_forced_away(generated):
    """The shortest solutions follow the official spread: some are well below the level mean
    (no floor above the official minimum), and their spread is the official one's order."""
    ours = level_stats(generated)
    for lv, d in ours.items():
        official = OFFICIAL_TEST_LEVELS[lv]
        assert d["shortest_min"] < 0.6 * official["shortest"], (lv, d["shortest_min"])
        assert 0.6 * official["shortest_sd"] < d["shortest_sd"] < 1.4 * official["shortest_sd"], lv


def test_calibration_table_flags_a_level_that_misses():
    """A mean 11 % off is out of the band; the allowance widens it by standard errors."""
    official = {1: {"area": 10.0, "shortest": 20.0, "rule_types": 2.0, "solutions": 5.0}}
    ours = {1: {"area": 11.0, "shortest": 17.8, "rule_types": 2.0, "solutions": 5.0, "n": 50,
                "area_se": 0.1, "shortest_se": 0.2, "rule_types_se": 0.0, "solutions_se": 0.5,
                "shortest_sd": 1.4, "shortest_min": 9}}
    rows, text = calibration_table(ours, official)
    by = {r["stat"]: r for r in rows}
    assert by["area"]["ok"] and abs(by["area"]["ratio"] - 1.1) < 1e-9
    assert not by["shortest"]["ok"] and abs(by["shortest"]["deviation"] - 0.11) < 1e-9
    assert by["rule_types"]["ok"] and by["solutions"]["ok"]
    assert text.count("NO") == 1
    rows, _ = calibration_table(ours, official, allowance=1.0)
    assert all(r["ok"] for r in rows)  # 2.2 off, allowed 2.0 + 0.2
    official[1].update(n=86, shortest_sd=5.9, shortest_min=3)
    md = calibration_markdown(ours, official)
    assert "**17.80 (0.20)**" in md and "| 1 | 86 / 50 |" in md
