"""Pattern (docs/specs/grid_puzzles.md §5 "Pattern", §7, §8)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid import tatham
from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.pattern import BLACK, WHITE, PatternTask, runs
from kumo_gym.solvers.sat import Formula, enumerate_models, true_vars

from .spec import check_labels, check_rejected, check_tatham_example

T = PatternTask()
SPEC_ID = "2x2:2//1/1"
SPEC_SOLUTION = [[1, 0], [1, 0]]
#: sgt-pattern --generate 1 10x10 (pinned build); the solution was checked by hand line by line
TATHAM_10 = "10x10:7/3/3.3/2.3/3.2/3.3/5.1/5/3.1/3/8/8/1.6/1.2/1.3/1/1/4.1/7/6"
TATHAM_10_SOLUTION = [[0, 0, 1, 1, 1, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1, 1, 1, 1, 1],
                      [0, 0, 1, 0, 1, 1, 1, 1, 1, 1], [1, 0, 0, 0, 0, 0, 1, 1, 0, 0],
                      [1, 0, 0, 0, 0, 0, 1, 1, 1, 0], [1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                      [1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 0, 1, 0, 0, 0, 0],
                      [1, 1, 1, 1, 1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1, 0, 0, 0, 0]]


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"] == {"rows": [[1], [1]], "cols": [[2], []]}
    assert inst.data["solution"] == SPEC_SOLUTION and (inst.data["W"], inst.data["H"]) == (2, 2)


def test_tatham_id_hand_checked():
    inst = T.load(TATHAM_10)
    assert inst.data["solution"] == TATHAM_10_SOLUTION and T.count_solutions(inst) == 1
    assert T.to_game_id(inst) == TATHAM_10


def test_aux_solution():
    inst = T.load(SPEC_ID)
    assert tatham.codec("pattern").aux_solution(inst.data["state"], "S1010") == SPEC_SOLUTION
    with pytest.raises(ConfigError):
        tatham.codec("pattern").aux_solution(inst.data["state"], "S102")


def test_prefilled_cells():
    # Tatham's walk: "A" sets cell 0 black, "c" skips 2 and sets cell 3 white
    inst = T.load("2x2:2//1/1,Ac")
    assert inst.data["state"]["filled"] == [[0, 0, BLACK], [1, 1, WHITE]]
    assert T.to_game_id(inst) == "2x2:2//1/1,Ac" and '"filled"' in T.prompt(inst)
    assert T.givens(inst) == {(0, 0): BLACK, (1, 1): WHITE}
    inst = T.load("3x3:1//1/1//1,df")  # "d" sets cell 3 white, "f" skips to the end and sets nothing
    assert inst.data["state"]["filled"] == [[1, 0, WHITE]] and T.to_game_id(inst) == "3x3:1//1/1//1,df"
    check_rejected(T.load, ("2x2:2//1/1,Ab", "2x2:2//1/1,Acb", "2x2:2//1/1,A1"))


def test_params_and_clue_grammar():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["2x2", "10x10", "15x15", "25x25"]
    assert T.decode_params("8x6") == {"W": 8, "H": 6} and T.decode_params("5") == {"W": 5, "H": 5}
    check_rejected(T.decode_params, ("8x6d", "0x3", "x"))
    check_rejected(T.load, ("2x2:2//1", "2x2:3//1/1", "2x2:2/0/1/1", "2x2:2//1/a"))


def test_runs_and_line_encoding_agree():
    assert runs([1, 1, 0, 1, 0, 0, 1]) == [2, 1, 1] and runs([0, 0]) == []
    # the models of the encoding of a clue are exactly the 7-cell lines with those runs
    from kumo_gym.envs.grid.pattern import encode_line

    lines = [[(mask >> i) & 1 for i in range(7)] for mask in range(128)]
    for clue in ([], [7], [1, 1], [2, 1, 1], [3, 3], [1, 1, 1, 1]):
        f = Formula()
        cells = [f.var(("x", i)) for i in range(7)]
        encode_line(f, cells, clue, "line")
        models = enumerate_models(f.clauses, cells, limit=200)
        decoded = sorted([int(v in true_vars(m)) for v in cells] for m in models)
        assert decoded == sorted(line for line in lines if runs(line) == clue)


def test_rule_codes():
    inst = T.load(TATHAM_10)
    bad = [list(r) for r in TATHAM_10_SOLUTION]
    bad[5][5] = BLACK
    v = T.verify(inst, bad)
    assert {x["rule"] for x in v.details["violations"]} == {"pattern.R1"} and 0 < v.score < 1
    inst = T.load("2x2:2//1/1,Ac")
    assert "pattern.R1" in {x["rule"] for x in T.verify(inst, [[1, 0], [1, 1]]).details["violations"]}
    assert T.verify(inst, SPEC_SOLUTION).solved


def test_generation_is_deterministic_and_sized():
    a = T.generate(np.random.default_rng(4), W=12, H=7)
    assert a == T.generate(np.random.default_rng(4), W=12, H=7)
    assert (a.data["W"], a.data["H"]) == (12, 7) and a.data["game_id"].startswith("12x7:")
    assert len(a.data["state"]["cols"]) == 12 and T.count_solutions(a) == 1


def test_claims_and_render():
    inst = T.load(SPEC_ID)
    check_labels(inst, correct=[{"type": "Black", "r": 1, "c": 0},
                                {"type": "LineClue", "axis": "COL", "index": 1, "runs": []}],
                       incorrect=[{"type": "Black", "r": 1, "c": 1},
                                  {"type": "LineClue", "axis": "ROW", "index": 0, "runs": [2]}])
    assert solution_claims(inst) == [{"type": "Black", "r": 0, "c": 0}, {"type": "Black", "r": 1, "c": 0}]
    assert T.render(inst, SPEC_SOLUTION).splitlines()[-1] == "1  # ."
    assert T.parse("[[1,0],[1,0]]") == SPEC_SOLUTION


def test_line_solver_certifies_only_unique_pictures():
    """The generator's line solver accepts a picture only when its clues have no other
    solution (checked by SAT), rejects the 2x2 diagonal (two solutions), and accepts most blobs."""
    from kumo_gym.envs.grid.pattern import kernel as _pattern_kernel

    assert not _pattern_kernel.solves(2, 2, np.asarray([1, 0, 0, 1], np.int8), *_pattern_kernel.scratch(2, 2))
    assert _pattern_kernel.solves(2, 2, np.asarray([1, 1, 0, 1], np.int8), *_pattern_kernel.scratch(2, 2))
    rng = np.random.default_rng(3)
    accepted = unique = 0
    for i in range(40):
        H, W = 4 + i % 4, 5 + i % 3
        pic = (rng.random((H, W)) < 0.55).astype(np.int8)
        sol = pic.tolist()
        inst = T.make_instance({"W": W, "H": H}, {"rows": [runs(r) for r in sol], "cols": [runs(c) for c in pic.T.tolist()]},
                               sol, source="test")
        n = T.count_solutions(inst)
        unique += n == 1
        if _pattern_kernel.solves(H, W, pic.ravel(), *_pattern_kernel.scratch(H, W)):
            accepted += 1
            assert n == 1
    assert accepted >= 10 and unique >= accepted


def test_generated_hard_puzzles_are_unique():
    for seed in range(3):
        a = T.generate(np.random.default_rng(seed), difficulty="hard")
        assert T.count_solutions(a) == 1


def _line_fixpoint(pic: np.ndarray) -> np.ndarray:
    """Line-by-line deduction by brute force: every colouring of a line that fits its clue and the
    cells decided so far, a cell decided when all agree; to the fixpoint (1 black, -1 white, 0 open)."""
    H, W = pic.shape
    val = np.zeros((H, W), np.int8)
    lines = [(val[r], runs(pic[r].tolist())) for r in range(H)] + [(val[:, c], runs(pic[:, c].tolist())) for c in range(W)]
    changed = True
    while changed:
        changed = False
        for line, clue in lines:
            fits = [bits for bits in itertools.product((0, 1), repeat=len(line)) if runs(list(bits)) == clue
                    and all(v == 0 or (v == 1) == b for v, b in zip(line, bits))]
            for p in range(len(line)):
                seen = {bits[p] for bits in fits}
                if line[p] == 0 and len(seen) == 1:
                    line[p] = 1 if seen.pop() else -1
                    changed = True
    return val


def test_bitmask_line_solver_matches_brute_force_line_solving():
    """The kernel's bit-mask line solver reaches exactly the fixpoint of brute-force
    line solving: every cell it decides, and only those, on solved and stalled pictures alike."""
    from kumo_gym.envs.grid.pattern import kernel as _pattern_kernel

    rng = np.random.default_rng(11)
    stalled = 0
    for i in range(60):
        H, W = 2 + i % 5, 3 + i % 4
        pic = (rng.random((H, W)) < 0.3 + 0.4 * rng.random()).astype(np.int8)
        scratch = _pattern_kernel.scratch(H, W)
        ok = _pattern_kernel.solves(H, W, pic.ravel(), *scratch)
        want = _line_fixpoint(pic)
        assert np.array_equal(scratch[2].reshape(H, W), want), pic.tolist()
        assert ok == bool((want != 0).all())
        stalled += not ok
    assert stalled >= 5
