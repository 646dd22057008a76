"""Palisade (docs/specs/grid_puzzles.md §5 "Palisade", §7, §8)."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.palisade import PalisadeTask, codec, kernel
from kumo_gym.envs.grid.palisade.geometry import border_count, components, first_order, random_division

from .spec import check_labels, check_rejected, check_tatham_example, violated_rules

T = PalisadeTask()
SPEC_ID = "4x3n4:2a22a2"  # from sgt-palisade --generate 1 '4x3n4#kumo'
SPEC_SOLUTION = [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 2, 2]]
OTHER_ID = "5x5n5:g22b2a22a2b222a1"  # from sgt-palisade --generate 3 5x5n5
OTHER_SOLUTION = [[0, 0, 0, 0, 1], [0, 2, 2, 1, 1], [3, 2, 2, 1, 1], [3, 3, 2, 4, 4], [3, 3, 4, 4, 4]]
#: Tatham's AUXINFO of the 5x5n5 puzzle of seed 'kumo1' (its DESC c32c2d2a3b2b2a1)
KUMO1_DESC, KUMO1_AUX = "c32c2d2a3b2b2a1", "SIGKMCJKHCJJJLFJNJICNMFLDG"


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"] == {"n": 4, "clues": [[2, -1, 2, 2], [-1, 2, -1, -1], [-1, -1, -1, -1]]}
    assert (inst.data["H"], inst.data["W"]) == (3, 4)
    check_tatham_example(T, OTHER_ID, OTHER_SOLUTION)
    kumo1 = T.load(f"5x5n5:{KUMO1_DESC}")
    assert codec.aux_solution(kumo1.data["state"], KUMO1_AUX) == kumo1.data["solution"]


def test_any_labelling_scores_one():
    inst = T.load(OTHER_ID)
    renamed = [[20 - v * 3 for v in row] for row in OTHER_SOLUTION]
    v = T.score(inst, T.format_answer(renamed))
    assert v.solved and v.reward == 1
    assert T.progress(inst, renamed) == 1.0


def test_params_grammar():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["5x5n5", "8x6n6", "10x8n8", "15x12n10"]
    assert T.decode_params("15x12n10") == {"W": 15, "H": 12, "n": 10}
    assert T.encode_params(T.resolve_params(**T.decode_params("8x6n6")), full=False) == "8x6n6"
    check_rejected(T.decode_params, ("5x5n7", "5x5n25", "5x5q", "4x4n2", "1x1n1", "5x5nx"))
    with pytest.raises(ConfigError, match="divide"):
        T.resolve_params(W=5, H=5, n=4)


def test_description_errors():
    for bad in ("4x3n4:2a22a2h", "4x3n4:5", "4x3n4:2A", "4x3n4:2!", "4x3n4:z"):
        with pytest.raises(ConfigError):
            T.load(bad)
    with pytest.raises(ConfigError):
        codec.aux_solution(T.load(SPEC_ID).data["state"], "S@@")
    # Tatham leaves out the blank cells after the last number; an explicit run reads the same
    assert T.load("4x3n4:2a22a2e").data["state"] == T.load(SPEC_ID).data["state"]
    assert codec.encode({"clues": [[-1] * 30]}) == ""
    assert codec.encode({"clues": [[-1] * 27 + [3]]}) == "za3"


def test_each_rule_alone():
    inst = T.load(OTHER_ID)
    # R1 alone: regions 0 and 1 swap the unnumbered corners (0, 0) and (0, 4); both keep 5 cells but fall
    # apart ((1, 0) and (0, 0) are cut off), and no number sees a change (nothing beside the corners is numbered)
    bad = [list(r) for r in OTHER_SOLUTION]
    bad[0][0], bad[0][4] = 1, 0
    assert violated_rules(T, inst, bad) == ["palisade.R1"]
    # R2 alone: a puzzle without numbers, two regions of 3 and 5 cells instead of 4 and 4
    free = T.load("4x2n4:")
    assert T.verify(free, [[0, 0, 1, 1], [0, 0, 1, 1]]).solved
    assert violated_rules(T, free, [[0, 0, 0, 1], [0, 0, 1, 1]]) == ["palisade.R2"]
    assert violated_rules(T, free, [[0, 0, 1, 1], [0, 0, 1, -1]]) == ["palisade.R2"]
    # R3 alone: another valid division of the spec example's grid, where the numbers count other sides
    inst = T.load(SPEC_ID)
    bad = [[0, 0, 0, 0], [1, 1, 2, 2], [1, 1, 2, 2]]
    assert violated_rules(T, inst, bad) == ["palisade.R3"]
    v = T.verify(inst, bad)
    assert v.details["first_error_cell"] == [0, 0]


def test_random_divisions_are_divisions():
    rng = np.random.default_rng(3)
    for H, W, n in ((5, 5, 5), (6, 8, 6), (12, 15, 10)):
        labels = random_division(rng, H, W, n)
        regions = components(labels)
        assert len(regions) == H * W // n
        assert all(len(comps) == 1 and len(comps[0]) == n for comps in regions.values())
        assert border_count(labels, 0, 0) >= 2


def test_connectivity_cuts_are_needed():
    """Without the lazy cuts a numberless 4x2n4 grid has labellings whose regions fall apart."""
    from kumo_gym.solvers.engine import Engine

    inst = T.load("6x2n4:")
    enc = T.encoding(inst)
    bare = [enc.decode(v) for v in Engine(enc.formula, enc.answer, None).models(enc.assumptions(), 40)]
    assert any("palisade.R1" in T.verify(inst, g).rules for g in bare)
    assert all(T.verify(inst, g).solved for g in T.solutions(inst, limit=40))


def test_generation_is_deterministic_and_unique():
    for diff in ("trivial", "easy"):
        a = T.generate(np.random.default_rng(11), difficulty=diff)
        assert a == T.generate(np.random.default_rng(11), difficulty=diff)
        assert T.count_solutions(a) == 1
        assert T.verify(a, a.data["solution"]).solved
        assert T.to_game_id(a) == a.data["game_id"] and T.load(a.data["game_id"]).data["state"] == a.data["state"]


def test_claims():
    inst = T.load(OTHER_ID)
    check_labels(inst, correct=[{"type": "SameRegion", "a": [0, 0], "b": [1, 0]},
                                {"type": "DiffRegion", "a": [0, 3], "b": [0, 4]},
                                {"type": "Clue", "r": 1, "c": 2, "n": 2}],
                 incorrect=[{"type": "SameRegion", "a": [0, 3], "b": [0, 4]},
                            {"type": "DiffRegion", "a": [9, 0], "b": [0, 0]},
                            {"type": "Clue", "r": 0, "c": 0, "n": -1}, {"type": "Clue", "r": 1, "c": 2, "n": 3}])
    assert len(solution_claims(inst)) == 2 * 5 * 4


def test_interactive_moves():
    inst = T.load(SPEC_ID)
    state = T.initial_state(inst)
    state = T.apply(inst, state, T.parse_move('{"r": 0, "c": 0, "v": 7}'))
    assert T.state_answer(inst, state)[0][0] == 7 and not T.is_goal(inst, state)
    for m in T.golden_moves(inst):
        state = T.apply(inst, state, m)
    assert T.is_goal(inst, state)


def kernel_count(state: dict, rules: int = kernel.ALL, budget: int = 100_000, es0=None) -> tuple[int, list[list]]:
    """``kernel.count`` of a puzzle state up to 2 (budget 0: the deduction alone, 1 when it solves the puzzle, -1
    when it is stuck), and the first solution's regions."""
    clues = state["clues"]
    H, W = len(clues), len(clues[0])
    es, work, sol = kernel.scratch(H, W)
    if es0 is not None:
        es[:len(es0)] = es0
    got = kernel.count(H, W, int(state["n"]), rules, 2, budget, np.asarray(clues, np.int64).ravel(), es, work, sol)
    return got, first_order(sol.reshape(H, W).tolist())


