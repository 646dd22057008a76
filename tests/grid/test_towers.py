"""Towers (docs/specs/grid_puzzles.md §5 "Towers", §7)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.towers import TowersTask, line_cells, visible_count

from .spec import check_labels, check_rejected, check_tatham_example

T = TowersTask()
SPEC_ID = "3:2/1/3/2/2/1/2/1/3/2/2/1"
SPEC_SOLUTION = [[2, 3, 1], [3, 1, 2], [1, 2, 3]]


def test_spec_example():
    check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)


def test_visibility():
    assert visible_count([1, 2, 3]) == 3 and visible_count([3, 1, 2]) == 1 and visible_count([2, 1, 3]) == 2
    assert line_cells("bottom", 1, 3) == [(2, 1), (1, 1), (0, 1)]
    assert line_cells("right", 0, 3) == [(0, 2), (0, 1), (0, 0)]


def test_givens_and_empty_clues():
    inst = T.load("6:4/3/1/2/2/3/2/2/2/4/2/1/3/3/2/3/1/4/3/3/3/2/2/1,a3f4a3e4s")
    st = inst.data["state"]
    assert st["grid"][0][1] == 3 and st["grid"][1][2] == 4 and T.count_solutions(inst) == 1
    inst = T.load("4:///////////1////")
    assert inst.data["state"]["left"] == [0, 0, 0, 1] and T.count_solutions(inst) == 2
    assert T.to_game_id(inst).split(":", 1)[1] == "///////////1////"


def test_params_grammar():
    assert T.decode_params("5de") == {"n": 5, "tatham_difficulty": "e"}
    assert [T.tatham_preset(d) for d in T.difficulties] == ["3de", "4de", "5de", "6de"]
    check_rejected(T.decode_params, ("5x5de", "5dq", "12"))
    with pytest.raises(ConfigError):
        T.load("3:2/1/3/2/2/1/2/1/3/2/2")  # 11 clues
    with pytest.raises(ConfigError):
        T.load("3:2/1/3/2/2/1/2/1/3/2/2/4")  # clue larger than n


def test_rule_codes():
    inst = T.load(SPEC_ID)
    grid = [[3, 2, 1], [2, 1, 3], [1, 3, 2]]  # a Latin square breaking visibility clues
    v = T.verify(inst, grid)
    assert {x["rule"] for x in v.details["violations"]} == {"towers.R2"} and v.score < 1


def test_hard_and_extreme_generation():
    inst = T.generate(np.random.default_rng(0), difficulty="hard")
    assert inst.data["state"]["n"] == 6 and T.count_solutions(inst) == 1
    assert all(v > 0 for side in ("top", "bottom", "left", "right") for v in inst.data["state"][side])
    inst = T.generate(np.random.default_rng(0), n=5, tatham_difficulty="x")
    assert T.count_solutions(inst) == 1 and inst.data["tatham_params"] == "5dx"


def test_claims():
    inst = T.load(SPEC_ID)
    check_labels(inst, correct=[{"type": "Cell", "r": 0, "c": 0, "v": 2},
                                {"type": "NotCell", "r": 0, "c": 0, "v": 3},
                                {"type": "EdgeClue", "side": "top", "index": 2, "n": 3}],
                       incorrect=[{"type": "NotCell", "r": 0, "c": 0, "v": 2},
                                  {"type": "EdgeClue", "side": "LEFT", "index": 0, "n": 3},
                                  {"type": "Given", "r": 0, "c": 0, "v": 2}])
    assert len(solution_claims(inst)) == 9


def test_line_deduction_certifies_only_unique_puzzles():
    """The Easy generator's line solver decides every cell only of puzzles whose clues
    and givens have no other solution (checked by SAT), and Easy puzzles come out unique."""
    from kumo_gym.envs.grid.towers import kernel as _towers_kernel
    from kumo_gym.envs.grid.towers.codec import SIDES

    rng = np.random.default_rng(8)
    accepted = nonunique = 0
    for i in range(24):
        n = 4 + i % 2
        inst = T.generate(np.random.default_rng(100 + i), n=n, tatham_difficulty="x")  # a minimal clue set
        st = inst.data["state"]
        sol = np.asarray(inst.data["solution"], np.int8).ravel()
        given = np.where(rng.random(n * n) < 0.15, sol, 0).astype(np.int8)
        clues = np.asarray([v if rng.random() < 0.7 else 0 for side in SIDES for v in st[side]], np.int64)
        perms = np.asarray(list(itertools.permutations(range(1, n + 1))), np.int8)
        front = np.asarray([visible_count(p) for p in perms.tolist()], np.int8)
        back = np.asarray([visible_count(p[::-1]) for p in perms.tolist()], np.int8)
        scratch = (np.zeros(n * n, np.int64), np.zeros(n, np.int64), np.zeros(2 * n + 1, np.int64), np.zeros(2 * n, np.int8))
        ok = _towers_kernel.solves(n, perms, front, back, clues, given, -1, *scratch)
        state = {"n": n, **{side: clues[k * n:(k + 1) * n].tolist() for k, side in enumerate(SIDES)},
                 "grid": given.reshape(n, n).tolist()}
        unique = T.count_solutions(T.make_instance({"n": n}, state, None, source="test")) == 1
        assert unique or not ok
        accepted += ok
        nonunique += not unique
    assert accepted >= 4 and nonunique >= 4
    for seed in range(3):
        inst = T.generate(np.random.default_rng(seed), difficulty="hard")
        assert T.count_solutions(inst) == 1
