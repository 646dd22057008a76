"""Unequal (docs/specs/grid_puzzles.md §5 "Unequal", §7)."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import kumo_gym  # noqa: F401
from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.unequal import UnequalTask

from .spec import check_labels, check_rejected, check_tatham_example

T = UnequalTask()
SPEC_ID = "3:2,0,0,0,1,0,0,0,0,"
SPEC_SOLUTION = [[2, 3, 1], [3, 1, 2], [1, 2, 3]]
TRICKY = "4:0,0R,0,3,0,0,0,0D,0,0R,0D,0,0R,0,0,0,"  # sgt-unequal --generate 1 '4dk#kumo1'
ADJACENT = "4a:0D,0,1,0,0UR,0DL,0,0,0,0UR,0DL,0,0,0,0UR,0L,"


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"] == {"n": 3, "mode": "unequal", "grid": [[2, 0, 0], [0, 1, 0], [0, 0, 0]], "gt": []}


def test_signs_and_the_text_layout():
    inst = T.load(TRICKY)
    st = inst.data["state"]
    # 0R at (0, 1): (0, 1) > (0, 2); 0D at (1, 3): (1, 3) > (2, 3)
    assert [[0, 1], [0, 2]] in st["gt"] and [[1, 3], [2, 3]] in st["gt"] and len(st["gt"]) == 5
    assert T.count_solutions(inst) == 1 and T.to_game_id(inst) == TRICKY
    assert T.render_state(inst, T.initial_grid(inst)).splitlines()[:4] == [".   . > .   3", "", ".   .   .   .",
                                                                            "            v"]
    assert "open towards the larger number" in T.prompt(inst)


def test_adjacent_mode():
    inst = T.load(ADJACENT)
    st = inst.data["state"]
    assert st["mode"] == "adjacent" and [[0, 0], [1, 0]] in st["adj"] and "gt" not in st
    sol = inst.data["solution"]
    assert T.count_solutions(inst) == 1 and T.verify(inst, sol).solved and T.to_game_id(inst) == ADJACENT
    assert T.decode_params("5adk") == {"n": 5, "adjacent": True, "tatham_difficulty": "k"}
    assert T.encode_params(T.resolve_params(n=5, adjacent=True, tatham_difficulty="e"), full=False) == "5a"
    gen = T.generate(np.random.default_rng(0), n=5, adjacent=True, tatham_difficulty="e")
    assert gen.data["game_id"].startswith("5a:") and T.count_solutions(gen) == 1


def test_skip_letters_are_read_and_stored_canonically():
    inst = T.load("3:2,c1,0,0,0,0,")  # "c" skips three cells
    assert inst.data["state"] == T.load(SPEC_ID).data["state"] and inst.data["game_id"] == SPEC_ID
    env = gym.make("kumo_gym/Unequal-v0")
    env.reset(options={"instance": "3:2,c1,0,0,0,0,"})
    assert env.unwrapped.instance.data["game_id"] == SPEC_ID


def test_grammar_errors():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["3dt", "4de", "4dk", "7dk"]
    check_rejected(T.decode_params, ("4x4dk", "4dq", "12de"))
    for gid, why in (("3:2,0,0,0,1,0,0,0,", "covers 8"), ("3:2,0,0,0,1,0,0,0,0,0,", "more than 9"),
                     ("3:2,0,0,0,1,0,0,0,0", "','"), ("3:2,0,0,0,4,0,0,0,0,", "outside"),
                     ("3:2,0,0,0,1,0,0,0,z", "more than 9"), ("3:2U,0,0,0,1,0,0,0,0,", "off the grid"),
                     ("3:2R,0L,0,0,1,0,0,0,0,", "contradict"), ("3a:2R,0,0,0,1,0,0,0,0,", "contradict"),
                     ("3:2,!,0,0,1,0,0,0,0,", "number"), ("3:2,0,0,0,1,0,0,0,0,?", "more than 9"),
                     ("3:2,0,0,0,1,0,0,0,0Q,", "','")):
        with pytest.raises(ConfigError, match=f"(?i){why}"):
            T.load(gid)


def test_each_rule_code_alone():
    cases = {
        "unequal.R1": (TRICKY, [[1, 2, 1, 3], [1, 3, 4, 2], [2, 4, 3, 1], [3, 1, 2, 4]]),  # (0, 0) 4 -> 1
        "unequal.R2": (TRICKY, [[1, 3, 2, 4], [3, 1, 4, 2], [2, 4, 3, 1], [4, 2, 1, 3]]),  # the given 3 moved
        "unequal.R3": (TRICKY, [[2, 4, 1, 3], [3, 1, 4, 2], [4, 2, 3, 1], [1, 3, 2, 4]]),  # rows swapped
        "unequal.R3a": (ADJACENT, [[2, 3, 1, 4], [1, 2, 4, 3], [3, 4, 2, 1], [4, 1, 3, 2]]),
    }
    for code, (gid, grid) in cases.items():
        v = T.verify(T.load(gid), grid)
        assert v.rules == [code], (code, v.rules)
    assert T.rules_of(T.load(ADJACENT)) == ["unequal.R1", "unequal.R2", "unequal.R3a"]


def test_generation_levels():
    trivial = T.generate(np.random.default_rng(3), difficulty="trivial")
    assert trivial.data["state"]["gt"] == [] and T.count_solutions(trivial) == 1
    hard = T.generate(np.random.default_rng(3), difficulty="hard")
    assert hard.data["state"]["n"] == 7 and T.count_solutions(hard) == 1 and T.grade(hard) >= 1
    assert hard.data["tatham_params"] == "7dk"


def test_claims():
    inst = T.load(TRICKY)
    check_labels(inst, correct=[{"type": "Cell", "r": 0, "c": 0, "v": 4},
                                {"type": "Given", "r": 0, "c": 3, "v": 3},
                                {"type": "Greater", "a": [0, 1], "b": [0, 2]}],
                       incorrect=[{"type": "NotCell", "r": 0, "c": 0, "v": 4},
                                  {"type": "Given", "r": 0, "c": 0, "v": 4},
                                  {"type": "Greater", "a": [0, 2], "b": [0, 1]}])
    adj = T.load(ADJACENT)
    check_labels(adj, correct=[{"type": "Adj", "a": [1, 0], "b": [0, 0]}],
                      incorrect=[{"type": "Adj", "a": [0, 1], "b": [0, 2]}])
    assert len(solution_claims(inst)) == 16


def _deduction(inst):
    from kumo_gym.envs.grid.unequal.deduce import Deduction

    st, sol = inst.data["state"], inst.data["solution"]
    n = st["n"]
    d = Deduction(n, sol, st["gt"])
    return d, np.asarray(st["grid"]).ravel() > 0, np.ones(len(st["gt"]), bool)


def test_easy_puzzles_are_settled_by_deduction_and_need_every_clue():
    for seed in range(3):
        inst = T.generate(np.random.default_rng(seed), difficulty="easy")
        d, givens, signs = _deduction(inst)
        assert d.solves(givens, signs) and T.count_solutions(inst) == 1
        for mask in (givens, signs):  # hiding any shown clue leaves deduction stuck
            for i in np.flatnonzero(mask):
                mask[i] = False
                assert not d.solves(givens, signs)
                mask[i] = True


def test_search_counts_as_sat_does():
    # above Easy the clue set is minimal unique: the kernel's search finds it unique, and a
    # second solution as soon as any clue is hidden (checked against SAT on the same clues)
    inst = T.generate(np.random.default_rng(5), difficulty="normal")
    d, givens, signs = _deduction(inst)
    assert d.unique(givens, signs) and T.count_solutions(inst) == 1
    st = inst.data["state"]
    for k in range(len(st["gt"])):
        signs[k] = False
        fewer = T.make_instance(inst.params, {**st, "gt": [p for p, on in zip(st["gt"], signs) if on]},
                                inst.data["solution"], source="test")
        assert not d.unique(givens, signs) and T.count_solutions(fewer) >= 2
        signs[k] = True
    assert d.kernel.search(np.full((d.stack.shape[0], 16), 15, np.int64), 4, d.ga[:0], d.gb[:0], 10) == 10
