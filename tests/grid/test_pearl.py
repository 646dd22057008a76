"""Pearl (docs/specs/grid_puzzles.md §5 "Pearl", §6, §7, §8)."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid import tatham
from kumo_gym.envs.grid.claims import label_claim
from kumo_gym.envs.grid.geometry import number_loops, numbered_edges
from kumo_gym.envs.grid.pearl import PearlTask

from .spec import check_cuts_needed, check_labels, check_rejected, check_tatham_example

T = PearlTask()
SPEC_ID = "5x5:BbWiWcBeWa"
SPEC_SOLUTION = [[1, 2, 3, 4, 5], [24, 21, 20, 7, 6], [23, 22, 19, 8, -1], [16, 17, 18, 9, 10],
                 [15, 14, 13, 12, 11]]


def rules(inst, grid):
    return T.verify(inst, grid).rules


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"]["grid"][0] == ["B", ".", ".", "W", "."] and inst.data["state"]["grid"][3][2] == "B"


def test_any_start_and_either_direction_is_accepted():
    inst = T.load(SPEC_ID)
    L = 24
    for shift in (1, 7, 23):
        shifted = [[(v - 1 + shift) % L + 1 if v > 0 else -1 for v in row] for row in SPEC_SOLUTION]
        assert T.verify(inst, shifted).solved
        backwards = [[(L - v + shift) % L + 1 if v > 0 else -1 for v in row] for row in SPEC_SOLUTION]
        assert T.verify(inst, backwards).solved
    assert numbered_edges(backwards) == numbered_edges(SPEC_SOLUTION)


def test_auxinfo_is_the_loop():
    # sgt-pearl --generate 1 '5x5de#kumo1' --save: Tatham's reference solution, one MASK digit per cell
    aux = tatham.decode_auxinfo("1b131849e0e6b02bac85692644a7f8036958288b2cf9a6e254")
    assert aux == "9555CA9C9636AA09563C35556"
    assert tatham.codec("pearl").aux_solution(T.load(SPEC_ID).data["state"], aux) == SPEC_SOLUTION


def test_grammar():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["5x5de", "6x6de", "8x8de", "10x10dt"]
    assert T.decode_params("5x5den") == {"W": 5, "H": 5, "tatham_difficulty": "e", "nosolve": True}
    check_rejected(T.load, ("5x5:BbWiWcBeW", "5x5:BbWiWcBeWaa", "5x5:BbXiWcBeWa", "5x5:BbWiWcBeW1"))
    for bad in ("4x4de", "5x5dx", "5x5dt"):  # too small; no such level; Tricky needs W + H >= 11
        with pytest.raises(ConfigError):
            T.resolve_params(**T.decode_params(bad))


def test_each_rule_alone():
    inst = T.load(SPEC_ID)
    # R1: 11 and 12 swapped, so 10 -> 11 and 12 -> 13 are no longer steps between neighbours
    bad = [[{11: 12, 12: 11}.get(v, v) for v in row] for row in SPEC_SOLUTION]
    assert rules(inst, bad) == ["pearl.R1"]
    # R1: a number used twice, and a loop of fewer than four cells
    twice = [list(r) for r in SPEC_SOLUTION]
    twice[2][4] = 5
    assert "pearl.R1" in rules(inst, twice)
    assert "pearl.R1" in rules(inst, [[1, 2, -1, -1, -1]] + [[-1] * 5] * 4)
    # the fixtures below are answers the SAT encoding produced with one rule instance negated
    # R2: a valid loop that misses the black pearl at (0, 0)
    assert rules(inst, [[-1, -1, 1, 2, 3], [-1, -1, 18, 5, 4], [-1, -1, 17, 6, -1], [14, 15, 16, 7, 8],
                        [13, 12, 11, 10, 9]]) == ["pearl.R2"]
    # R3: from the black pearl at (0, 0) the loop turns again at (0, 1)
    r3 = [[1, 2, 9, 10, 11], [24, 3, 8, 13, 12], [23, 4, 7, 14, -1], [22, 5, 6, 15, 16], [21, 20, 19, 18, 17]]
    assert rules(inst, r3) == ["pearl.R3"]
    v = T.verify(inst, r3)
    assert v.details["first_error_cell"] == [0, 0]
    # R4: the white pearl at (0, 3) sits on a straight between two straights
    r4 = [[1, 2, 3, 4, -1], [22, 19, 18, 5, -1], [21, 20, 17, 6, -1], [14, 15, 16, 7, 8], [13, 12, 11, 10, 9]]
    assert rules(inst, r4) == ["pearl.R4"]
    with T.rules_disabled("pearl.R4"):
        assert T.verify(inst, r4).solved
    # partial credit does not depend on where the numbering starts or which way it runs
    L = 22
    turned = [[(L - v + 5) % L + 1 if v > 0 else -1 for v in row] for row in r4]
    assert T.verify(inst, turned).rules == ["pearl.R4"]
    assert T.verify(inst, turned).score == T.verify(inst, r4).score > 0


def test_two_loops_break_the_one_loop_rule():
    inst = T.load(SPEC_ID)
    two = number_loops(5, 5, {((0, 0), (0, 1)), ((0, 1), (1, 1)), ((1, 0), (1, 1)), ((0, 0), (1, 0)),
                              ((3, 3), (3, 4)), ((3, 4), (4, 4)), ((4, 3), (4, 4)), ((3, 3), (4, 3))})
    assert two[0][:2] == [1, 2] and two[3][3] == 5
    assert "pearl.R1" in rules(inst, two)


def test_uniqueness_needs_the_one_loop_cuts():
    """A proof that ignored R1's "one loop" would be wrong: without the cuts a generated puzzle has
    other 'solutions' (several loops), with them exactly one."""
    check_cuts_needed(T, "pearl.R1", "hard")


def test_generation():
    for diff in ("trivial", "hard"):
        inst = T.generate(np.random.default_rng(1), difficulty=diff)
        assert T.count_solutions(inst) == 1 and T.verify(inst, inst.data["solution"]).solved
        assert inst.data["game_id"].startswith(f"{inst.data['W']}x{inst.data['H']}:")
    sol = T.generate(np.random.default_rng(2), difficulty="normal").data["solution"]
    assert sum(v > 0 for row in sol for v in row) >= 0.8 * 64  # Tatham-like coverage


def test_edge_moves():
    inst = T.load(SPEC_ID)
    s0 = T.initial_state(inst)
    assert all(v == "" for row in s0 for v in row) and T.fixed_move(inst) is None
    state = s0
    for m in T.golden_moves(inst):
        assert T.check_move(inst, state, m) is None
        state = T.apply(inst, state, m)
    assert T.is_goal(inst, state) and T.state_answer(inst, state) == SPEC_SOLUTION
    assert len(T.golden_moves(inst)) == 24
    assert T.parse_move('{"op": "edge", "cells": [[1, 1], [0, 1]], "v": 0}') == ("edge", 0, 1, 1, 1, 0)


def test_claims():
    inst = T.load(SPEC_ID)
    cstar = T.solution_claims(inst)
    assert len(cstar) == 24 and all(label_claim(inst, c) == "correct" for c in cstar)
    assert {"type": "Edge", "a": [0, 0], "b": [1, 0], "on": True} in cstar
    check_labels(inst, incorrect=[{"type": "Edge", "a": [0, 0], "b": [1, 0], "on": False},
                                  {"type": "OnPath", "r": 2, "c": 4},
                                  {"type": "Pearl", "r": 3, "c": 2, "color": "W"}],
                       correct=[{"type": "OffPath", "r": 2, "c": 4}, {"type": "Pearl", "r": 3, "c": 2, "color": "B"}])


def test_image_draws_loop_and_pearls():
    inst = T.load(SPEC_ID)
    empty, solved = T.render_rgb(inst), T.render_rgb(inst, SPEC_SOLUTION)
    assert empty.shape == solved.shape and not np.array_equal(empty, solved)
    assert "\u250c" in T.render(inst, SPEC_SOLUTION) and "*" in T.render(inst)


def test_cycle_walks_a_loop_from_its_edges():
    """geometry.cycle (the generator's second loops): every cell of the loop once, from
    the first in reading order, neighbours in turn, and the same edges back."""
    from kumo_gym.envs.grid.pearl.geometry import cycle, loop_edges, random_loop

    for seed in range(5):
        loop = random_loop(np.random.default_rng(seed), 6, 6, 30)
        edges = loop_edges(loop)
        got = cycle(sorted(edges, reverse=seed % 2 == 1))
        assert got[0] == min(loop) and sorted(got) == sorted(loop) and loop_edges(got) == edges


def test_deduction_is_sound():
    """The Easy generator's uniqueness proof (``deduce/pearl.py``): on random loops with
    random subsets of their pearls, the deduction never finds a contradiction (the loop fits its
    pearls), and whenever it finds the loop, SAT with the one-loop cuts finds no second one. The
    subsets are of loops it solves with every pearl shown, so both outcomes occur, and some
    puzzles it leaves stuck are really ambiguous."""
    from kumo_gym.envs.grid.pearl.deduce import loop_masks, solves
    from kumo_gym.envs.grid.pearl.geometry import loop_edges, random_loop

    seen = {}
    for seed in range(90):
        rng = np.random.default_rng([3, seed])
        H, W = (5, 5) if seed % 3 else (6, 7)
        while True:  # a loop whose pearls all shown the deduction solves (some 1 in 7)
            loop = random_loop(rng, H, W, 0.85 * H * W)
            grid, masks = T._pearls(loop, H, W), loop_masks(H, W, loop)
            if solves(grid, masks) == 1 or seed % 10 == 0:
                break
        keep = 0.3 + 0.7 * rng.random()
        grid = [[v if rng.random() < keep else "." for v in row] for row in grid]
        got = solves(grid, masks)
        inst = T.make_instance({"W": W, "H": H}, {"grid": grid}, number_loops(H, W, loop_edges(loop)), source="test")
        unique = T.count_solutions(inst, limit=2) == 1
        assert got != -1 and (got == 0 or unique), (seed, got)
        seen[got, unique] = seen.get((got, unique), 0) + 1
    assert seen.get((1, True), 0) >= 10 and seen.get((0, False), 0) >= 10 and seen.get((0, True), 0) >= 1, seen


def test_easy_strips_pearls_while_the_deduction_finds_the_loop():
    """Easy instances (Tatham's way, no SAT): deterministic, unique by SAT, solved by the
    deduction, and every pearl left is one the deduction cannot do without."""
    from kumo_gym.envs.grid.geometry import numbered_edges
    from kumo_gym.envs.grid.pearl.deduce import loop_masks, solves
    from kumo_gym.envs.grid.pearl.geometry import cycle

    for seed in range(6):
        inst = T.generate(np.random.default_rng([4, seed]), difficulty="easy")
        again = T.generate(np.random.default_rng([4, seed]), difficulty="easy")
        assert inst.data == again.data and T.count_solutions(inst, limit=2) == 1
        grid, H, W = inst.data["state"]["grid"], inst.data["H"], inst.data["W"]
        masks = loop_masks(H, W, cycle(numbered_edges(inst.data["solution"])))
        assert solves(grid, masks) == 1
        for r, c in [(r, c) for r in range(H) for c in range(W) if grid[r][c] != "."]:
            fewer = [list(row) for row in grid]
            fewer[r][c] = "."
            assert solves(fewer, masks) == 0


def test_grade_sees_the_one_loop_rule():
    """The docs/specs/grid_puzzles.md §8 grade uses the cuts a uniqueness proof needed: the deduction-made
    Easy instances, which plain probing mostly calls search-hard, grade 0 or 1 with them."""
    insts = [T.generate(np.random.default_rng([5, s]), difficulty="easy") for s in range(6)]
    grades = [T.grade(i) for i in insts]
    assert max(grades) <= 1 and grades == [T.grade(i) for i in insts]
    assert max(T.encoding(i).engine.grade(T.encoding(i).assumptions()) for i in insts) == 2
