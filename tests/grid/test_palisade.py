"""Palisade (docs/specs/grid_puzzles.md §5 "Palisade", §7, §8)."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.palisade import PalisadeTask, codec
from kumo_gym.envs.grid.palisade.geometry import border_count, components, random_division

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
