"""Dominosa (docs/specs/grid_puzzles.md §5 "Dominosa", §6, §7)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError, ParseError
from kumo_gym.envs.grid.claims import label_claim, solution_claims
from kumo_gym.envs.grid.dominosa import DominosaTask
from kumo_gym.envs.grid.dominosa.deduce import deduce_slots, slot_arrays
from kumo_gym.envs.grid.tatham import codec, decode_auxinfo

from .spec import check_labels, check_rejected, check_tatham_example

T = DominosaTask()
SPEC_ID = "3:03232201313101122300"
SPEC_SOLUTION = [["T", "L", "R", "T", "T"], ["B", "L", "R", "B", "B"], ["L", "R", "T", "L", "R"],
                 ["L", "R", "B", "L", "R"]]


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"]["max_pip"] == 3 and (inst.data["W"], inst.data["H"]) == (5, 4)
    # the AUXINFO of the same puzzle (sgt-dominosa --generate 1 '3dt#kumo1' --save)
    aux = decode_auxinfo("f593b12a5ff2994ed838bc8e47240caf3e4c7332")
    assert codec("dominosa").aux_solution(inst.data["state"], aux) == SPEC_SOLUTION


def test_params_grammar():
    assert T.decode_params("6db") == {"max_pip": 6, "tatham_difficulty": "b"}
    assert T.decode_params("9") == {"max_pip": 9}
    assert [T.tatham_preset(d) for d in T.difficulties] == ["1dt", "3dt", "6db", "9db"]
    check_rejected(T.decode_params, ("8x7db", "6dz", "6db1", "0dt"))


def test_bracketed_numbers_round_trip():
    # N = 10: an 11x12 grid whose numbers 10 are written [10]; a generated one reads back exactly
    inst = T.generate(np.random.default_rng(0), max_pip=10, tatham_difficulty="b")
    gid = inst.data["game_id"]
    assert "[10]" in gid and T.load(gid).data["state"] == inst.data["state"]
    assert codec("dominosa").decode({"max_pip": 10}, gid.split(":", 1)[1])["grid"][0] == inst.data["state"]["grid"][0]


@pytest.mark.parametrize("desc,why", [
    ("0323220131310112230", "19 numbers"), ("032322013131011223000", "21 numbers"),
    ("0323220131310112230a", "letter"), ("03232201313101122304", "exceeds"), ("[0]3232201313101122300", "ok"),
    ("[3323220131310112230", "unclosed"), ("[]323220131310112230", "empty"),
])
def test_grammar_errors(desc, why):
    if why == "ok":  # a bracketed single digit is still a number
        assert T.load(f"3:{desc}").data["state"] == T.load(SPEC_ID).data["state"]
        return
    with pytest.raises(ConfigError):
        T.load(f"3:{desc}")


def _violations(grid):
    v = T.verify(T.load(SPEC_ID), grid)
    return v, sorted({x["rule"] for x in v.details.get("violations", [])})


def test_r1_broken_tiling_only():
    # (2,2)-(3,2) is a vertical 0|1 domino; writing its top half as "L" leaves both halves unmatched
    # and removes the domino, but no pair is doubled, so only R1 fails
    grid = [list(r) for r in SPEC_SOLUTION]
    grid[2][2] = "L"
    v, rules = _violations(grid)
    assert rules == ["dominosa.R1"] and v.first_error == 2 * 5 + 2  # (2,2) first, then (3,2)
    assert [x["cells"] for x in v.details["violations"]] == [[[2, 2]], [[3, 2]]]
    with T.rules_disabled("dominosa.R1"):
        assert T.verify(T.load(SPEC_ID), grid).solved


def test_r2_duplicate_pair_only():
    # another valid tiling: the vertical 3|3 and 2|1 dominoes of columns 3-4, rows 0-1, turned into
    # the horizontals 3|2 and 3|1, so {2, 3} (also at (0,1)-(0,2)) and {1, 3} (also at (2,0)-(2,1))
    # are laid twice while {3, 3} and {1, 2} are missing: only R2 fails
    grid = [list(r) for r in SPEC_SOLUTION]
    grid[0][3], grid[0][4], grid[1][3], grid[1][4] = "L", "R", "L", "R"  # 3|2 and 3|1: pairs {2,3} twice
    v, rules = _violations(grid)
    assert rules == ["dominosa.R2"]
    assert [sorted(x["cells"]) for x in v.details["violations"]] == [[[1, 3], [1, 4], [2, 0], [2, 1]],
                                                                    [[0, 1], [0, 2], [0, 3], [0, 4]]]


def test_interactive_domino_moves():
    inst = T.load(SPEC_ID)
    s = T.initial_state(inst)
    move = T.parse_move('I lay {"op": "domino", "cells": [[0, 1], [0, 2]]}')
    assert move == (0, 1, "L") and json.loads(T.format_move(move)) == {"op": "domino", "cells": [[0, 1], [0, 2]]}
    s = T.apply(inst, s, move)
    assert s[0][1:3] == ("L", "R")
    # an overlapping domino lifts the first one
    s = T.apply(inst, s, T.parse_move('{"op": "domino", "cells": [[1, 2], [0, 2]]}'))
    assert s[0][1] == "." and s[0][2] == "T" and s[1][2] == "B"
    erase = T.parse_move('{"op": "erase", "cells": [[0, 2], [1, 2]]}')
    assert T.check_move(inst, s, erase) is None and T.apply(inst, s, erase) == T.initial_state(inst)
    assert "no domino" in T.check_move(inst, T.initial_state(inst), erase)
    assert "leaves" in T.check_move(inst, s, (3, 4, "L"))
    for bad in ('{"op": "domino", "cells": [[0, 0], [1, 1]]}', '{"op": "domino", "cells": [[0, 0]]}'):
        with pytest.raises(ParseError):
            T.parse_move(bad)


def test_claims():
    inst = T.load(SPEC_ID)
    cstar = solution_claims(inst)
    assert len(cstar) == 10 and all(label_claim(inst, c) == "correct" for c in cstar)
    check_labels(inst, incorrect=[{"type": "Domino", "cells": [[0, 0], [0, 1]]},
                                  {"type": "Domino", "cells": [[0, 0], [2, 0]]}],
                       correct=[{"type": "NotDomino", "cells": [[0, 1], [0, 0]]}])
    # a T left of a B is two halves of vertical dominoes, not a horizontal domino (this puzzle's
    # solution has T at (1,3) and B at (1,4): once wrongly read as a domino)
    other = T.load("3:00113020033112323221")
    assert other.data["solution"][1][3:] == ["T", "B"]
    check_labels(other, correct=[{"type": "NotDomino", "cells": [[1, 3], [1, 4]]},
                                 {"type": "Domino", "cells": [[0, 4], [1, 4]]}])
    check_labels(inst, correct=[{"type": "Number", "r": 0, "c": 1, "n": 3}],
                       incorrect=[{"type": "Number", "r": 0, "c": 1, "n": 2}])


def test_hard_preset_is_unique_and_probing_solves_it():
    inst = T.generate(np.random.default_rng(0), difficulty="hard")
    assert (inst.data["W"], inst.data["H"]) == (11, 10)
    assert T.count_solutions(inst) == 1 and T.grade(inst) == 1


def test_generator_deduction_arrays_match_the_encoding():
    """The generator grades and probes on its own clause arrays; propagation and probing there
    must decide exactly the slots they decide on the task's SAT encoding."""
    for seed in range(6):
        inst = T.generate(np.random.default_rng(seed), difficulty="normal")
        nums = inst.data["state"]["grid"]
        enc = T.encode(inst.data["state"])
        arrays = slot_arrays(len(nums), len(nums[0]), nums)
        for mine, theirs in ((arrays.propagate([]), enc.engine.propagate([])),
                             (arrays.probe([], np.arange(1, arrays.n_vars + 1)), enc.engine.probe([]))):
            assert np.array_equal(mine[1:], theirs[enc.answer])


