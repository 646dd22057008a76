"""Unruly (docs/specs/grid_puzzles.md §5 "Unruly", §7, §8)."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.unruly import BLACK, EMPTY, WHITE, UnrulyTask
from kumo_gym.solvers.sat import grade

from .spec import check_labels, check_rejected, check_tatham_example

T = UnrulyTask()
SPEC_ID = "6x6:AcGBcbAIAec"
SPEC_SOLUTION = [[1, 0, 1, 0, 0, 1], [0, 1, 0, 1, 1, 0], [1, 0, 1, 0, 1, 0],
                 [1, 0, 0, 1, 0, 1], [0, 1, 0, 1, 1, 0], [0, 1, 1, 0, 0, 1]]


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    grid = inst.data["state"]["grid"]
    # A: black at 0; c: skip 2, white at 3; G: skip 6, black at 10
    assert grid[0][0] == BLACK and grid[0][3] == WHITE and grid[1][4] == BLACK and grid[0][1] == EMPTY
    assert inst.data["state"]["unique"] is False


def test_unique_flag_id_from_tatham():
    # sgt-unruly --generate 1 8x8udt
    inst = T.load("8x8u:BiCCBDFcdBCAfBCBBBcc")
    assert inst.data["state"]["unique"] is True and T.count_solutions(inst) == 1
    sol = inst.data["solution"]
    assert len({tuple(r) for r in sol}) == 8 and len({tuple(c) for c in zip(*sol)}) == 8
    assert T.to_game_id(inst) == "8x8u:BiCCBDFcdBCAfBCBBBcc"


def test_params_grammar():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["6x6dt", "8x6dt", "8x8dt", "14x14dt"]
    assert T.decode_params("8x8udn") == {"W": 8, "H": 8, "unique": True, "tatham_difficulty": "n"}
    assert T.encode_params(T.resolve_params(W=8, H=8, unique=True), full=False) == "8x8u"
    check_rejected(T.decode_params, ("4x4dt", "7x8dt", "8x8dq", "8x8du"))
    with pytest.raises(ConfigError):
        T.load("6x6:AcGBcbAIAe")  # the sentinel is missing
    with pytest.raises(ConfigError):
        T.load("6x6:AcGBcbAIAecA")  # runs past the grid


def test_rule_codes():
    inst = T.load(SPEC_ID)
    bad = [list(r) for r in SPEC_SOLUTION]
    bad[0][0] = WHITE  # a given changed, which also unbalances row 0 and column 0
    rules = {v["rule"] for v in T.verify(inst, bad).details["violations"]}
    assert {"unruly.R1", "unruly.R3"} <= rules
    bad = [list(r) for r in SPEC_SOLUTION]
    bad[0][4] = BLACK  # row 0 becomes 1 0 1 0 1 1 and column 4 starts 1 1 1
    assert "unruly.R2" in {v["rule"] for v in T.verify(inst, bad).details["violations"]}
    uinst = T.load("8x8u:BiCCBDFcdBCAfBCBBBcc")
    sol = [list(r) for r in uinst.data["solution"]]
    twin = [list(sol[0])] + [list(sol[0])] + sol[2:]
    assert "unruly.R4" in {v["rule"] for v in T.verify(uinst, twin).details["violations"]}


def propagation_grade(inst):
    """The docs/specs/grid_puzzles.md §8 grade with the givens passed as assumptions (root-level unit clauses are not
    reported by the propagating solver, so they are kept out of the clause set here)."""
    H, W = T.dims(inst)
    f, x = T._rules(H, W, inst.data["state"]["unique"])
    lits = [x[k] if v == BLACK else -x[k] for k, v in sorted(T.givens(inst).items())]
    return grade(f.clauses, [x[k] for k in sorted(x)], lits)


def test_unique_variant_generation_and_determinism():
    a = T.generate(np.random.default_rng(3), W=8, H=6, unique=True, tatham_difficulty="n")
    assert a == T.generate(np.random.default_rng(3), W=8, H=6, unique=True, tatham_difficulty="n")
    assert a.data["game_id"].startswith("8x6u:") and a.data["tatham_params"] == "8x6udn"
    assert T.count_solutions(a) == 1 and "no two rows" in T.prompt(a)


def test_claims_and_render():
    inst = T.load(SPEC_ID)
    check_labels(inst, correct=[{"type": "Black", "r": 0, "c": 0}, {"type": "Given", "r": 0, "c": 3, "v": 0}],
                       incorrect=[{"type": "White", "r": 0, "c": 0}, {"type": "Given", "r": 0, "c": 1, "v": 0}])
    assert T.render(inst).splitlines()[1].split()[:4] == ["[#]", ".", ".", "[o]"]
    assert T.check_move(inst, T.initial_state(inst), (0, 0, WHITE)) is not None  # givens are fixed


def test_generator_kernel_fills_valid_grids_and_reduces_as_the_cnf_propagation():
    """The generator's grid kernel: filled grids keep every rule, and clue reduction
    keeps exactly the givens the engine's CNF propagation keeps in the same order."""
    from kumo_gym.envs.grid.unruly import kernel as _unruly_kernel

    rng = np.random.default_rng(11)
    for H, W in ((6, 6), (6, 8), (10, 8)):
        n = H * W
        val, counts, trail = _unruly_kernel.scratch(H, W)
        filled = 0
        while filled < 2:
            order = rng.permutation(n).astype(np.int64)
            colour = np.where(rng.random(n) < 0.5, 1, -1).astype(np.int8)
            if not _unruly_kernel.run(H, W, order, colour, val, val, val, counts, trail):
                continue
            filled += 1
            sol = np.where(val > 0, BLACK, WHITE).reshape(H, W).tolist()
            inst = T.make_instance({"W": W, "H": H}, {"grid": [[EMPTY] * W for _ in range(H)], "unique": False},
                                   sol, source="test")
            assert T.verify(inst, sol).solved
            truth, active = val.copy(), np.ones(n, np.int8)
            drop = rng.permutation(n).astype(np.int64)
            _unruly_kernel.run(H, W, drop, np.zeros(0, np.int8), truth, active, val, counts, trail)
            enc = T.encode({"grid": sol, "unique": False})
            on = set(enc.clues)
            for i in drop.tolist():
                on.discard((i // W, i % W))
                lits = [x for k in sorted(on) for x in enc.clues[k][1]]
                if not enc.engine.fixes_answer(enc.engine.propagate(lits)):
                    on.add((i // W, i % W))
            assert sorted(on) == [(i // W, i % W) for i in np.flatnonzero(active)]


def test_generated_presets_are_unique_and_propagation_solved():
    for d in ("trivial", "hard"):
        a = T.generate(np.random.default_rng(2), difficulty=d)
        assert a == T.generate(np.random.default_rng(2), difficulty=d)
        assert T.grade(a) == 0 and T.count_solutions(a) == 1 and T.verify(a, a.data["solution"]).solved