def test_kernel_agrees_with_sat():
    """The compiled count (deduction and search) against SAT's, on random numberings of random divisions of small
    grids (some numbers changed, so that some have no solution): the same count up to 2, the same solution when
    there is one, and a puzzle the deduction solves is unique and one it refutes has no solution."""
    rng = np.random.default_rng(5)
    seen = set()
    for trial in range(240):
        H, W, n = ((4, 4, 4), (5, 5, 5), (3, 6, 3), (4, 6, 4), (6, 4, 6), (4, 5, 5), (2, 6, 3), (6, 6, 4))[trial % 8]
        labels = random_division(rng, H, W, n)
        keep = rng.uniform(0.2, 0.9)
        clues = [[border_count(labels, r, c) if rng.random() < keep else -1 for c in range(W)] for r in range(H)]
        if trial % 3 == 0:
            clues[int(rng.integers(H))][int(rng.integers(W))] = int(rng.integers(5))
        state = {"n": n, "clues": clues}
        sols = T.solutions(T.make_instance({"W": W, "H": H, "n": n}, state, None, source="test"), limit=2)
        got, sol = kernel_count(state)
        deduced, _ = kernel_count(state, budget=0)
        assert got == len(sols), (W, H, n, clues)
        if got == 1:
            assert sol == first_order(sols[0])
        assert deduced in (-1, got)
        seen.add((got, deduced))
    assert seen == {(0, 0), (0, -1), (1, 1), (1, -1), (2, -1)}  # every case came up


