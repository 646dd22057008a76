"""Rectangles (docs/specs/grid_puzzles.md §5 "Rect", §6, §7): region labels are arbitrary."""
from __future__ import annotations

import json

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.rect import RectTask

from .spec import check_labels, check_rejected, check_tatham_example, violated_rules

T = RectTask()
SPEC_ID = "5x5:3i2_4a3_3a3c2_3b2"
SPEC_SOLUTION = [[0, 0, 0, 3, 4], [1, 2, 2, 3, 4], [1, 2, 2, 3, 4], [6, 5, 5, 5, 8], [6, 7, 7, 7, 8]]


def rules(inst, grid):
    return violated_rules(T, inst, grid)


def test_spec_example():
    check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert [T.tatham_preset(d) for d in T.difficulties] == ["2x1", "5x5", "7x7", "15x15"]


def test_relabelled_answers_are_accepted():
    inst = T.load(SPEC_ID)
    for relabel in (lambda v: 24 - v, lambda v: v + 1, lambda v: [7, 3, 25, 0, 11, 2, 9, 4, 1][v]):
        grid = [[relabel(v) for v in row] for row in SPEC_SOLUTION]
        assert T.verify(inst, grid).solved
        assert T.score(inst, json.dumps(grid)).reward == 1.0
    # partial credit sees regions, not label values
    bad = [list(r) for r in SPEC_SOLUTION]
    bad[3][3], bad[4][3] = bad[4][3], bad[3][3]
    moved = [[24 - v for v in row] for row in bad]
    assert 0 < T.verify(inst, bad).score == T.verify(inst, moved).score < 1


@pytest.mark.parametrize("desc", ["3i2_4a3_3a3c2_3b", "3i2_4a3_3a3c2_3b2a", "3i2_4a3_3a3c2_3b3",
                                  "3i2_4a3_3a3c2_3b2!", "30i2_4a3_3a3c2_3b2"])
def test_grammar_errors(desc):
    with pytest.raises(ConfigError):
        T.load(f"5x5:{desc}")


def test_params_grammar():
    assert T.decode_params("7x7") == {"W": 7, "H": 7, "ambiguous": False}
    assert T.decode_params("2x1") == {"W": 2, "H": 1, "ambiguous": False}
    assert T.decode_params("7x7a") == {"W": 7, "H": 7, "ambiguous": True}
    inst = T.load({"game_id": SPEC_ID, "tatham_params": "5x5a"})
    assert inst.data["tatham_params"] == "5x5a" and inst.data["solution"] == SPEC_SOLUTION
    check_rejected(T.decode_params, ("7x7ae2", "7x7e", "7x7e9", "1x1", "31x5"))


def test_each_rule_breaks_alone():
    inst = T.load(SPEC_ID)
    g = [list(r) for r in SPEC_SOLUTION]
    g[3][3], g[4][3] = g[4][3], g[3][3]  # two regions of the right size with one number each, not rectangles
    assert rules(inst, g) == ["rect.R1"]
    g = [list(r) for r in SPEC_SOLUTION]
    g = [[3 if v == 4 else v for v in row] for row in g]  # two columns merged: a 3x2 rectangle with two 3s
    assert rules(inst, g) == ["rect.R2"]
    g = [list(r) for r in SPEC_SOLUTION]
    g[3][0] = 1  # the 2 at (2, 0) now has 3 cells, the 2 at (4, 0) has one
    assert rules(inst, g) == ["rect.R3"]
    g = [list(r) for r in SPEC_SOLUTION]
    g[0][1] = -1  # a cell left out
    v = T.verify(inst, g)
    assert "rect.R1" in v.rules and v.details["first_error_cell"] == [0, 0]


def test_rectangle_moves():
    inst = T.load(SPEC_ID)
    s = T.initial_state(inst)
    assert all(v == -1 for row in s for v in row)
    move = T.parse_move('I draw {"op": "rect", "r0": 0, "c0": 0, "r1": 1, "c1": 2}')
    assert move == ("rect", 0, 0, 1, 2) and T.check_move(inst, s, move) is None
    s = T.apply(inst, s, move)
    assert s[0][:3] == (0, 0, 0) and s[1][:3] == (0, 0, 0)
    s = T.apply(inst, s, ("rect", 0, 0, 0, 2))  # overlaps the first: it is erased
    assert s[0][:3] == (0, 0, 0) and s[1][:3] == (-1, -1, -1)
    s = T.apply(inst, s, T.parse_move('{"op": "erase", "r": 0, "c": 1}'))
    assert all(v == -1 for row in s for v in row)
    assert T.check_move(inst, s, ("rect", 0, 0, 5, 0)) is not None
    assert T.check_move(inst, s, ("rect", 1, 0, 0, 0)) is not None
    for m in T.golden_moves(inst):
        s = T.apply(inst, s, m)
    assert T.is_goal(inst, s) and len(T.golden_moves(inst)) == 9


