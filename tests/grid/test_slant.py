"""Slant (docs/specs/grid_puzzles.md §5 "Slant", §7, §8)."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.slant import SlantTask, clue_counts, codec
from kumo_gym.envs.grid.slant.geometry import loops, random_filling

from .spec import check_labels, check_rejected, check_tatham_example, violated_rules

T = SlantTask()
B, S = "\\", "/"
SPEC_ID = "3x3:a1b2d1a0d"
SPEC_SOLUTION = [[S, S, S], [B, B, S], [B, S, B]]
OTHER_ID = "3x3:1a0c3b2a2b1a"  # from sgt-slant --generate 1 '3x3de#kumo'
OTHER_SOLUTION = [[B, B, S], [B, B, B], [S, S, S]]


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"]["clues"] == [[-1, 1, -1, -1], [2, -1, -1, -1], [-1, 1, -1, 0], [-1, -1, -1, -1]]
    assert (inst.data["H"], inst.data["W"]) == (3, 3)
    other = check_tatham_example(T, OTHER_ID, OTHER_SOLUTION)
    assert codec.aux_solution(other.data["state"], "\\\\/\\\\\\///") == OTHER_SOLUTION


def test_params_grammar():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["5x5de", "8x8de", "8x8dh", "12x10dh"]
    assert T.decode_params("12x10dh") == {"W": 12, "H": 10, "tatham_difficulty": "h"}
    assert T.encode_params(T.resolve_params(**T.decode_params("5x5dh"))) == "5x5dh"
    assert T.encode_params(T.resolve_params(**T.decode_params("5x5dh")), full=False) == "5x5"
    check_rejected(T.decode_params, ("5x5dx", "5x5q", "1x1de"))


def test_description_errors():
    for bad in ("3x3:1a0c3b2a2b1", "3x3:1a0c3b2a2b1aa", "3x3:1a0c3b2a2b1!", "3x3:5o", "3x3:1a0c3b2a2b1a5"):
        with pytest.raises(ConfigError):
            T.load(bad)
    with pytest.raises(ConfigError, match="exceeds"):
        T.load("3x3:2o")  # a corner point touches one cell
    with pytest.raises(ConfigError):
        codec.aux_solution(T.load(SPEC_ID).data["state"], "//")


def test_each_rule_alone():
    inst = T.load(OTHER_ID)
    # R1: the bottom row all "\" instead: point (3, 2) and (2, 1) see other counts, and no loop forms
    bad = [list(r) for r in OTHER_SOLUTION]
    bad[2][2] = B
    assert violated_rules(T, inst, bad) == ["slant.R1"]
    # R2 alone: a diamond around the unnumbered centre of a 2x2 grid
    free = T.load("2x2:i")
    assert T.verify(free, [[B, S], [S, B]]).solved
    assert violated_rules(T, free, [[S, B], [B, S]]) == ["slant.R2"]
    v = T.verify(free, [[S, B], [B, S]])
    assert v.details["first_error_cell"] == [0, 0]


def test_loops_finds_long_loops():
    # a loop of eight diagonals around the 2x2 block in the middle of a 4x4 grid
    g = np.zeros((4, 4), bool)
    ring = {(0, 1): False, (0, 2): True, (1, 0): False, (1, 3): True, (2, 0): True, (2, 3): False,
            (3, 1): True, (3, 2): False}
    for cell, back in ring.items():
        g[cell] = back
    g[1, 1], g[1, 2], g[2, 1], g[2, 2] = True, True, True, False  # inside: a path and a spur, no smaller loop
    found = loops(g)
    assert len(found) == 1 and sorted(found[0]) == sorted(ring)


def test_random_fillings_have_no_loops():
    rng = np.random.default_rng(3)
    for _ in range(20):
        back = random_filling(rng, 6, 7)
        assert loops(back) == []
        assert clue_counts(back)[0][0] == int(back[0, 0])


def test_loop_cuts_are_needed():
    """A Tatham 5x5dh puzzle whose numbers alone (with the four-cell loops) allow a second filling
    that closes a longer loop: the lazy cuts rule it out."""
    from kumo_gym.solvers.engine import Engine

    inst = T.load("5x5:c1c23a3a1a1d1a21b311a1a1a1b")
    enc = T.encoding(inst)
    bare = [enc.decode(v) for v in Engine(enc.formula, enc.answer, None).models(enc.assumptions(), 2)]
    assert len(bare) == 2 and T.count_solutions(inst) == 1
    assert sorted(T.verify(inst, g).rules for g in bare) == [[], ["slant.R2"]]


def test_easy_kernel_solves_tathams_easy_puzzles():
    """Our Easy rules decide every cell of Tatham's Easy puzzles: given one more true number, the
    kernel drops it again (the numbers left still decide the filling)."""
    from kumo_gym.envs.grid.slant import kernel

    for game_id in ['8x8:d112c132c30a4c3a1b2b222a1b3a23d1b3a33a2a223b22c11b2b2a2b0b', '8x8:e1a1003a3b22b2a222a2111b32c0b3a1a11d1a22a22b32a3b2a2b4a01a1f', '8x8:c02d22c1a20122d1c31a1b11b3322a12a22g3b223a1c3c2111b0c']:
        inst = T.load(game_id)
        clues = np.asarray(inst.data["state"]["clues"])
        full = clue_counts(np.asarray(inst.data["solution"]) == B)
        active, val, parent = kernel.scratch(8, 8)
        active[:] = clues.ravel() >= 0
        extra = int(np.flatnonzero(clues.ravel() < 0)[0])
        active[extra] = 1
        assert kernel.reduce(8, 8, full.ravel(), active, np.asarray([extra]), val, parent) == (clues >= 0).sum()
        # and a number whose removal leaves the cells undecided stays
        first = int(np.flatnonzero(clues.ravel() >= 0)[0])
        assert kernel.reduce(8, 8, full.ravel(), active, np.asarray([first]), val, parent) == (clues >= 0).sum()


def test_generation_is_deterministic_graded_and_unique():
    for diff, grade in (("trivial", 2), ("normal", 1)):
        a = T.generate(np.random.default_rng(11), difficulty=diff)
        assert a == T.generate(np.random.default_rng(11), difficulty=diff)
        assert T.count_solutions(a) == 1 and T.grade(a) <= grade
        assert T.verify(a, a.data["solution"]).solved
        assert T.to_game_id(a) == a.data["game_id"] and T.load(a.data["game_id"]).data["state"] == a.data["state"]


def test_claims():
    inst = T.load(OTHER_ID)
    check_labels(inst, correct=[{"type": "Backslash", "r": 0, "c": 0}, {"type": "Slash", "r": 2, "c": 1},
                                {"type": "Clue", "r": 1, "c": 2, "n": 3}, {"type": "Clue", "r": 3, "c": 2, "n": 1}],
                 incorrect=[{"type": "Slash", "r": 0, "c": 0}, {"type": "Backslash", "r": 5, "c": 0},
                            {"type": "Clue", "r": 0, "c": 1, "n": -1}, {"type": "Clue", "r": 4, "c": 0, "n": 1}])
    assert len(solution_claims(inst)) == 9


def test_interactive_moves():
    inst = T.load(SPEC_ID)
    state = T.initial_state(inst)
    move = T.parse_move('{"r": 0, "c": 0, "v": "\\\\"}')
    state = T.apply(inst, state, move)
    assert T.state_answer(inst, state)[0][0] == B and not T.is_goal(inst, state)
    for m in T.golden_moves(inst):
        state = T.apply(inst, state, m)
    assert T.is_goal(inst, state)


class _Fixed:
    """A stand-in generator whose one permutation is ``order``."""

    def __init__(self, order: np.ndarray):
        self.order = order

    def permutation(self, n: int) -> np.ndarray:
        assert n == len(self.order)
        return self.order.copy()


def test_hard_kernel_keeps_the_numbers_the_engine_keeps():
    """The Hard reduction kernel is failed-literal probing on the SAT model's rules: from the same
    filling and order it keeps exactly the numbers that the engine's reduce_clues (grade 1, on the
    clause arrays) keeps, on square and oblong grids, and what it keeps leaves one solution."""
    from kumo_gym.envs.grid.slant import kernel
    from kumo_gym.solvers.engine import reduce_clues

    for seed, (H, W) in enumerate([(5, 5), (8, 8), (8, 8), (6, 9), (10, 7)] * 3):
        rng = np.random.default_rng([21, seed])
        back = random_filling(rng, H, W)
        full = clue_counts(back)
        order = rng.permutation(full.size)
        active, val, trail, seen = kernel.hard_scratch(H, W)
        left = kernel.reduce_hard(H, W, full.ravel(), active, order, val, trail, seen)
        enc = T.encode({"clues": full.tolist()})
        x = enc.extra["x"]
        truth = enc.solution_values(np.where(back, x, -x).ravel().tolist())
        # the engine draws its order from the generator it is given: hand it one that gives ``order``
        want = reduce_clues(enc.engine, [list(enc.clues[k][1]) for k in enc.clues], _Fixed(order), truth,
                            grade_limit=1)
        assert active.astype(bool).tolist() == want and left == sum(want), (H, W, seed)
        clues = np.where(active.reshape(full.shape) > 0, full, -1).tolist()
        inst = T.load(f"{W}x{H}:{codec.encode({'clues': clues})}")
        assert T.count_solutions(inst, limit=2) == 1
