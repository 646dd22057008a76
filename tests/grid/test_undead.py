"""Undead (docs/specs/grid_puzzles.md §5 "Undead", §6, §7)."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import label_claim, solution_claims
from kumo_gym.envs.grid.undead import UndeadTask
from kumo_gym.envs.grid.undead.geometry import sight_line

from .spec import check_labels, check_tatham_example

T = UndeadTask()
SPEC_ID = "3x3:1,3,1,LcLaLaR,0,1,4,2,1,0,0,1,0,0,2,2"
SPEC_SOLUTION = [["\\", "V", "V"], ["Z", "\\", "V"], ["\\", "G", "/"]]
# no mirrors: every cell is seen only straight on, where a vampire and a zombie look the same
PLAIN_ID = "2x2:2,1,1,d,1,1,2,0,1,1,0,2"


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    st = inst.data["state"]
    assert st["totals"] == {"G": 1, "V": 3, "Z": 1}
    assert (st["top"], st["right"], st["bottom"], st["left"]) == ([0, 1, 4], [2, 1, 0], [0, 1, 0], [2, 2, 0])


def test_sight_lines_bounce_and_count_twice():
    grid = [list(r) for r in ("\\..", ".\\.", "\\./")]
    # from the top of column 2 straight down to the "/" at (2,2), which turns it left to (2,1),
    # then the "\" at (2,0) turns it up through (1,0) and out at the top
    assert sight_line(grid, "top", 2) == [((0, 2), False), ((1, 2), False), ((2, 1), True), ((1, 0), True)]
    # from the left of row 0: the "\" at (0,0) turns it straight down ... and it meets (1,0) after a mirror
    assert sight_line(grid, "left", 0)[0] == ((1, 0), True)
    # the spec example's top clue of column 2 is 4: V, V straight on, G after the mirror, then Z
    inst = T.load(SPEC_ID)
    assert inst.data["state"]["top"][2] == 4


def test_params_grammar():
    assert T.decode_params("7x7dn") == {"W": 7, "H": 7, "tatham_difficulty": "n"}
    assert [T.tatham_preset(d) for d in T.difficulties] == ["3x3de", "4x4de", "4x4dn", "7x7dn"]
    for bad in ("7x7dx", "8x8de", "7x7dnn"):  # 8x8 is more than Tatham's 54 cells
        with pytest.raises(ConfigError):
            T.decode_params(bad)


@pytest.mark.parametrize("desc", [
    "1,3,1,LcLaLaR,0,1,4,2,1,0,0,1,0,0,2",        # a sight count missing
    "1,3,1,LcLaLaR,0,1,4,2,1,0,0,1,0,0,2,2,1",    # one too many
    "1,3,1,LcLaLa,0,1,4,2,1,0,0,1,0,0,2,2",       # cells short of the grid
    "1,3,1,LcLaLaRR,0,1,4,2,1,0,0,1,0,0,2,2",     # cells past the grid
    "1,3,1,LcLaLaX,0,1,4,2,1,0,0,1,0,0,2,2",      # not a cell letter
    "1,3,2,LcLaLaR,0,1,4,2,1,0,0,1,0,0,2,2",      # totals do not add up to the free cells
    "1,3,1,LcLaLaR,0,1,x,2,1,0,0,1,0,0,2,2",      # not a number
])
def test_grammar_errors(desc):
    with pytest.raises(ConfigError):
        T.load(f"3x3:{desc}")


def test_given_monsters_round_trip():
    # G/V/Z in the cells are given monsters (never generated, but part of the grammar)
    inst = T.load("3x3:1,3,1,LVbLaLaR,0,1,4,2,1,0,0,1,0,0,2,2")
    assert inst.data["state"]["grid"][0][1] == "V" and T.givens(inst)[0, 1] == "V"
    assert T.to_game_id(inst) == "3x3:1,3,1,LVbLaLaR,0,1,4,2,1,0,0,1,0,0,2,2"
    bad = [list(r) for r in SPEC_SOLUTION]
    bad[0][1], bad[0][2] = "V", "V"
    assert T.verify(inst, bad).solved


def _rules(gid, grid):
    return T.verify(T.load(gid), grid).rules


def test_r1_cell_without_a_monster_only():
    # a mirror symbol where there is no mirror: R1; the totals and sight counts could still be met
    bad = [list(r) for r in SPEC_SOLUTION]
    bad[0][1] = "/"
    assert _rules(SPEC_ID, bad) == ["undead.R1"]
    bad = [list(r) for r in SPEC_SOLUTION]
    bad[0][0] = "G"  # anything on a mirror cell is ignored
    assert T.verify(T.load(SPEC_ID), bad).solved


def test_r2_totals_only():
    # the vampire turned zombie: both are seen straight on, so only the totals change
    assert T.verify(T.load(PLAIN_ID), [["V", "Z"], ["G", "G"]]).solved
    assert _rules(PLAIN_ID, [["Z", "Z"], ["G", "G"]]) == ["undead.R2"]


def test_r3_sight_only():
    # the vampire at (0,1) and the ghost at (2,1) swap places: the totals hold, the sight counts do not
    bad = [list(r) for r in SPEC_SOLUTION]
    bad[0][1], bad[2][1] = "G", "V"
    v = T.verify(T.load(SPEC_ID), bad)
    assert v.rules == ["undead.R3"] and v.first_error is not None


def test_claims():
    inst = T.load(SPEC_ID)
    cstar = solution_claims(inst)
    assert len(cstar) == 5 and all(label_claim(inst, c) == "correct" for c in cstar)
    check_labels(inst, incorrect=[{"type": "Monster", "r": 0, "c": 1, "t": "G"},
                                  {"type": "Mirror", "r": 0, "c": 1, "kind": "/"},
                                  {"type": "Sight", "side": "LEFT", "index": 2, "n": 1}],
                       correct=[{"type": "Mirror", "r": 0, "c": 0, "kind": "\\"},
                                {"type": "Mirror", "r": 2, "c": 2, "kind": "SLASH"},
                                {"type": "Total", "t": "V", "n": 3},
                                {"type": "Sight", "side": "TOP", "index": 2, "n": 4}])


def test_interactive_mirrors_are_fixed():
    inst = T.load(SPEC_ID)
    s = T.initial_state(inst)
    assert s[0][0] == "\\" and "given" in T.check_move(inst, s, (0, 0, "G"))
    s = T.apply(inst, s, T.parse_move('{"r": 0, "c": 1, "v": "v"}'))
    assert s[0][1] == "V"


def test_hard_preset_is_unique_and_probing_solves_it():
    inst = T.generate(np.random.default_rng(0), difficulty="hard")
    assert (inst.data["W"], inst.data["H"]) == (7, 7)
    assert T.count_solutions(inst) == 1 and T.grade(inst) <= 1


def test_easy_presets_are_settled_by_deduction():
    from kumo_gym.envs.grid.undead.codec import MIRRORS
    from kumo_gym.envs.grid.undead.deduce import opener

    for seed, level in ((0, "trivial"), (1, "easy"), (2, "easy")):
        inst = T.generate(np.random.default_rng(seed), difficulty=level)
        layout, sol = inst.data["state"]["grid"], inst.data["solution"]
        free = [(r, c) for r, row in enumerate(layout) for c, v in enumerate(row) if v not in MIRRORS]
        assert opener(layout, free)(sol) == [] and T.count_solutions(inst) == 1


def test_undead_kernel_bounds_are_sound():
    from kumo_gym.envs.grid.undead import kernel as K

    # two cells, each counted once per total (ghost, vampire, zombie): no vampire and no zombie
    # leave two ghosts, so a ghost total of 1 is a contradiction and 2 settles both cells
    cell, see = np.asarray([0, 1] * 3, np.int64), np.asarray([1, 1, 2, 2, 4, 4], np.int64)
    start = np.asarray([0, 2, 4, 6], np.int64)
    for ghosts, want in ((1, -1), (2, 2)):
        mask = np.full(2, 7, np.int8)
        assert K.settle(mask, cell, see, start, np.asarray([ghosts, 0, 0], np.int64)) == want
    mask = np.full(2, 7, np.int8)  # one ghost, one vampire: either cell may hold either
    assert K.settle(mask, cell, see, start, np.asarray([1, 1, 0], np.int64)) == 0 and mask.tolist() == [3, 3]
