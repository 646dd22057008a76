"""Loopy (docs/grid.md "Loopy"): Tatham's game IDs, the rules one by one, generation, moves, claims, pictures."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import label_claim
from kumo_gym.envs.grid.geometry import number_loops
from kumo_gym.envs.grid.loopy import LoopyTask
from kumo_gym.envs.grid.loopy.geometry import boundary, clues_of, random_region

from .spec import check_cuts_needed, check_labels, check_rejected, check_tatham_example

T = LoopyTask()
#: sgt-loopy --generate 1 '4x4t0de#kumo1'
SPEC_ID = "4x4t0:d3a3d3a20a"
SPEC_SOLUTION = [[1, 2, 3, 4, 5], [22, 21, 12, 11, 6], [19, 20, 13, 10, 7], [18, 15, 14, 9, 8],
                 [17, 16, -1, -1, -1]]


def rules(inst, grid):
    return T.verify(inst, grid).rules


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"]["clues"][1] == [3, -1, 3, -1] and inst.data["state"]["clues"][3] == [-1, 2, 0, -1]
    assert (inst.data["H"], inst.data["W"]) == (5, 5)  # the answer grid is the dots


def test_grammar():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["7x7t0de", "10x10t0de", "10x10t0dn", "10x10t0dh"]
    assert T.decode_params("7x5t0dh") == {"W": 7, "H": 5, "tiling": 0, "tatham_difficulty": "h"}
    assert T.decode_params("6") == {"W": 6, "H": 6}
    long = T.load("3x3t0:" + "z" * 0 + "i")  # a run of empty faces
    assert T.to_game_id(long) == "3x3t0:i"
    wide = T.load("9x3t0:za")  # 27 empty faces: 'z' (26) then 'a'
    assert T.to_game_id(wide) == "9x3t0:za"
    check_rejected(T.load, ("4x4t0:d3a3d3a20", "4x4t0:d3a3d3a20aa", "4x4t0:d5a3d3a20a", "4x4t0:d3a3d3a2_0a",
                            "4x4t0:d3a3d3a2Xa"))
    for bad in ("2x2t0de", "4x4t1de", "4x4t0dx"):  # too small; triangles not done; no such level
        with pytest.raises(ConfigError):
            T.resolve_params(**T.decode_params(bad))


def test_each_rule_alone():
    inst = T.load(SPEC_ID)
    # R1: dot (0, 0) left out, so the numbering is an open path (its two lines border only face (0, 0), no clue)
    bad = [[v - 1 if v > 1 else -1 for v in row] for row in SPEC_SOLUTION]
    assert rules(inst, bad) == ["loopy.R1"]
    twice = [list(r) for r in SPEC_SOLUTION]
    twice[4][4] = 5
    assert "loopy.R1" in rules(inst, twice)
    assert "loopy.R1" in rules(inst, [[1, 2, -1, -1, -1]] + [[-1] * 5] * 4)
    # R2: a valid loop (the square round face (0, 3)) that gives the clued faces other counts
    square = number_loops(5, 5, {((0, 3), (0, 4)), ((0, 4), (1, 4)), ((1, 3), (1, 4)), ((0, 3), (1, 3))})
    assert rules(inst, square) == ["loopy.R2"]
    v = T.verify(inst, square)
    assert v.details["first_error_cell"] == [1, 0]  # face (1, 0), named by its corner dots
    with T.rules_disabled("loopy.R2"):
        assert T.verify(inst, square).solved


def test_two_loops_break_the_one_loop_rule():
    inst = T.load(SPEC_ID)
    two = number_loops(5, 5, {((0, 0), (0, 1)), ((0, 1), (1, 1)), ((1, 0), (1, 1)), ((0, 0), (1, 0)),
                              ((3, 3), (3, 4)), ((3, 4), (4, 4)), ((4, 3), (4, 4)), ((3, 3), (4, 3))})
    assert "loopy.R1" in rules(inst, two)


def test_uniqueness_needs_the_one_loop_cuts():
    check_cuts_needed(T, "loopy.R1", "trivial")


def test_random_regions_bound_one_loop():
    for seed in range(6):
        inside = random_region(np.random.default_rng(seed), 6, 7, 0.5)
        edges = boundary(inside)
        numbered = number_loops(7, 8, edges)
        assert sum(v > 0 for row in numbered for v in row) == len(edges)  # one simple loop through every line
        clues = clues_of(6, 7, edges)
        assert sum(map(sum, clues)) == 2 * len(edges) - sum(  # an edge on the border has one face
            1 for (a, b) in edges if a[0] == b[0] in (0, 6) or a[1] == b[1] in (0, 7))


def test_generation():
    inst = T.generate(np.random.default_rng(1), difficulty="trivial")
    assert T.count_solutions(inst) == 1 and T.verify(inst, inst.data["solution"]).solved
    assert inst.data["game_id"].startswith("7x7t0:")
    assert abs(T.clue_count(inst) - 0.452 * 49) <= 0.15 * 0.452 * 49  # Tatham's share of clued faces
    again = T.generate(np.random.default_rng(1), difficulty="trivial")
    assert again.to_json() == inst.to_json()


def test_edge_moves():
    inst = T.load(SPEC_ID)
    state = T.initial_state(inst)
    for m in T.golden_moves(inst):
        assert T.check_move(inst, state, m) is None
        state = T.apply(inst, state, m)
    assert T.is_goal(inst, state) and T.state_answer(inst, state) == SPEC_SOLUTION
    assert len(T.golden_moves(inst)) == 22


def test_claims():
    inst = T.load(SPEC_ID)
    cstar = T.solution_claims(inst)
    assert len(cstar) == 22 and all(label_claim(inst, c) == "correct" for c in cstar)
    check_labels(inst, incorrect=[{"type": "Edge", "a": [0, 0], "b": [0, 1], "on": False},
                                  {"type": "OnPath", "r": 4, "c": 4}, {"type": "Clue", "r": 1, "c": 0, "n": 2},
                                  {"type": "Clue", "r": 4, "c": 0, "n": 0}],
                       correct=[{"type": "OffPath", "r": 4, "c": 4}, {"type": "Clue", "r": 3, "c": 2, "n": 0}])


def test_pictures_draw_the_loop_between_the_dots():
    inst = T.load(SPEC_ID)
    empty, solved = T.render_rgb(inst), T.render_rgb(inst, SPEC_SOLUTION)
    assert empty.shape == solved.shape and not np.array_equal(empty, solved)
    text = T.render(inst, SPEC_SOLUTION)
    assert "\u250c" in text and "3" in text
    square = number_loops(5, 5, {((0, 3), (0, 4)), ((0, 4), (1, 4)), ((1, 3), (1, 4)), ((0, 3), (1, 3))})
    pic = T.state_picture(inst, square, T.verify(inst, square).to_dict())
    assert pic.marks[0]["at"] == [1, 0] and pic.marks[0]["first"]
