"""Keen (docs/specs/grid_puzzles.md §5 "Keen", §7)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.keen import KeenTask
from kumo_gym.envs.grid.keen.cages import cage_literal, cage_ok, cage_tuples
from kumo_gym.envs.grid.latin import latin_formula
from kumo_gym.solvers.sat import Formula, enumerate_models

from .spec import check_labels, check_rejected, check_tatham_example

T = KeenTask()
SPEC_ID = "3:_baa_3a,a8s1m3s1"
SPEC_SOLUTION = [[3, 1, 2], [2, 3, 1], [1, 2, 3]]


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    st = inst.data["state"]
    assert [sorted(map(tuple, c["cells"])) for c in st["cages"]] == [
        [(0, 0), (1, 0), (1, 1)], [(0, 1), (0, 2)], [(1, 2), (2, 2)], [(2, 0), (2, 1)]]
    assert [(c["op"], c["target"]) for c in st["cages"]] == [("+", 8), ("-", 1), ("x", 3), ("-", 1)]


def test_repeat_counts_and_division():
    inst = T.load("6:_aa_3a_16a_ba4_aa__a7,s2s1a5s4d3a7m8s4m15a7m4d2m30a5m24a9s2")
    assert T.count_solutions(inst) == 1 and T.to_game_id(inst).startswith("6:_aa_3a_16a")
    assert any(c["op"] == "/" for c in inst.data["state"]["cages"])
    # the repeat count is read the same way written out in full
    again = T.load("3:_baa___a,a8s1m3s1")
    assert again.data["state"] == T.load(SPEC_ID).data["state"]


def test_grammar_errors():
    assert T.decode_params("6dn") == {"n": 6, "tatham_difficulty": "n", "multiplication_only": False}
    assert T.decode_params("5dem")["multiplication_only"] is True
    assert [T.tatham_preset(d) for d in T.difficulties] == ["3de", "4de", "6dn", "9dn"]
    check_rejected(T.decode_params, ("3x3de", "6dq", "10dn"))
    for desc, why in (("_baa_3a", "','"), ("_baa_3y,a8s1m3s1", "25"), ("_baa_3a?,a8s1m3s1", "unexpected"),
                      ("_baa_3,a8s1m3s1", "covers"), ("_baa_3aa,a8s1m3s1", "too much"),
                      ("_baa_3a,a8s1m3", "too few"), ("_baa_3a,a8s1m3s1a2", "too many"),
                      ("_baa_3a,q8s1m3s1", "clue type"), ("_baa_3a,s8s1m3s1", "two cells"),
                      ("_baa_3a,as1m3s1", "target")):
        with pytest.raises(ConfigError, match=f"(?i){why}"):
            T.load(f"3:{desc}")


def _wrong(grid, cells_values):
    g = [list(r) for r in grid]
    for (r, c), v in cells_values:
        g[r][c] = v
    return g


def test_each_rule_code_alone():
    inst = T.load(SPEC_ID)
    cases = {
        # columns stay permutations and every cage holds (8+ = 2+3+3), rows 0 and 1 repeat a value
        "keen.R1": [[2, 1, 2], [3, 3, 1], [1, 2, 3]],
        # rows stay permutations and every cage holds (1- = 2, 1), columns 0 and 1 repeat
        "keen.R2": [[3, 1, 2], [2, 3, 1], [2, 1, 3]],
        # a Latin square that misses the 8+ cage
        "keen.R3": [[1, 2, 3], [2, 3, 1], [3, 1, 2]],
    }
    for code, grid in cases.items():
        v = T.verify(inst, grid)
        assert v.rules == [code], (code, v.rules, grid)


def test_cage_arithmetic_and_encoding_agree():
    assert cage_ok("/", 2, [3, 6]) and cage_ok("-", 2, [5, 3]) and not cage_ok("-", 2, [5, 3, 1])
    assert cage_ok("x", 12, [2, 3, 2]) and not cage_ok("+", 7, [2, 3, 3])
    assert cage_tuples(9, 6, "+", 30) is None  # too many tuples: the chain encoding is used
    for op, target, size in (("+", 30, 6), ("x", 180, 4), ("+", 7, 3), ("/", 2, 2), ("-", 1, 2)):
        f = Formula()
        x = latin_formula(f, 9) if size > 3 else latin_formula(f, 4)
        n = x.shape[0]
        cells = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)][:size]
        ok = cage_literal(f, x, n, 0, cells, op, target)
        # with the clue assumed or negated, the models' cage values meet it exactly when assumed
        for sign in (1, -1):
            proj = [int(x[r, c, v]) for r, c in cells for v in range(n)]
            models = enumerate_models(f.clauses, proj, limit=25, assumptions=[sign * ok])
            assert models
            for m in models:
                on = set(m)
                vals = [next(v + 1 for v in range(n) if int(x[r, c, v]) in on) for r, c in cells]
                assert cage_ok(op, target, vals) == (sign == 1), (op, target, vals, sign)
    # every tuple of a small cage is a model of its literal
    f = Formula()
    x = latin_formula(f, 4)
    ok = cage_literal(f, x, 4, 0, [(0, 0), (1, 1)], "x", 4)
    proj = [int(x[r, c, v]) for r, c in ((0, 0), (1, 1)) for v in range(4)]
    got = len(enumerate_models(f.clauses, proj, limit=50, assumptions=[ok]))
    assert got == sum(1 for a, b in itertools.product(range(1, 5), repeat=2) if a * b == 4)


def test_generation_presets_and_multiplication_only():
    for difficulty, n in (("trivial", 3), ("normal", 6)):
        inst = T.generate(np.random.default_rng(1), difficulty=difficulty)
        assert inst.data["state"]["n"] == n and T.count_solutions(inst) == 1
        assert all(len(c["cells"]) <= 6 for c in inst.data["state"]["cages"])
    inst = T.generate(np.random.default_rng(2), n=4, tatham_difficulty="e", multiplication_only=True)
    assert T.count_solutions(inst) == 1 and inst.data["tatham_params"] == "4dem"
    assert {c["op"] for c in inst.data["state"]["cages"]} == {"x"}


def test_claims():
    inst = T.load(SPEC_ID)
    check_labels(inst, correct=[{"type": "Cell", "r": 0, "c": 0, "v": 3},
                                {"type": "Cage", "cells": [[1, 1], [0, 0], [1, 0]], "op": "+", "target": 8},
                                {"type": "Cage", "cells": [[1, 2], [2, 2]], "op": "X", "target": 3}],
                       incorrect=[{"type": "NotCell", "r": 0, "c": 0, "v": 3},
                                  {"type": "Cage", "cells": [[1, 2], [2, 2]], "op": "+", "target": 3},
                                  {"type": "Cage", "cells": [[0, 1]], "op": "-", "target": 1}])
    assert len(solution_claims(inst)) == 9


def test_non_canonical_ids_are_stored_canonically():
    import gymnasium as gym

    import kumo_gym  # noqa: F401

    env = gym.make("kumo_gym/Keen-v0")
    env.reset(options={"instance": "3:_baa___a,a8s1m3s1"})
    assert env.unwrapped.instance.data["game_id"] == SPEC_ID


def test_generator_grade_matches_the_engine_grade():
    """The generator grades draws on clause arrays built from per-clue templates; the grade must
    be the engine's on the task's own encoding."""
    from kumo_gym.envs.grid.keen.cages import tatham_cages, tatham_clue_types
    from kumo_gym.envs.grid.keen.codec import make_state
    from kumo_gym.envs.grid.keen.deduce import cage_grade
    from kumo_gym.envs.grid.latin import random_latin

    rng = np.random.default_rng(3)
    seen = set()
    for n in (3, 4, 5, 6):
        for _ in range(8):
            sol = random_latin(rng, n)
            cage_of = tatham_cages(rng, n)
            state = make_state(n, cage_of, tatham_clue_types(rng, n, sol, cage_of, True, bool(rng.integers(2))))
            enc = T.encode(state)
            g = cage_grade(n, state["cages"])
            assert g == enc.engine.grade(enc.assumptions())
            seen.add(g)
    assert seen >= {0, 2}


def test_small_squares_uniqueness_by_enumeration():
    """Up to 4x4 the generator decides uniqueness by filtering every Latin square (12 of order
    3, 576 of order 4); it must agree with SAT, and the Easy puzzles it then takes as they are
    must be solved by probing (grade <= 1), as the level promises."""
    from kumo_gym.envs.grid.keen.cages import tatham_cages, tatham_clue_types
    from kumo_gym.envs.grid.keen.codec import make_state
    from kumo_gym.envs.grid.keen.deduce import latin_squares, several_solutions
    from kumo_gym.envs.grid.latin import random_latin

    assert [len(latin_squares(n)) for n in (3, 4)] == [12, 576]
    rng = np.random.default_rng(4)
    seen = set()
    for n in (3, 4):
        for _ in range(12):
            sol = random_latin(rng, n)
            cage_of = tatham_cages(rng, n)
            state = make_state(n, cage_of, tatham_clue_types(rng, n, sol, cage_of, True, False))
            inst = T.make_instance({"n": n}, state, sol, source="test")
            several = several_solutions(n, state["cages"])
            assert several == (T.count_solutions(inst) > 1)
            seen.add(several)
    assert seen == {False, True}
    for seed, level in ((0, "trivial"), (1, "easy"), (2, "easy")):
        inst = T.generate(np.random.default_rng(seed), difficulty=level)
        assert T.count_solutions(inst) == 1 and T.grade(inst) <= 1
