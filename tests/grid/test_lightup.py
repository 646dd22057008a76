"""Light Up (docs/specs/grid_puzzles.md §5 "Lightup", §7, §8)."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.lightup import LightupTask, segments

from .spec import check_labels, check_rejected, check_tatham_example

T = LightupTask()
SPEC_ID = "3x3:d4d"
SPEC_SOLUTION = [[".", "L", "."], ["L", 4, "L"], [".", "L", "."]]
#: sgt-lightup --generate 1 7x7b20s4d0 (pinned build); solution checked by hand against the rules:
#: each numbered black has its count of lights, every white cell is lit, no light sees another
TATHAM_7 = "7x7:bBe1c1d1b1b2aBbBb1dBc4eBb"
TATHAM_7_SOLUTION = [["L", ".", "#", ".", "L", ".", "."], [".", 1, "L", ".", ".", 1, "L"],
                     [".", ".", ".", 1, ".", ".", 1], [".", "L", 2, "L", "#", ".", "."],
                     ["#", ".", ".", 1, ".", "L", "."], ["L", "#", ".", ".", "L", 4, "L"],
                     [".", ".", "L", ".", "#", "L", "."]]


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"]["grid"] == [[".", ".", "."], [".", "4", "."], [".", ".", "."]]
    assert inst.data["tatham_params"] == "3x3b20s4d0"


def test_tatham_id_hand_checked():
    inst = T.load(TATHAM_7)
    assert inst.data["solution"] == TATHAM_7_SOLUTION and T.count_solutions(inst) == 1
    assert T.to_game_id(inst) == TATHAM_7
    # any non-light symbol is accepted on a black cell
    relabelled = [list(r) for r in TATHAM_7_SOLUTION]
    relabelled[0][2], relabelled[1][1] = ".", "#"
    assert T.verify(inst, relabelled).solved


def test_params_grammar():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["3x3b20s4d0", "5x5b20s4d0", "7x7b20s4d0", "14x14b20s2d0"]
    assert T.decode_params("14x14b20s2d0") == {"W": 14, "H": 14, "black_percent": 20, "symmetry": 2,
                                              "tatham_difficulty": 0}
    assert T.decode_params("10x7") == {"W": 10, "H": 7}
    assert T.encode_params(T.resolve_params(W=10, H=7)) == "10x7b20s2d0"  # no quarter turn off-square
    check_rejected(T.decode_params, ("7x7b20s5d0", "7x7b2s4d0", "7x7b20s4d3", "7x7d0s2"))
    with pytest.raises(ConfigError):
        T.resolve_params(W=8, H=6, symmetry=4)
    with pytest.raises(ConfigError):
        T.load("3x3:d5d")


def test_segments():
    grid = [[".", "#", "."], [".", ".", "."]]
    segs = segments(grid)
    assert [(0, 0)] in segs and [(1, 0), (1, 1), (1, 2)] in segs and [(0, 0), (1, 0)] in segs and [(1, 1)] in segs


def test_rule_codes():
    inst = T.load(TATHAM_7)

    def rules(grid):
        return {v["rule"] for v in T.verify(inst, grid).details["violations"]}

    g = [list(r) for r in TATHAM_7_SOLUTION]
    g[0][2] = "L"  # a light on a black cell
    assert "lightup.R1" in rules(g)
    g = [list(r) for r in TATHAM_7_SOLUTION]
    g[6][2] = "."  # (6,2) was the only light for its cells
    assert "lightup.R2" in rules(g)
    g = [list(r) for r in TATHAM_7_SOLUTION]
    g[0][1] = "L"  # sees the light at (0,0)
    assert "lightup.R3" in rules(g)
    g = [list(r) for r in TATHAM_7_SOLUTION]
    g[3][1] = "."
    assert "lightup.R4" in rules(g)
    g = [list(r) for r in TATHAM_7_SOLUTION]
    g[0][1] = "#"  # a black symbol on a white cell
    assert rules(g) == {"lightup.R1"}


def test_generation_density_symmetry_determinism():
    a = T.generate(np.random.default_rng(11), difficulty="normal")
    assert a == T.generate(np.random.default_rng(11), difficulty="normal")
    grid = a.data["state"]["grid"]
    blacks = {(r, c) for r in range(7) for c in range(7) if grid[r][c] != "."}
    assert 7 * 7 * 20 // 100 - 3 <= len(blacks) <= 7 * 7 * 90 // 100  # 20 %, raised in steps when layouts fail
    assert all((c, 6 - r) in blacks for r, c in blacks)  # quarter-turn symmetry (s4)
    b = T.generate(np.random.default_rng(2), W=8, H=6, symmetry=0, black_percent=30, tatham_difficulty=2)
    assert b.data["tatham_params"] == "8x6b30s0d2" and T.count_solutions(b) == 1


def test_claims_render_moves():
    inst = T.load(SPEC_ID)
    check_labels(inst, correct=[{"type": "Light", "r": 0, "c": 1}, {"type": "Black", "r": 1, "c": 1, "n": 4}],
                       incorrect=[{"type": "NoLight", "r": 0, "c": 1}, {"type": "Black", "r": 0, "c": 0, "n": None}])
    assert solution_claims(inst) == [{"type": "Light", "r": 0, "c": 1}, {"type": "Light", "r": 1, "c": 0},
                                     {"type": "Light", "r": 1, "c": 2}, {"type": "Light", "r": 2, "c": 1}]
    assert T.render(inst, SPEC_SOLUTION).splitlines()[-1].strip() == "+ L +"
    assert T.check_move(inst, T.initial_state(inst), (1, 1, "L")) is not None
    assert T.parse('... [[".", "l", "."], ["L", "4", "L"], [".", "L", "."]]') == SPEC_SOLUTION


@pytest.mark.parametrize("difficulty", ["easy", "normal"])
def test_easy_level_kernel_deduces_what_propagation_does(difficulty):
    # level 0 comes from a kernel: what it keeps, CNF propagation solves (grade 0, so unique), and
    # every kept number is needed by propagation too (the kernel deduces neither less nor more)
    for seed in range(4):
        inst = T.generate(np.random.default_rng(seed), difficulty=difficulty)
        enc = T.encoding(inst)
        assert enc.engine.grade(enc.assumptions()) == 0 and T.count_solutions(inst) == 1
        assert T.verify(inst, inst.data["solution"]).solved
        for k in enc.clues:
            assert enc.engine.grade(enc.assumptions([j for j in enc.clues if j != k])) > 0
