"""Magnets (docs/specs/grid_puzzles.md §5 "Magnets", §6, §7)."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import label_claim, solution_claims
from kumo_gym.envs.grid.magnets import MagnetsTask
from kumo_gym.envs.grid.tatham import codec, decode_auxinfo

from .spec import check_labels, check_rejected, check_tatham_example

T = MagnetsTask()
SPEC_ID = "3x2:111,21,111,12,TTTBBB"
SPEC_SOLUTION = [[1, -1, 1], [-1, 1, -1]]
# sgt-magnets --generate 1 '6x5dtS#kumo1' --save: stripped counts ('.') and its AUXINFO
STRIPPED_ID = "6x5:.212..,.1.3.,...1.2,1113.,LRTTLRLRBBTTLRLRBBTLRTTTBLRBBB"
STRIPPED_AUX = "6efc3c4e7dcb9507212e14c1521bd8bf8fdf661d11259b1f81d97d026068"
NO_CLUES = "3x2:...,..,...,..,TTTBBB"


def test_spec_example():
    check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)


def test_stripped_counts_and_auxinfo():
    inst = T.load(STRIPPED_ID)
    st = inst.data["state"]
    assert st["plus_cols"] == [None, 2, 1, 2, None, None] and st["minus_rows"] == [1, 1, 1, 3, None]
    assert T.count_solutions(inst) == 1 and T.to_game_id(inst) == STRIPPED_ID
    assert codec("magnets").aux_solution(st, decode_auxinfo(STRIPPED_AUX)) == inst.data["solution"]
    assert T.clue_count(inst) == 11


def test_single_cells_are_fixed_blanks():
    # an odd grid: '*' is a cell of no slot, fixed at 0 (Tatham's 3x3 example)
    inst = T.load("3x3:201,102,120,111,LRTT*BBLR")
    assert inst.data["state"]["slots"][1][1] == "*" and T.givens(inst) == {(1, 1): 0}
    sol = inst.data["solution"]
    assert sol[1][1] == 0 and T.count_solutions(inst) == 1
    bad = [list(r) for r in sol]
    bad[1][1] = 1
    assert "magnets.R1" in T.verify(inst, bad).rules
    assert "given" in T.check_move(inst, T.initial_state(inst), (1, 1, 1))


def test_params_grammar():
    assert T.decode_params("6x5dtS") == {"W": 6, "H": 5, "tatham_difficulty": "t", "strip": True}
    assert T.decode_params("6x5") == {"W": 6, "H": 5, "strip": False}
    assert [T.tatham_preset(d) for d in T.difficulties] == ["3x2de", "6x5de", "6x5dtS", "10x9dtS"]
    check_rejected(T.decode_params, ("6x5dx", "6x5dtSS", "6x5S7", "1x5de"))


@pytest.mark.parametrize("desc", [
    "111,21,111,12",                      # no layout
    "111,21,111,12,TTTBBB,",              # a sixth part
    "11,21,111,12,TTTBBB",                # a column list too short
    "111,21,111,1,TTTBBB",                # a row list too short
    "111,21,111,12,TTTBB",                # layout too short
    "111,21,111,12,TTTBBX",               # a letter outside LRTB*
    "111,21,111,12,TLRBRL",               # R before L: halves that do not meet
    "111,21,111,12,TTTTTT",               # a T with no B below
    "311,21,111,12,TTTBBB",               # a column count above the column's length
    "1!1,21,111,12,TTTBBB",               # not a base-62 digit
])
def test_grammar_errors(desc):
    with pytest.raises(ConfigError):
        T.load(f"3x2:{desc}")


def _rules(gid, grid):
    return T.verify(T.load(gid), grid).rules


def test_r1_slot_not_a_magnet_only():
    # the left slot holds + and blank; no counts are given and no like poles touch
    assert _rules(NO_CLUES, [[1, 0, 0], [0, 0, 0]]) == ["magnets.R1"]


def test_r2_like_poles_touch_only():
    # every slot is a proper magnet, but two + (and two -) poles sit side by side across slots
    assert _rules(NO_CLUES, [[1, 1, 0], [-1, -1, 0]]) == ["magnets.R2"]


def test_r3_counts_only():
    # all blank: slots and neighbours are fine, every count is wrong
    v = T.verify(T.load(SPEC_ID), [[0, 0, 0], [0, 0, 0]])
    assert v.rules == ["magnets.R3"] and v.first_error == 0
    assert T.verify(T.load(NO_CLUES), [[0, 0, 0], [0, 0, 0]]).solved


def test_claims():
    inst = T.load(SPEC_ID)
    assert solution_claims(inst)[0] == {"type": "Pole", "r": 0, "c": 0, "v": 1}
    assert all(label_claim(inst, c) == "correct" for c in solution_claims(inst))
    check_labels(inst, incorrect=[{"type": "Pole", "r": 0, "c": 0, "v": -1},
                                  {"type": "Count", "axis": "COL", "index": 0, "sign": "-", "n": 2},
                                  {"type": "Slot", "cells": [[0, 0], [0, 1]]}],
                       correct=[{"type": "Count", "axis": "ROW", "index": 0, "sign": "+", "n": 2},
                                {"type": "Slot", "cells": [[1, 0], [0, 0]]}])
    hidden = T.load(STRIPPED_ID)  # a hidden count is checked against the unique solution
    n = sum(v == 1 for v in (row[0] for row in hidden.data["solution"]))
    assert label_claim(hidden, {"type": "Count", "axis": "COL", "index": 0, "sign": "+", "n": n}) == "correct"


def test_interactive_null_clears():
    inst = T.load(SPEC_ID)
    s = T.apply(inst, T.initial_state(inst), T.parse_move('{"r": 0, "c": 0, "v": 1}'))
    assert s[0][0] == 1
    move = T.parse_move('{"r": 0, "c": 0, "v": null}')
    assert move == (0, 0, None) and T.apply(inst, s, move) == T.initial_state(inst)


def test_hard_preset_strips_counts():
    inst = T.generate(np.random.default_rng(0), difficulty="hard")
    assert (inst.data["W"], inst.data["H"]) == (10, 9) and T.count_solutions(inst) == 1
    assert 0 < T.clue_count(inst) < 38


def test_stripping_keeps_a_unique_set_at_the_floor_or_minimal():
    """Stripping counts (reduce_clues with ``keep``, straight to SAT) stops at the floor; short of
    it every kept count is needed for uniqueness."""
    from kumo_gym.solvers.engine import reduce_clues

    task = T
    inst = task.generate(np.random.default_rng(3), W=6, H=5)  # every count shown
    st, sol = inst.data["state"], inst.data["solution"]
    enc = task.encode(st)
    keys = sorted(k for k in enc.clues if k != ("layout",))
    groups, fixed = [list(enc.clues[k][1]) for k in keys], list(enc.clues["layout", ][1])
    value = task._values(enc, sol)
    for floor in (0, len(keys) - 3):
        kept = reduce_clues(enc.engine, groups, np.random.default_rng(floor), value, fixed=fixed, keep=floor,
                            deduce=False)
        on = fixed + [x for g, k in zip(groups, kept) if k for x in g]
        assert sum(kept) >= floor and enc.engine.unique(on, value, deduce=False)
        if sum(kept) > floor:
            for j in (j for j, k in enumerate(kept) if k):
                rest = fixed + [x for i, (g, k) in enumerate(zip(groups, kept)) if k and i != j for x in g]
                assert not enc.engine.unique(rest, value, deduce=False)
        else:
            assert floor == len(keys) - 3


def _deduction(inst):
    from kumo_gym.envs.grid.magnets.deduce import Deduction

    st = inst.data["state"]
    H = len(st["slots"])
    hidden = lambda vals: [-1 if v is None else v for v in vals]
    return Deduction(st["slots"], hidden(st["plus_rows"] + st["plus_cols"]),
                     hidden(st["minus_rows"] + st["minus_cols"])), H


def test_deduction_settles_generated_tricky_puzzles_and_needs_every_count():
    # t with S: Magnets' own deduction settles the grid to the (SAT-unique) solution, and hiding
    # any shown count leaves it stuck (counts are removed while deduction still settles it),
    # unless counts came back up to half of them (Tatham's density)
    for seed in range(6):
        inst = T.generate(np.random.default_rng(seed), difficulty="normal")
        d, _ = _deduction(inst)
        assert d.solves() and T.count_solutions(inst) == 1
        want = np.select([np.asarray(inst.data["solution"]) == 1, np.asarray(inst.data["solution"]) == -1], [1, 2], 4)
        assert (d.mask == want.ravel()).all()
        shown = T.clue_count(inst)
        needed = 0
        for counts in (d.tp, d.tm):
            for k in np.flatnonzero(counts >= 0):
                old, counts[k] = counts[k], -1
                needed += not d.solves()
                counts[k] = old
        assert needed == shown or shown == 11 and needed < shown


def test_deduction_is_sound_on_ambiguous_and_impossible_counts():
    d, _ = _deduction(T.load(NO_CLUES))  # many fillings: nothing settles every cell
    assert not d.solves() and (d.mask == 7).all()
    d, _ = _deduction(T.load(SPEC_ID))
    assert d.solves() and d.mask.tolist() == [1, 2, 1, 2, 1, 2]
    d.tp[0] = 3  # a row of three cells with three + poles: the kernel reports the contradiction
    assert not d.solves()


def test_a_single_cell_must_stay_blank():
    """On an odd grid one cell is in no slot: it must stay blank (magnets.R1), and the solution
    keeps it blank (found by mutation testing, docs/testing.md: no test grid had such a cell)."""
    import numpy as np

    from kumo_gym.envs.grid.magnets import MagnetsTask
    from kumo_gym.envs.grid.magnets.geometry import slot_pairs

    task = MagnetsTask()
    inst = task.generate(np.random.default_rng(0), **task.resolve_params(W=3, H=3))
    sol = task.solve(inst)
    assert task.verify(inst, sol).solved
    _, singles, _ = slot_pairs(inst.data["state"]["slots"])
    assert singles
    for r, c in singles:
        for v in (1, -1):
            bad = [list(row) for row in sol]
            bad[r][c] = v
            verdict = task.verify(inst, bad)
            assert "magnets.R1" in verdict.rules and [r, c] in [x for v_ in verdict.details["violations"]
                                                                if v_["rule"] == "magnets.R1" for x in v_["cells"]]
