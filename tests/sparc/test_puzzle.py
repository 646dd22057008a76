"""Puzzle model, record format and difficulty (docs/specs/sparc.md §1-§4, §10, §14)."""
from __future__ import annotations

import json
import warnings
from collections import Counter

import pytest

from kumo_gym.envs.sparc.difficulty import difficulty_score
from kumo_gym.envs.sparc.puzzle import SparcPuzzle, is_edge, is_vertex


def test_records_round_trip_byte_identical(ref_lines):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # YAML mismatches would warn
        for line in ref_lines:
            p = SparcPuzzle.from_record(json.loads(line))
            assert json.dumps(p.to_record()) == line


def test_yaml_matches_array_and_we_write_the_same_yaml(ref_records):
    for r in ref_records:
        p = SparcPuzzle.from_record(r)
        assert p.yaml_mismatches(r["text_visualization"]) == []
        assert p.yaml() == r["text_visualization"]


def test_reference_numbers(ref_records):
    """Spec docs/specs/sparc.md §14: counts of records, solutions, levels, start/end classes and tokens."""
    assert len(ref_records) == 50
    assert sum(r["solution_count"] for r in ref_records) == 332
    for r in ref_records:
        assert r["solution_count"] == len(r["solutions"])
        assert all(s["pathLength"] == len(s["path"]) for s in r["solutions"])
    assert Counter(r["difficulty_level"] for r in ref_records) == {1: 7, 2: 11, 3: 11, 4: 11, 5: 10}
    ps = [SparcPuzzle.from_record(r) for r in ref_records]
    assert sum(is_vertex(*p.start) for p in ps) == 27 and sum(is_edge(*p.start) for p in ps) == 23
    assert sum(is_vertex(*p.end) for p in ps) == 32
    assert all(p.is_border(*p.start) and p.is_border(*p.end) for p in ps)
    tokens = Counter(t[0] if len(t) > 1 else t for r in ref_records for row in r["puzzle_array"] for t in row)
    assert tokens["+"] == 2343 and tokens["N"] == 373 and tokens["G"] == 76 and tokens["o"] == 74
    assert tokens["."] == 73 and tokens["P"] == 67 and tokens["*"] == 55 and tokens["Y"] == 2
    assert (tokens["A"], tokens["B"], tokens["D"]) == (24, 12, 5)


def test_difficulty_reproduces_reference(ref_records):
    for r in ref_records:
        score, level = difficulty_score(SparcPuzzle.from_record(r))
        assert abs(score - r["difficulty_score"]) < 1e-12
        assert level == r["difficulty_level"]


def _grid():
    return [["S", "+", "+", "+", "E"], ["+", "N", "+", "N", "+"], ["+", "+", "+", "+", "+"],
            ["+", "N", "+", "N", "+"], ["+", "+", "+", "+", "+"]]


@pytest.mark.parametrize("pos,token,msg", [
    ((1, 1), "Q", "not a SPaRC token"),
    ((1, 1), "+", "cannot stand on a rule cell"),
    ((2, 0), "o-R", "cannot stand on a line position"),
    ((2, 2), "G", "not on an edge midpoint"),
    ((1, 1), "o-X", "not a SPaRC token"),
    ((1, 1), "P-R-7", "missing from polyshapes"),
])
def test_malformed_tokens_name_the_position(pos, token, msg):
    g = _grid()
    g[pos[1]][pos[0]] = token
    with pytest.raises(ValueError, match=msg) as e:
        SparcPuzzle.from_grid(g, {})
    assert f"(x={pos[0]}, y={pos[1]})" in str(e.value)


def test_malformed_shapes():
    with pytest.raises(ValueError, match="rows differ"):
        SparcPuzzle.from_grid([["S", "+"], ["+"]])
    with pytest.raises(ValueError, match=r"\(2h\+1\) x \(2w\+1\)"):
        SparcPuzzle.from_grid([["S", "+", "+", "E"]] * 5)
    with pytest.raises(ValueError, match="exactly one 'S'"):
        g = _grid()
        g[0][0] = "+"
        SparcPuzzle.from_grid(g)
    with pytest.raises(ValueError, match="4x4"):
        g = _grid()
        g[1][1] = "P-R-1"
        SparcPuzzle.from_grid(g, {"1": [[1]]})


def test_polyshape_arrays_are_authoritative(ref_records):
    """Id 69904 has a bit in the dropped x = 4 column: its array (3 cells) counts."""
    rec = next(r for r in ref_records if "69904" in r["polyshapes"])
    p = SparcPuzzle.from_record(rec)
    assert p.shapes["69904"] == ((0, 0), (1, 0), (2, 0))
