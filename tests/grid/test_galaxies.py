"""Galaxies (docs/specs/grid_puzzles.md §5 "Galaxies", §6, §7, §8)."""
from __future__ import annotations

import json

import numpy as np

from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.galaxies import GalaxiesTask
from kumo_gym.envs.grid.galaxies.geometry import label_components
from kumo_gym.envs.grid.geometry import components
from kumo_gym.solvers import sat
from kumo_gym.solvers.engine import values_of

from .spec import check_labels, check_rejected, check_tatham_example

T = GalaxiesTask()
SPEC_ID = "3x3:ehh"
SPEC_SOLUTION = [[1, 1, 0], [1, 1, 1], [2, 1, 1]]
#: a puzzle whose rules without connectivity admit a second answer (found by enumerating the CNF
#: without cuts): region 6 in two symmetric pieces, which must be rejected
SPLIT_ID = "5x4:accbpncca"
SPLIT_SOLUTION = [[0, 1, 1, 2, 3], [5, 5, 6, 4, 7], [8, 5, 6, 6, 7], [8, 5, 5, 6, 7]]
SPLIT_WRONG = [[0, 1, 1, 2, 3], [5, 6, 6, 4, 6], [8, 5, 6, 6, 7], [8, 6, 5, 6, 6]]


def rules(inst, grid):
    return T.verify(inst, grid).rules


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"] == {"W": 3, "H": 3, "dots": [[0, 4], [2, 2], [4, 0]]}


def test_uppercase_and_z_from_tatham():
    # an upper-case letter is a black dot (a display mark): the same puzzle, kept for the round trip
    inst = T.load("3x3:eHh")
    assert inst.data["state"]["black"] == [1] and inst.data["solution"] == SPEC_SOLUTION
    assert T.to_game_id(inst) == "3x3:eHh"
    # sgt-galaxies --generate 1 '15x15dn#kumo1': 'z' skips 25 positions
    gid = "15x15:skbdgjzzsgygjdczlhzzdizgezzdjczkjbyfzzqtqqcffdbnkzksnzmllnhetneec"
    big = T.load(gid)
    assert len(big.data["state"]["dots"]) == 52 and T.to_game_id(big) == gid
    assert T.verify(big, big.data["solution"]).solved


def test_params_grammar():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["3x3dn", "5x5dn", "7x7dn", "15x15dn"]
    assert T.decode_params("5x5du") == {"W": 5, "H": 5, "tatham_difficulty": "u"}
    assert T.encode_params(T.resolve_params(W=6, H=4, tatham_difficulty="u"), full=False) == "6x4"
    check_rejected(T.decode_params, ("5x5dx", "2x2dn", "5x5dnq"))
    check_rejected(T.load, ("3x3:", "3x3:zb", "3x3:eh!", "3x3:aaaaaaaaaaaaaaaaaaaaaaaaaa", "3x3:a"))


def test_relabelled_regions_are_accepted():
    inst = T.load(SPLIT_ID)
    perm = np.random.default_rng(0).permutation(len(inst.data["state"]["dots"]))
    relabelled = [[int(perm[v]) for v in row] for row in SPLIT_SOLUTION]
    assert relabelled != SPLIT_SOLUTION and T.verify(inst, relabelled).solved


def test_each_rule_breaks_alone():
    inst = T.load(SPEC_ID)
    # R3 alone: the corner dot's cell joins the centre region, which then holds two dots
    assert rules(inst, [[1, 1, 1], [1, 1, 1], [2, 1, 1]]) == ["galaxies.R3"]
    # R4 alone: cell (0, 1) moves to the corner region; both regions stay connected with one dot
    v = T.verify(inst, [[1, 0, 0], [1, 1, 1], [2, 1, 1]])
    assert v.rules == ["galaxies.R4"] and v.details["first_error_cell"] == [0, 1]
    # R2 alone: region 6 symmetric about its dot and holding it, but in two pieces
    split = T.load(SPLIT_ID)
    assert split.data["solution"] == SPLIT_SOLUTION
    assert rules(split, SPLIT_WRONG) == ["galaxies.R2"]
    # R1 cannot be broken: every cell of an answer grid carries exactly one label


