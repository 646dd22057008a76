"""Tents (docs/specs/grid_puzzles.md §5 "Tents", §7; docs/specs/reasoning_graphs.md §6 "Tents")."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import claim_types, label_claim, solution_claims
from kumo_gym.envs.grid.geometry import neighbours4
from kumo_gym.envs.grid.tents import TentsTask
from kumo_gym.envs.grid.tents.geometry import matching

from .spec import check_labels, check_rejected, check_tatham_example

T = TentsTask()
SPEC_ID = "4x4:adag,1,1,0,1,0,2,0,1"
SPEC_SOLUTION = [[".", "T", ".", "."], [".", "A", "T", "A"], ["T", ".", ".", "."], ["A", ".", ".", "."]]
E8_ID = "4x4:_jba,1,1,0,1,0,2,0,1"  # docs/specs/reasoning_graphs.md §4, E8


def test_spec_example():
    check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)


def test_params_grammar():
    assert T.decode_params("8x8de") == {"W": 8, "H": 8, "tatham_difficulty": "e"}
    assert T.decode_params("6x5") == {"W": 6, "H": 5}
    assert [T.tatham_preset(d) for d in T.difficulties] == ["4x4de", "6x6de", "8x8de", "15x15de"]
    check_rejected(T.decode_params, ("8x8dq", "8x8de7", "x8"))


def test_tree_map_with_z_and_marks():
    # z = 25 empty cells; '-' marks the cell just read (24) as a given non-tent; j = 10 empty then a tree
    inst = T.load("6x6:z-j_,0,0,0,0,0,1,0,0,0,0,1,0")
    st = inst.data["state"]
    assert st["grid"][5][5] == "T" and sum(v == "T" for row in st["grid"] for v in row) == 1
    assert st["marks"] == [[4, 0, "-"]]
    assert inst.data["solution"][4][5] == "A" and T.count_solutions(inst) == 1
    grid = [list(r) for r in inst.data["solution"]]
    assert T.verify(inst, grid).solved
    with pytest.raises(ConfigError):
        T.to_game_id(inst)  # given marks are import-only
    with pytest.raises(ConfigError):
        T.load("4x4:adag,1,1,0")  # too few counts
    with pytest.raises(ConfigError):
        T.load("4x4:adagg,1,1,0,1,0,2,0,1")  # runs past the grid
    with pytest.raises(ConfigError):
        T.load("4x4:_!jba,1,1,0,1,0,2,0,1")  # a mark on a tree


def test_rule_codes():
    inst = T.load(SPEC_ID)
    grid = [list(r) for r in SPEC_SOLUTION]
    grid[0][0] = "A"  # extra tent: touches (1,1) and breaks counts
    rules = {v["rule"] for v in T.verify(inst, grid).details["violations"]}
    assert {"tents.R2", "tents.R3", "tents.R4"} <= rules
    grid = [list(r) for r in SPEC_SOLUTION]
    grid[0][1] = "."  # a tree removed
    assert "tents.R1" in {v["rule"] for v in T.verify(inst, grid).details["violations"]}


def test_pairing_any_matching_is_accepted():
    # two trees side by side, tents above and below: only one pairing is geometric, and the
    # verifier must find it without being told
    trees = [(1, 1), (1, 2)]
    def pairing(tents):
        return matching(trees, lambda t: [n for n in neighbours4(*t, 4, 4) if n in tents])

    assert pairing({(0, 1), (2, 2)}) == {(1, 1): (0, 1), (1, 2): (2, 2)}
    assert len(pairing({(0, 0)})) == 0


def test_hard_preset_reaches_15x15_and_is_unique():
    inst = T.generate(np.random.default_rng(0), difficulty="hard")
    assert (inst.data["W"], inst.data["H"]) == (15, 15)
    assert sum(v == "T" for row in inst.data["state"]["grid"] for v in row) == 45  # Tatham's density
    assert T.count_solutions(inst) == 1
    assert inst.data["tatham_params"] == "15x15de" and inst.data["game_id"].startswith("15x15:")


def test_claims_e8():
    inst = T.load(E8_ID)
    assert inst.data["solution"][1] == ["A", ".", ".", "A"]
    check_labels(inst, correct=[{"type": "Quota", "axis": "ROW", "index": 0, "tents": 0},
                                {"type": "Tree", "r": 0, "c": 0},
                                {"type": "Tent", "r": 1, "c": 0},
                                {"type": "NotTent", "r": 1, "c": 1},
                                {"type": "cell", "row": 3, "col": 1, "value": "A", "negated": False}],
                       incorrect=[{"type": "Quota", "axis": "COL", "index": 1, "tents": 2},
                                  {"type": "Tree", "r": 1, "c": 0},
                                  {"type": "NotTent", "r": 1, "c": 3},
                                  {"kind": "Tent", "payload": {"r": 9, "c": 0}},
                                  {"type": "cell", "row": 3, "col": 1, "value": "A", "negated": True}],
                       unverifiable=[{"type": "Remaining", "axis": "COL", "index": 1, "remaining": 0},
                                     {"type": "Contradiction", "branch": 1, "note": ""}])
    assert solution_claims(inst) == [{"type": "Tent", "r": 1, "c": 0}, {"type": "Tent", "r": 1, "c": 3},
                                     {"type": "Tent", "r": 3, "c": 1}]
    assert "TreeCandidate" in claim_types("tents")


def test_claims_consistency_profile():
    inst = T.load(E8_ID)
    def lab(c):
        return label_claim(inst, c, profile="consistency")

    assert lab({"type": "Remaining", "axis": "ROW", "index": 1, "remaining": 3}) == "incorrect"
    assert lab({"type": "Remaining", "axis": "ROW", "index": 1, "remaining": 1}) == "unverifiable"
    assert lab({"type": "TreeCandidate", "tree_r": 0, "tree_c": 0, "cell_r": [0], "cell_c": [1]}) == "incorrect"
    assert lab({"type": "TreeCandidate", "tree_r": 0, "tree_c": 0, "cell_r": [0, 1], "cell_c": [1, 0]}) == "unverifiable"


def test_claim_schema_errors():
    from kumo_gym.envs.grid.claims import ClaimError

    inst = T.load(E8_ID)
    with pytest.raises(ClaimError, match="not one of"):
        label_claim(inst, {"type": "Assign", "r": 0, "c": 0, "d": 1})
    with pytest.raises(ClaimError):
        label_claim(inst, {"type": "Tent", "r": "0", "c": 0})


def test_run_of_25_before_a_tree_is_y():
    # found by the conformance suite: Tatham writes 25 empty cells then a tree as "y", not "z_"
    gid = "14x14:aijadb_bbb_ycdfcaabk_aiggac_ceeagebbbeab,4,2,3,2,4,1,1,4,2,5,1,4,2,4,2,3,2,4,2,2,3,3,2,3,3,3,2,5"
    inst = T.load(gid)
    assert T.to_game_id(inst) == gid and T.count_solutions(inst) == 1