def test_claims():
    inst = T.load(SPEC_ID)
    cstar = solution_claims(inst)
    assert len(cstar) == 9 and {"type": "Rect", "r0": 1, "c0": 1, "r1": 2, "c1": 2} in cstar
    check_labels(inst, incorrect=[{"type": "Rect", "r0": 1, "c0": 1, "r1": 2, "c1": 1},
                                  {"type": "SameRegion", "a": [0, 2], "b": [0, 3]},
                                  {"type": "Clue", "r": 2, "c": 1, "n": 3}],
                       correct=[{"type": "SameRegion", "a": [0, 0], "b": [0, 2]},
                                {"type": "DiffRegion", "a": [0, 2], "b": [0, 3]},
                                {"type": "Clue", "r": 2, "c": 1, "n": 4}])


def test_generated_divisions_have_tatham_density():
    counts = [T.clue_count(T.generate(np.random.default_rng(s), difficulty="normal")) for s in range(8)]
    assert 11 <= np.mean(counts) <= 17  # Tatham's 7x7: 14.0 rectangles on average


def test_interactive_episode_with_rectangle_moves():
    import gymnasium as gym

    env = gym.make("kumo_gym/Rect-v0", mode="interactive")
    obs, _ = env.reset(options={"instance": SPEC_ID})
    assert '"op": "rect"' in obs
    moves = T.golden_moves(env.unwrapped.instance)
    for i, m in enumerate(moves):
        _, reward, terminated, _, info = env.step(f"Next: {T.format_move(m)}")
        assert terminated == (i == len(moves) - 1)
    assert reward == 1.0 and info["verdict"]["status"] == "solved"


def test_expansion_factor():
    assert T.decode_params("7x7e0.5a") == {"W": 7, "H": 7, "expansion": 0.5, "ambiguous": True}
    for s in ("7x7e1", "7x7e1.25", "7x7e0.5a", "15x15"):
        assert T.encode_params(T.resolve_params(**T.decode_params(s))) == s
    plain = [T.clue_count(T.generate(np.random.default_rng(s), W=9)) for s in range(4)]
    wide = [T.generate(np.random.default_rng(s), W=9, expansion=1.0) for s in range(4)]
    assert all(T.count_solutions(i) == 1 and i.data["tatham_params"] == "9x9e1" for i in wide)
    assert np.mean([T.clue_count(i) for i in wide]) < np.mean(plain)  # stretched: fewer, larger rectangles
    with pytest.raises(ConfigError):
        T.resolve_params(W=7, expansion=9.0)


def test_not_rect_claims():
    inst = T.load(SPEC_ID)
    check_labels(inst, correct=[{"type": "NotRect", "r0": 1, "c0": 1, "r1": 2, "c1": 1}],
                       incorrect=[{"type": "NotRect", "r0": 1, "c0": 1, "r1": 2, "c1": 2}])


def test_draws_repeat_generator_integers_exactly():
    """The generator's integer draws (regions.Draws) are ``Generator.integers(n)``'s own,
    small and huge ranges alike, and ``finish`` leaves the generator where those calls would (the
    next draws of any kind agree); a range beyond 2**32 is refused."""
    from kumo_gym.envs.grid.regions import Draws

    ns = np.random.default_rng(1).integers(1, 3000, 3000).tolist() + [1, 2, 3, 2**31, 2**32 - 1, 2**32] * 50
    for seed in range(3):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        b.integers(5)  # a buffered 32-bit half in the generator's state to start from
        a.integers(5)
        draws = Draws(b)
        assert [int(a.integers(n)) for n in ns[seed::3]] == [draws.integers(n) for n in ns[seed::3]]
        draws.finish()
        assert int(a.integers(9)) == int(b.integers(9)) and a.random() == b.random()
    with pytest.raises(ValueError):
        Draws(np.random.default_rng(0)).integers(2**32 + 1)