def test_uniqueness_needs_the_connectivity_cuts():
    inst = T.load(SPLIT_ID)
    enc = T.encoding(inst)
    models = sat.enumerate_models(enc.formula.clauses, enc.answer.tolist(), limit=3, assumptions=enc.assumptions())
    grids = [enc.decode(values_of(m, enc.formula.n_vars)) for m in models]
    assert len(grids) >= 2 and SPLIT_WRONG in grids  # a proof without the global rule says "ambiguous"
    assert T.count_solutions(inst, limit=3) == 1


def test_generator_is_deterministic_and_unique():
    a = T.generate(np.random.default_rng(3), difficulty="normal")
    assert a == T.generate(np.random.default_rng(3), difficulty="normal")
    assert T.count_solutions(a) == 1 and len(a.data["state"]["dots"]) > 1
    b = T.generate(np.random.default_rng(3), W=6, H=4, tatham_difficulty="u")
    assert b.data["game_id"].startswith("6x4:") and b.data["tatham_params"] == "6x4du"


def test_claims():
    inst = T.load(SPEC_ID)
    assert solution_claims(inst)[0] == {"type": "InRegion", "r": 0, "c": 0, "dot": 1}
    check_labels(inst, correct=[{"type": "InRegion", "r": 2, "c": 0, "dot": 2},
                                {"type": "SameRegion", "a": [0, 0], "b": [2, 2]},
                                {"type": "DiffRegion", "a": [0, 0], "b": [0, 2]},
                                {"type": "Dot", "r2": 2, "c2": 2}],
                       incorrect=[{"type": "InRegion", "r": 2, "c": 0, "dot": 1},
                                  {"type": "SameRegion", "a": [0, 0], "b": [0, 2]},
                                  {"type": "Dot", "r2": 1, "c2": 2}])


def test_interactive_and_drawing():
    inst = T.load(SPEC_ID)
    s0 = T.initial_state(inst)
    assert all(v == -1 for row in s0 for v in row)
    assert T.check_move(inst, s0, (0, 0, 3)) is not None  # only dots 0..2 exist
    assert T.check_move(inst, s0, (0, 0, 2)) is None
    assert "-1..2" in T.interactive_prompt(inst)
    s = s0
    for m in T.golden_moves(inst):
        s = T.apply(inst, s, m)
    assert T.is_goal(inst, s)
    sketch = T.sketch(inst, SPEC_SOLUTION)
    assert ((0, 1), (0, 2)) in sketch.walls and len(sketch.dots) == 3  # region borders drawn as walls
    assert not np.array_equal(T.render_rgb(inst, SPEC_SOLUTION), T.render_rgb(inst))
    assert json.JSONDecoder().raw_decode(T.prompt(inst).split("Puzzle state (JSON):\n", 1)[1])[0] == inst.data["state"]


def test_array_deduction_matches_the_formula_deduction():
    # deduce_regions (no formula) and deduce_encoding (propagation of the clauses plus
    # reachability) agree, and a decided grid is the solution
    from kumo_gym.envs.grid.galaxies.deduce import deduce_encoding, deduce_regions
    from kumo_gym.envs.grid.galaxies.geometry import random_symmetric_partition

    rng = np.random.default_rng(5)
    solved = 0
    for H, W, seeds in [(5, 5, 1), (7, 7, 3), (8, 6, 3)] * 4:
        dots, sol = random_symmetric_partition(rng, H, W, seeds, {(0, 0): 1, (0, 1): 1, (1, 0): 1, (1, 1): 1})
        labels = deduce_regions(H, W, dots)
        enc = T.encode({"W": W, "H": H, "dots": dots})
        value = deduce_encoding(enc)
        by_arrays = labels is not None and bool((labels >= 0).all())
        assert by_arrays == enc.engine.fixes_answer(value)
        if by_arrays:
            solved += 1
            assert labels.tolist() == sol == enc.decode(value)
    assert solved > 0
    assert deduce_regions(4, 5, T.load(SPLIT_ID).data["state"]["dots"]).tolist() == SPLIT_SOLUTION