def _generated(n: int = 10) -> list:
    return [T.generate(np.random.default_rng(s), difficulty=d) for d in ("trivial", "easy") for s in range(n)]


def test_every_deduction_rule_is_needed():
    """Drop any one rule but AREA and the deduction no longer solves some generated puzzles (each is
    reduced until the full deduction just solves it); AREA only refutes, so a walled-in area of 5 cells
    with regions of 4 shows it: refuted with AREA, undecided without."""
    insts = _generated()
    for name, bit in kernel.RULES.items():
        if bit == kernel.AREA:
            continue
        solved = [kernel_count(i.data["state"], kernel.ALL & ~bit, budget=0)[0] for i in insts]
        assert any(s != 1 for s in solved), f"without {name} the deduction still solves every puzzle"
    # 3x4, regions of 4: borders wall in {(0,0), (0,1), (0,2), (1,0), (1,1)}
    H, W = 3, 4
    es = np.zeros(kernel.edges(H, W), np.int8)
    for r, c in ((1, 1), (0, 2)):  # the edge right of the cell
        es[r * (W - 1) + c] = kernel.BORDER
    for r, c in ((1, 0), (1, 1), (0, 2)):  # the edge below it
        es[H * (W - 1) + r * W + c] = kernel.BORDER
    state = {"n": 4, "clues": [[-1] * W for _ in range(H)]}
    assert kernel_count(state, budget=0, es0=es)[0] == 0
    assert kernel_count(state, kernel.ALL & ~kernel.AREA, budget=0, es0=es)[0] == -1
    assert kernel_count(state, kernel.ALL & ~kernel.AREA, es0=es)[0] == 0  # the search finds no solution either


def test_generated_puzzles_are_deduced_and_minimal():
    """Every generated puzzle is solved by the deduction, as its solution, and drops no number without that
    failing (Tatham's reduction: one pass in a random order)."""
    insts = _generated(5) + [T.generate(np.random.default_rng(s), difficulty="hard") for s in range(2)]
    for inst in insts:
        state = inst.data["state"]
        got, sol = kernel_count(state, budget=0)
        assert got == 1 and sol == first_order(inst.data["solution"])
        for r, row in enumerate(state["clues"]):
            for c, k in enumerate(row):
                if k != -1 and inst.data["H"] * inst.data["W"] <= 48:
                    fewer = [list(x) for x in state["clues"]]
                    fewer[r][c] = -1
                    assert kernel_count({"n": state["n"], "clues": fewer}, budget=0)[0] != 1, (r, c)


def test_search_stands_in_for_the_deduction():
    """Regions of 3 on a 6x6 grid: the full numbering of a random division is almost never unique, and the
    deduction never solves it within the draws, so the search's count decides; its puzzles are unique (SAT)."""
    for seed in range(2):
        inst = T.generate(np.random.default_rng(seed), W=6, H=6, n=3)
        assert T.count_solutions(inst) == 1
        assert kernel_count(inst.data["state"])[0] == 1