def test_generator_kernel_deduces_what_the_clause_arrays_deduce():
    """The generator's kernel works on the "exactly one" groups; propagation and probing must
    leave exactly the slots open (and find exactly the contradictions) that they do on the
    pairwise clause arrays, for tilings, swapped pairs (a pair on no slot) and random numbers."""
    from kumo_gym.envs.grid.dominosa.geometry import dominoes
    from kumo_gym.envs.grid.geometry import random_tiling

    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 5):
        H, W = n + 1, n + 2
        pairs = [(a, b) for a in range(n + 1) for b in range(a, n + 1)]
        for trial in range(40):
            if trial % 3 == 0:
                nums = rng.integers(0, n + 1, (H, W)).tolist()
            else:
                nums = [[0] * W for _ in range(H)]
                perm = rng.permutation(len(pairs))
                if trial % 3 == 2:
                    perm[0] = perm[1]
                for (p, q), k in zip(dominoes(random_tiling(rng, H, W)), perm):
                    (nums[p[0]][p[1]], nums[q[0]][q[1]]) = pairs[k]
            arrays = slot_arrays(H, W, nums)
            for probe, ref in ((False, arrays.propagate([])),
                               (True, arrays.probe([], np.arange(1, arrays.n_vars + 1)))):
                mine = deduce_slots(H, W, nums, probe)
                assert (mine is None) == (ref is None)
                assert mine is None or np.array_equal(mine, ref[1:])
