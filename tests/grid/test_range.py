"""Range (docs/specs/grid_puzzles.md §5 "Range", §7, §8)."""
from __future__ import annotations

import numpy as np

from kumo_gym.envs.grid.range import BLACK, WHITE, RangeTask
from kumo_gym.envs.grid.range.deduce import deduce_grid, draw
from kumo_gym.solvers import sat

from .spec import check_labels, check_rejected, check_tatham_example

T = RangeTask()
SPEC_ID = "3x3:b3_5a5_3b"
SPEC_SOLUTION = [[0, -1, 0], [0, 0, 0], [0, -1, 0]]


def rules(inst, grid):
    return {v["rule"] for v in T.verify(inst, grid).details.get("violations", [])}


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"]["grid"] == [[0, 0, 3], [5, 0, 5], [3, 0, 0]]
    # a numbered cell may be written as its number
    assert T.verify(inst, T.parse("[[0, -1, 3], [5, 0, 5], [3, -1, 0]]")).solved


def test_params_and_grammar_errors():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["3x3", "6x4", "9x6", "13x9"]
    assert T.decode_params("9x6") == {"W": 9, "H": 6}
    check_rejected(T.decode_params, ("9x6de", "2x2"))
    check_rejected(T.load, ("3x3:b3_5a5_3", "3x3:b3_5a5_3c", "3x3:b3_5a6_3b", "3x3:b3_5a5_3b!", "3x3:b0_5a5_3b"))


def test_uniqueness_needs_the_connectivity_cuts():
    """The CNF without the cuts has a second model, whose whites fall apart."""
    inst = T.load("3x3:3b4d3")
    enc = T.encoding(inst)
    plain = sat.enumerate_models(enc.formula.clauses, enc.answer.tolist(), limit=5, assumptions=enc.assumptions())
    assert len(plain) == 2
    assert T.count_solutions(inst, limit=5) == 1
    assert T.solve(inst) == [[0, 0, -1], [0, 0, 0], [-1, 0, 0]]
    # with the cuts SAT agrees; Range's own deduction stalls here (Tatham's would recurse), so the
    # answer above came from SAT
    assert len(enc.engine.models(enc.assumptions(), limit=5)) == 1
    assert (deduce_grid(inst.data["state"]["grid"]) == 0).any() and T.grade(inst) > 0


def sat_models(inst, limit=3):
    enc = T.encoding(inst)
    return [enc.decode(m) for m in enc.engine.models(enc.assumptions(), limit=limit)]


def test_deduction_is_sound():
    """On small puzzles (generated ones and random numbers): whenever Range's deduction solves a
    puzzle, SAT with the cuts finds exactly that solution; a contradiction means no solution; an
    undecided cell is never decided against a solution."""
    rng = np.random.default_rng(5)
    outcomes = set()
    for trial in range(160):
        H, W = int(rng.integers(3, 5)), int(rng.integers(3, 5))
        grid = draw(rng, H, W)[0]["grid"]
        if trial % 2:
            grid = [[0] * W for _ in range(H)]
            for _ in range(int(rng.integers(1, 5))):
                grid[int(rng.integers(H))][int(rng.integers(W))] = int(rng.integers(1, H + W))
        inst = T.make_instance({"W": W, "H": H}, {"grid": grid}, None, source="test")
        st, models = deduce_grid(grid), sat_models(inst)
        if st is None:
            assert models == []
            outcomes.add("contradiction")
            continue
        for m in models:
            assert all(v == BLACK for v, s in zip(np.ravel(m), st.ravel()) if s < 0)
            assert all(v == WHITE for v, s in zip(np.ravel(m), st.ravel()) if s > 0)
        if (st != 0).all():
            assert models == [np.where(st < 0, BLACK, WHITE).tolist()]
            outcomes.add("solved")
        else:
            outcomes.add("open")
    assert outcomes == {"contradiction", "solved", "open"}
    # a puzzle with two solutions is never called solved
    two = T.load("3x3:e3c")
    assert len(sat_models(two)) > 1 and (deduce_grid(two.data["state"]["grid"]) == 0).any()


def test_one_wrong_answer_per_rule():
    inst = T.load(SPEC_ID)
    bad = [list(r) for r in SPEC_SOLUTION]
    bad[0][1] = WHITE  # the 3s and 5s now see too much
    assert rules(inst, bad) == {"range.R4"}
    # hand-made puzzles: one clue each, so only the broken rule fails
    one = T.load("3x3:e3c")  # a 3 at (1, 2)
    assert rules(one, [[0, -1, -1], [0, 0, 0], [0, 0, -1]]) == {"range.R2"}
    assert rules(one, [[0, -1, 0], [-1, 0, 0], [0, 0, -1]]) == {"range.R3"}
    corner = T.load("3x3:3h")  # a 3 at (0, 0): black it and the count still holds
    assert rules(corner, [[-1, 0, -1], [0, 0, 0], [-1, 0, 0]]) == {"range.R1"}


def test_generated_symmetric_numbers():
    inst = T.generate(np.random.default_rng(2), difficulty="normal")
    grid = inst.data["state"]["grid"]
    H, W = len(grid), len(grid[0])
    sol = inst.data["solution"]
    for r in range(H):
        for c in range(W):  # numbers come in half-turn pairs (as Tatham's: none faces a black cell)
            if grid[r][c]:
                assert grid[H - 1 - r][W - 1 - c] and sol[H - 1 - r][W - 1 - c] != BLACK
    assert T.grade(inst) == 0 and sat_models(inst) == [sol]
    assert T.generate(np.random.default_rng(2), difficulty="normal").data == inst.data  # deterministic


def test_claims_render_and_moves():
    inst = T.load(SPEC_ID)
    check_labels(inst, correct=[{"type": "Black", "r": 0, "c": 1}, {"type": "Clue", "r": 1, "c": 0, "n": 5}],
                       incorrect=[{"type": "White", "r": 0, "c": 1}, {"type": "Clue", "r": 1, "c": 1, "n": 5}])
    assert T.solution_claims(inst) == [{"type": "Black", "r": 0, "c": 1}, {"type": "Black", "r": 2, "c": 1}]
    assert T.check_move(inst, T.initial_state(inst), (0, 2, BLACK)) is not None  # numbered cells are fixed
    assert "#" in T.render(inst, SPEC_SOLUTION) and T.render_rgb(inst).ndim == 3


def test_rule_checks_at_the_grid_edges():
    """Checks that only a wrapped index or a wrong order would get wrong (found by mutation
    testing, docs/testing.md): black cells in the first and last row of one column are not
    neighbours, and R3 names the cells outside the largest white area, whatever their order."""
    from kumo_gym.core.instance import Instance

    task = RangeTask()
    nums = [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    inst = Instance("range", {"W": 4, "H": 4, "state": {"grid": nums}, "solution": None}, {})
    grid = [[WHITE] * 4 for _ in range(4)]
    grid[0][1] = grid[3][1] = BLACK  # same column, first and last row
    checks = task.rule_checks(inst, grid)
    assert checks and all(ch.rule in ("R1", "R2", "R3", "R4") and isinstance(ch.cells, list) for ch in checks)
    assert all(ch.ok is True for ch in checks)  # a puzzle without numbers: every check holds
    grid = [[WHITE] * 4 for _ in range(4)]
    grid[3][2] = grid[2][3] = BLACK  # cuts the last cell off: a one-cell area after a 13-cell one
    (r3,) = [ch for ch in task.rule_checks(inst, grid) if ch.rule == "R3"]
    assert not r3.ok and r3.cells == [(3, 3)]
