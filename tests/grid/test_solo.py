"""Solo (docs/specs/grid_puzzles.md §5 "Solo (Sudoku)", §7; docs/specs/reasoning_graphs.md §6 "Sudoku")."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import label_claim, solution_claims
from kumo_gym.envs.grid.solo import SoloTask, units
from kumo_gym.envs.grid.tatham import Unsupported

from .spec import check_labels, check_tatham_example

S = SoloTask()
SPEC_ID = "2x2:3a1j1a2"
SPEC_SOLUTION = [[3, 2, 1, 4], [1, 4, 2, 3], [2, 3, 4, 1], [4, 1, 3, 2]]


def test_spec_example():
    check_tatham_example(S, SPEC_ID, SPEC_SOLUTION)


def test_box_shape_of_cxr():
    # Tatham 2x3: boxes 3 wide and 2 tall (docs/specs/grid_puzzles.md §5 "Boxes")
    p = S.decode_params("2x3")
    assert (p["box_w"], p["box_h"]) == (3, 2)
    assert S.tatham_preset("easy") == "2x3"
    assert [S.tatham_preset(d) for d in S.difficulties] == ["2x2", "2x3", "3x3", "3x3de"]
    boxes = units(6, 3, 2)
    assert boxes[12 + 1] == ("R3", ((0, 3), (0, 4), (0, 5), (1, 3), (1, 4), (1, 5)))


def test_params_grammar_and_variants():
    assert S.decode_params("3x3de") == {"box_w": 3, "box_h": 3, "tatham_difficulty": "e"}
    assert S.decode_params("3x3r4db")["tatham_difficulty"] == "b"  # symmetry is generation-only
    for variant in ("3x3x", "3x3k", "3x3j"):
        with pytest.raises(Unsupported):
            S.decode_params(variant)
    with pytest.raises(ConfigError):
        S.decode_params("3x3dq")
    with pytest.raises(ConfigError):
        S.load("2x2:3a1j1a5")  # 5 is not a digit of a 4x4 grid


def test_rule_codes_and_score():
    inst = S.load(SPEC_ID)
    grid = [list(r) for r in SPEC_SOLUTION]
    grid[0][0], grid[0][1] = grid[0][1], grid[0][0]  # swap two cells: columns and a given break
    v = S.verify(inst, grid)
    rules = {x["rule"] for x in v.details["violations"]}
    assert rules == {"solo.R2", "solo.R4"} and 0 < v.score < 1 and v.first_error == 0


def test_alternative_solution_accepted():
    # an empty 4x4 grid has many solutions; the verifier takes any of them
    inst = S.make_instance({"box_w": 2, "box_h": 2}, {"n": 4, "box_w": 2, "box_h": 2, "grid": [[0] * 4] * 4}, None,
                           source="test")
    sols = S.solutions(inst, limit=5)
    assert len(sols) == 5 and all(S.verify(inst, s).solved for s in sols)
    assert S.count_solutions(inst, limit=3) == 3


def test_normal_and_hard_presets():
    for diff in ("normal", "hard"):
        inst = S.generate(np.random.default_rng(1), difficulty=diff)
        assert inst.data["state"]["n"] == 9 and S.count_solutions(inst) == 1
        grid = inst.data["state"]["grid"]
        # givens are symmetric under a half turn (Tatham's default r2)
        assert all((grid[r][c] > 0) == (grid[8 - r][8 - c] > 0) for r in range(9) for c in range(9))
        assert 17 <= sum(v > 0 for row in grid for v in row) <= 40


def test_claims():
    inst = S.load(SPEC_ID)
    check_labels(inst, correct=[{"type": "Assign", "r": 0, "c": 1, "d": 2}, {"type": "Given", "r": 0, "c": 0, "d": 3}],
                       incorrect=[{"type": "Assign", "r": 0, "c": 1, "d": 3}])
    assert label_claim(inst, {"type": "Given", "r": 0, "c": 1, "d": 2}) == "incorrect"  # placed, not given
    check_labels(inst, correct=[{"type": "UnitHas", "unit": "ROW", "index": 0, "digit": 1},
                                {"type": "UnitHas", "unit": "box", "index": 1, "digit": 1}],
                       unverifiable=[{"type": "UnitHas", "unit": "ROW", "index": 0, "digit": 2}],
                       incorrect=[{"type": "UnitHas", "unit": "COL", "index": 7, "digit": 2}])
    cand_out = {"type": "Cand", "r": 0, "c": 1, "d": [2], "polarity": "OUT"}
    assert label_claim(inst, cand_out) == "unverifiable"
    assert label_claim(inst, cand_out, profile="consistency") == "incorrect"
    missing = {"type": "UnitMissing", "unit": "ROW", "index": 0, "d": [2, 3]}
    assert label_claim(inst, missing, profile="consistency") == "incorrect"  # 3 is given in row 0
    places = {"type": "UnitPlaces", "unit": "ROW", "index": 0, "digit": 2, "cell_r": [0, 0], "cell_c": [1, 3]}
    assert label_claim(inst, places, profile="consistency") == "unverifiable"
    places["cell_c"] = [2, 3]
    assert label_claim(inst, places, profile="consistency") == "incorrect"
    assert len(solution_claims(inst)) == 16


def test_render_shows_boxes():
    inst = S.load(SPEC_ID)
    text = S.render(inst)
    # box borders: a wall between columns 1 and 2, a rule between rows 1 and 2
    assert "3 .|1 ." in text.splitlines()[1] and text.splitlines()[3].strip() == "- - - -"


@pytest.mark.parametrize("bw, bh", [(2, 2), (3, 2), (3, 3)])
def test_trivial_kernel_deduces_what_propagation_does(bw, bh):
    # the kernel's singles keep exactly a set that CNF propagation solves, and each kept pair is
    # needed by propagation too (so it deduces neither less nor more than the engine would)
    n = bw * bh
    for seed in range(3):
        inst = S.generate(np.random.default_rng(seed), box_w=bw, box_h=bh, tatham_difficulty="t")
        grid = inst.data["state"]["grid"]
        enc = S.encoding(inst)
        assert enc.engine.grade(enc.assumptions()) == 0 and S.count_solutions(inst) == 1
        for r, c in [(r, c) for r in range(n) for c in range(n) if grid[r][c]][:6]:
            drop = {(r, c), (n - 1 - r, n - 1 - c)}
            assert enc.engine.grade(enc.assumptions([k for k in enc.clues if k not in drop])) > 0


@pytest.mark.parametrize("bw, bh", [(2, 2), (3, 2), (3, 3)])
def test_minimal_kernel_keeps_what_sat_reduction_keeps(bw, bh):
    # above Trivial the kernel's search replaces the engine's SAT uniqueness tests: on the same
    # solution and removal order it keeps exactly the pairs reduce_clues keeps, and its flag is
    # whether propagation alone leaves the minimal set open (grade >= 1)
    from kumo_gym.envs.grid.solo import _kernel_tables, random_sudoku
    from kumo_gym.envs.grid.solo import kernel as _solo_kernel
    from kumo_gym.envs.grid.solo import search_kernel as _solo_search_kernel
    from kumo_gym.solvers.engine import reduce_clues

    n = bw * bh
    cells, unit_of, pair_a, pair_b = _kernel_tables(n, bw, bh)
    grid, given, used, _ = buffers = _solo_kernel.scratch(n)
    work, branch = _solo_search_kernel.minimal_scratch(n)
    flags = set()
    for seed in range(6):
        rng = np.random.default_rng([5, seed])
        random_sudoku(rng, n, bw, bh, buffers)
        order = rng.permutation(len(pair_a)).astype(np.int64)
        hard = _solo_search_kernel.minimal(n, cells, unit_of, order, pair_a, pair_b, grid, given, used, work, branch)
        sol = grid.reshape(n, n).tolist()
        enc = S.encode({"n": n, "box_w": bw, "box_h": bh, "grid": sol})
        groups = [[enc.clues[(int(a) // n, int(a) % n)][1][0], enc.clues[(int(b) // n, int(b) % n)][1][0]]
                  for a, b in zip(pair_a, pair_b)]
        kept = reduce_clues(enc.engine, groups, _Order(order), enc.solution_values(enc.assumptions()))
        assert kept == [bool(given[a]) for a in pair_a]
        assert all(given[a] == given[b] for a, b in zip(pair_a, pair_b))
        on = [groups[i][j] for i in range(len(groups)) if kept[i] for j in range(2)]
        assert hard == (enc.engine.grade(on) >= 1)
        flags.add(hard)
    assert flags == {True, False} or n < 9  # both outcomes met (small minimal sets are seldom hard)


class _Order:
    """An rng stand-in whose permutation is a given order (reduce_clues draws only that)."""

    def __init__(self, order):
        self.order = order

    def permutation(self, k):
        assert k == len(self.order)
        return self.order.copy()


def test_hard_preset_puzzles_need_more_than_propagation():
    # the hard preset prefers minimal sets that unit propagation alone does not solve; with
    # HARD_TRIES draws a grade-0 puzzle is rare (with 8 tries, one of these 60 seeds was grade 0)
    grades = [S.grade(S.generate(np.random.default_rng(seed), difficulty="hard")) for seed in range(60)]
    assert min(grades) >= 1, grades