def test_solutions_by_deduction_match_sat():
    # solutions() answers from the deduction when it decides every cell: the same as SAT's
    from kumo_gym.envs.grid.galaxies import GalaxiesTask as G

    inst = T.generate(np.random.default_rng(8), difficulty="normal")
    by_sat = super(G, T).solutions(inst, 3)
    assert T.solutions(inst, 3) == by_sat == [inst.data["solution"]]
    split = T.load(SPLIT_ID)  # needs connectivity: the reachability step, or SAT with the cuts
    assert T.solutions(split, 3) == super(G, T).solutions(split, 3) == [SPLIT_SOLUTION]


def test_label_components_match_components_per_label():
    """The one-pass labelling rule_checks uses gives, per value, what components() gives for it."""
    rng = np.random.default_rng(8)
    for _ in range(40):
        grid = rng.integers(0, int(rng.integers(1, 5)), (int(rng.integers(1, 7)), int(rng.integers(1, 7))))
        got = label_components(grid.tolist())
        assert sorted(got) == sorted(set(grid.ravel().tolist()))
        for v, comps in got.items():
            assert comps == components(grid == v)


def test_kernel_partitions_and_deduction():
    """The generator's kernel draws valid symmetric partitions, and its deduction decides a
    partition exactly when deduce_regions does (the same fixpoint); generated puzzles are unique
    by SAT with the cuts, not only by the deduction."""
    from kumo_gym.envs.grid.galaxies import GalaxiesTask as G
    from kumo_gym.envs.grid.galaxies import kernel
    from kumo_gym.envs.grid.galaxies.deduce import SEEDS, _relabelled, deduce_regions

    rng = np.random.default_rng(6)
    outcomes = set()
    for H, W in [(3, 3), (5, 5), (7, 7), (6, 9), (15, 15)] * 6:
        bufs = kernel.scratch(H, W)
        got = kernel.run(H, W, round(SEEDS[0] * H * W + SEEDS[1]), np.asarray([1.0, 1.5, 1.5, 4.0]),
                         rng.random(2 * H * W + 2), *bufs)
        K = abs(got) - 1
        dots, sol = _relabelled(bufs[1][:2 * K].reshape(K, 2), bufs[2].reshape(H, W))
        inst = T.make_instance({"W": W, "H": H}, {"W": W, "H": H, "dots": dots}, sol, source="test")
        assert T.verify(inst, sol).solved
        labels = deduce_regions(H, W, dots)
        assert (got > 0) == bool((labels >= 0).all())
        outcomes.add(got > 0)
    assert outcomes == {True, False}
    for diff in ("trivial", "hard"):
        inst = T.generate(np.random.default_rng(11), difficulty=diff)
        assert super(G, T).solutions(inst, 2) == [inst.data["solution"]]


def test_blind_solves_matches_the_shared_test():
    from kumo_gym.envs.grid.base import GridTask
    from kumo_gym.envs.grid.galaxies.geometry import random_symmetric_partition

    found = set()
    for s in range(80):
        H, W = (3, 3) if s % 2 else (2, 3)
        dots, sol = random_symmetric_partition(np.random.default_rng(s), H, W, 1 + s % 3, {(0, 0): 1, (0, 1): 1, (1, 0): 1, (1, 1): 1})
        inst = T.make_instance({"W": W, "H": H}, {"W": W, "H": H, "dots": dots}, sol, source="test")
        found.add(T.blind_solves(inst))
        assert T.blind_solves(inst) == GridTask.blind_solves(T, inst)
    assert found == {True, False}
