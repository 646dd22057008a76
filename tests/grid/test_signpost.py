"""Signpost (docs/specs/grid_puzzles.md §5 "Signpost", §7): numberings are checked by the rules."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.geometry import ray
from kumo_gym.envs.grid.signpost import SignpostTask
from kumo_gym.envs.grid.signpost.codec import STEP, encode
from kumo_gym.solvers import sat

from .spec import check_labels, check_tatham_example, violated_rules

T = SignpostTask()
SPEC_ID = "3x3:eeee9ahba1h"
SPEC_SOLUTION = [[2, 7, 5], [3, 9, 6], [4, 8, 1]]


def rules(inst, grid):
    return violated_rules(T, inst, grid)


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"]["arrows"][1][1] is None and inst.data["state"]["arrows"][0][0] == "S"
    assert [T.tatham_preset(d) for d in T.difficulties] == ["2x1", "3x3", "4x4", "7x7"]


@pytest.mark.parametrize("desc", ["eeee9ahba1", "eeee9ahba1hx", "eeee9ahba1he", "eeee10ahba1h", "eeee9ahba9h",
                                  "eeee9ahbi1h", "9"])
def test_grammar_errors(desc):
    with pytest.raises(ConfigError):
        T.load(f"3x3:{desc}")


def test_each_rule_breaks_alone():
    inst = T.load(SPEC_ID)
    g = [list(r) for r in SPEC_SOLUTION]
    g[2][2] = 8  # 8 still points at 9, but the given 1 is gone and 8 is used twice
    assert rules(inst, g) == ["signpost.R1"]
    g = [list(r) for r in SPEC_SOLUTION]
    g[0][0], g[1][0] = 3, 2  # still 1..9 once each with both givens, but 1 no longer sees 2
    assert rules(inst, g) == ["signpost.R2"]
    v = T.verify(inst, g)
    assert v.details["first_error_cell"] == [1, 0]  # 2 at (1, 0) points down at 4, not 3


def test_equivalent_numberings_are_accepted():
    # with only the last number given a board has several numberings; every one is accepted
    for seed in range(10):
        st = T.generate(np.random.default_rng(seed), difficulty="normal").data["state"]
        bare = {**st, "givens": [[v if v == 16 else 0 for v in row] for row in st["givens"]]}
        inst = T.load(f"4x4:{encode(bare)}")
        sols = T.solutions(inst, limit=5)
        if len(sols) >= 2:
            break
    assert len(sols) >= 2 and len({str(s) for s in sols}) == len(sols)
    assert all(T.verify(inst, s).solved for s in sols)


def successor_models(state: dict, limit: int = 10) -> int:
    """Models of the arrows read locally: every cell but the last has one successor along its
    arrow, every cell but the first one predecessor, the given ends fixed; no single-chain rule."""
    arrows, givens = state["arrows"], state["givens"]
    H, W = len(arrows), len(arrows[0])
    n = H * W
    f = sat.Formula()
    nxt = {}
    for r, c in np.ndindex(H, W):
        for b in ray(r, c, STEP.get(arrows[r][c]), H, W):
            nxt[(r, c), b] = f.var(((r, c), b))
    first = next(a for a in np.ndindex(H, W) if givens[a[0]][a[1]] == 1)
    last = next(a for a in np.ndindex(H, W) if givens[a[0]][a[1]] == n)
    for a in np.ndindex(H, W):
        out = [v for (x, _), v in nxt.items() if x == a]
        into = [v for (_, y), v in nxt.items() if y == a]
        f.exactly(out, 0 if a == last else 1)
        f.exactly(into, 0 if a == first else 1)
    return sat.count_models(f.clauses, list(nxt.values()), limit=limit)


def test_a_proof_ignoring_the_single_chain_would_be_wrong():
    """Arrows read locally (one successor, one predecessor) also admit a shorter chain plus
    loops; our numbering encoding has the chain built in, so its uniqueness proofs are sound."""
    found = 0
    for seed in range(12):
        inst = T.generate(np.random.default_rng(seed), difficulty="normal")
        st = inst.data["state"]
        only_ends = {**st, "givens": [[v if v in (1, 16) else 0 for v in row] for row in st["givens"]]}
        if st["givens"] == only_ends["givens"] and successor_models(st) > 1:
            assert T.count_solutions(inst) == 1
            found += 1
    assert found >= 1


def test_claims():
    inst = T.load(SPEC_ID)
    assert len(solution_claims(inst)) == 9
    check_labels(inst, correct=[{"type": "Cell", "r": 0, "c": 1, "v": 7},
                                {"type": "Given", "r": 2, "c": 2, "v": 1},
                                {"type": "Arrow", "r": 2, "c": 0, "dir": "NE"}],
                       incorrect=[{"type": "NotCell", "r": 0, "c": 1, "v": 7},
                                  {"type": "Given", "r": 0, "c": 1, "v": 7},
                                  {"type": "Arrow", "r": 1, "c": 1, "dir": "N"}])


def test_two_cell_grid_leaves_a_cell_to_fill():
    inst = T.generate(np.random.default_rng(0), difficulty="trivial")
    assert len(T.givens(inst)) == 1 and T.count_solutions(inst) == 1


def test_corner_ends():
    assert T.decode_params("4x4c") == {"W": 4, "H": 4, "corners": True}
    inst = T.generate(np.random.default_rng(3), W=4, corners=True)
    assert inst.data["tatham_params"] == "4x4c" and inst.data["game_id"].startswith("4x4:1")
    sol = T.solve(inst)
    assert sol[0][0] == 1 and sol[3][3] == 16 and T.count_solutions(inst) == 1


@pytest.mark.parametrize("W, H, corners", [(5, 5, False), (7, 7, False), (6, 5, True)])
def test_fast_placement_matches_propagation_on_the_sat_encoding(W, H, corners):
    """Beyond 16 cells the givens are placed by the generator's own kernel. What it keeps must be
    exactly what unit propagation on the SAT encoding needs: the puzzle has grade 0 (so it is
    unique, which the solver confirms) and hiding any given other than 1 and W*H leaves
    propagation short of a full numbering."""
    for seed in range(3):
        inst = T.generate(np.random.default_rng(seed), W=W, H=H, corners=corners)
        st = inst.data["state"]
        assert T.grade(inst) == 0 and T.count_solutions(inst, limit=2) == 1
        enc = T.encode(st)
        eng = enc.engine
        keys = [k for k in enc.clues if st["givens"][k[1]][k[2]] not in (1, W * H)]
        assert keys
        for k in keys:
            others = enc.assumptions([j for j in enc.clues if j != k])
            assert not eng.fixes_answer(eng.propagate(others)), k


def test_queen_path_is_a_hamiltonian_queen_walk():
    from kumo_gym.envs.grid.signpost.geometry import QUEEN_STEPS, queen_path

    for seed in range(5):
        path = queen_path(np.random.default_rng(seed), 5, 6, start=(0, 0), end=(4, 5))
        assert sorted(path) == [(r, c) for r in range(5) for c in range(6)]
        assert path[0] == (0, 0) and path[-1] == (4, 5)
        for (r, c), (r2, c2) in itertools.pairwise(path):
            dr, dc = r2 - r, c2 - c
            assert ((dr > 0) - (dr < 0), (dc > 0) - (dc < 0)) in QUEEN_STEPS and (dr == 0 or dc == 0 or abs(dr) == abs(dc))


@pytest.mark.parametrize("W, H", [(3, 3), (4, 4), (4, 3)])
def test_small_grid_reduction_matches_probing_on_the_sat_encoding(W, H):
    """Up to 16 cells the givens are reduced by the generator's probing kernel. What it keeps must
    be exactly what failed-literal probing on the SAT encoding needs: grade at most 1 (so unique,
    which the solver confirms), and hiding any given other than 1 and W*H leaves probing short."""
    kept = 0
    for seed in range(12):
        inst = T.generate(np.random.default_rng(seed), W=W, H=H)
        st = inst.data["state"]
        assert T.grade(inst) <= 1 and T.count_solutions(inst, limit=2) == 1
        enc = T.encode(st)
        eng = enc.engine
        for k in [k for k in enc.clues if st["givens"][k[1]][k[2]] not in (1, W * H)]:
            others = enc.assumptions([j for j in enc.clues if j != k])
            assert not eng.fixes_answer(eng.probe(others)), k
            kept += 1
    assert kept or W * H < 16  # at 4x4 some grid needs a given beyond the ends (rarely at 3x3)
