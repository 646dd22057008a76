"""Net (docs/specs/grid_puzzles.md §5 "Net", §6, §7, §8)."""
from __future__ import annotations

import json

import numpy as np

from kumo_gym.envs.grid import net as net_module
from kumo_gym.envs.grid.claims import label_claim, solution_claims
from kumo_gym.envs.grid.net import NetTask
from kumo_gym.envs.grid.net.deduce import deduces
from kumo_gym.envs.grid.net.geometry import grid_links, link_dirs, random_tree
from kumo_gym.envs.grid.tatham import codec, decode_auxinfo
from kumo_gym.solvers import sat
from kumo_gym.solvers.engine import values_of

from .spec import check_labels, check_rejected, check_tatham_example

T = NetTask()
SPEC_ID = "2x2:2233"
SPEC_SOLUTION = [[180, 180], [0, 270]]
#: a puzzle whose rules without the spanning-tree rule admit a second answer: a closed loop
#: beside a separate piece (found by enumerating the CNF without cuts), which must be rejected
LOOPY_ID = "4x4:4224bd957d734161"
LOOPY_SOLUTION = [[180, 180, 180, 180], [90, 0, 270, 0], [90, 180, 180, 270], [0, 0, 0, 270]]
LOOPY_WRONG = [[180, 90, 270, 180], [90, 180, 180, 0], [90, 270, 90, 270], [0, 0, 0, 270]]
#: a puzzle whose rules CNF (with the no-4-cycle and no-isolated-pair clauses) still allows a
#: network with a longer loop: only the spanning-tree cuts rule it out
LONG_LOOP_ID = "5x5:231c1ddc9853dd67e8b112872"
LONG_LOOP_WRONG = [[180, 90, 270, 90, 270], [90, 0, 180, 0, 270], [0, 90, 0, 180, 180], [90, 270, 90, 270, 0],
                   [0, 0, 90, 0, 270]]


def rules(inst, grid):
    return T.verify(inst, grid).rules


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    tiles = inst.data["state"]["tiles"]
    assert [[t["dirs"] for t in row] for row in tiles] == [["U", "U"], ["UR", "UR"]]
    assert [[t["type"] for t in row] for row in tiles] == [["E", "E"], ["C", "C"]]
    # Tatham's save file for 2x2#kumo1 carries the solved masks as AUXINFO
    assert codec("net").aux_solution(inst.data["state"], decode_auxinfo("994f2188")) == SPEC_SOLUTION


def test_wrapping_and_barriers_from_tatham():
    # sgt-net --generate 1 '4x4w#kumo1' --save: AUXINFO is the solved tile masks
    inst = T.load("4x4w:149554a2b5a2c97b")
    assert inst.data["state"]["wrap"] is True and T.count_solutions(inst) == 1
    aux = codec("net").aux_solution(inst.data["state"], decode_auxinfo("ccdd1cb7a023c8cb916bbe0b876b4105"))
    assert aux == inst.data["solution"]
    # sgt-net --generate 1 '5x5wb0.3a#kumo1': 'v' a barrier right of a tile, 'h' one below it
    gid = "5x5w:86vh181843v3e78h7d27v9ev3745b68h"
    inst = T.load(gid)
    assert [0, 1, "R"] in inst.data["state"]["barriers"] and [0, 1, "D"] in inst.data["state"]["barriers"]
    assert [4, 4, "D"] in inst.data["state"]["barriers"]  # wraps to the top row
    assert T.to_game_id(inst) == gid and T.verify(inst, inst.data["solution"]).solved
    # without wrapping, a barrier on the outer border means nothing and is dropped
    assert T.load("2x2:22v33").data["state"]["barriers"] == []


def test_params_grammar():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["2x2", "4x4", "5x5", "11x11"]
    assert T.decode_params("4x4w") == {"W": 4, "H": 4, "wrap": True}
    assert T.encode_params(T.resolve_params(W=5, H=3, wrap=True), full=False) == "5x3w"
    check_rejected(T.decode_params, ("5x5wb0.3a", "5x5q", "1x1", "40x40"))
    check_rejected(T.load, ("2x2:22g3", "2x2:223", "2x2:22333", "2x2:h2233", "2x2:0233", "2x2:22x33"))


def test_each_rule_breaks_alone():
    inst = T.load(SPEC_ID)
    # R2 alone: the top-left end turned to point off the grid; the tile below still points at it,
    # so the tiles stay joined as one tree, but two pipe ends are unmatched
    assert rules(inst, [[0, 180], [0, 270]]) == ["net.R2"]
    loopy = T.load(LOOPY_ID)
    assert loopy.data["solution"] == LOOPY_SOLUTION
    # R3 alone: every end matched, but the pipes close a loop and leave a separate piece
    v = T.verify(loopy, LOOPY_WRONG)
    assert v.rules == ["net.R3"] and v.details["first_error_cell"] == [0, 1]
    # R1 cannot be broken: an orientation never changes a tile's type
    rng = np.random.default_rng(0)
    for _ in range(50):
        grid = [[int(x) for x in row] for row in rng.choice([0, 90, 180, 270], size=(4, 4))]
        assert "net.R1" not in rules(loopy, grid)


def test_uniqueness_needs_the_spanning_tree_cuts():
    """Without the cuts the CNF has two answers (one with a loop of more than four links): a proof
    that ignored them would call this puzzle ambiguous; with the cuts it is unique. The loop of
    LOOPY_ID is a 2x2 square, which the formula itself rules out."""
    enc = T.encoding(T.load(LOOPY_ID))
    assert len(sat.enumerate_models(enc.formula.clauses, enc.answer.tolist(), limit=3, assumptions=enc.assumptions())) == 1
    inst = T.load(LONG_LOOP_ID)
    enc = T.encoding(inst)
    models = sat.enumerate_models(enc.formula.clauses, enc.answer.tolist(), limit=3, assumptions=enc.assumptions())
    assert len(models) == 2
    grids = [enc.decode(values_of(m, enc.formula.n_vars)) for m in models]
    assert LONG_LOOP_WRONG in grids and not T.verify(inst, LONG_LOOP_WRONG).solved
    assert T.count_solutions(inst, limit=3) == 1
    assert T.encoding(inst).engine.stats["cuts"] >= 1


def test_equivalent_orientations_of_symmetric_tiles():
    inst = T.generate(np.random.default_rng(1), difficulty="normal")
    sol = inst.data["solution"]
    tiles = inst.data["state"]["tiles"]
    straight = [(r, c) for r, row in enumerate(tiles) for c, t in enumerate(row) if t["type"] == "I"]
    assert straight
    other = [list(row) for row in sol]
    for r, c in straight:
        other[r][c] = (sol[r][c] + 180) % 360
    assert other != sol and T.verify(inst, other).solved
    r, c = straight[0]
    assert label_claim(inst, {"type": "cell", "row": r, "col": c, "value": other[r][c]}) == "correct"


def test_generator_has_no_crosses_and_is_deterministic():
    a = T.generate(np.random.default_rng(4), difficulty="normal")
    assert a == T.generate(np.random.default_rng(4), difficulty="normal")
    assert all(t["type"] != "X" for row in a.data["state"]["tiles"] for t in row)
    w = T.generate(np.random.default_rng(4), W=4, H=3, wrap=True)
    assert w.data["game_id"].startswith("4x3w:") and T.count_solutions(w) == 1


def test_claims():
    inst = T.load(SPEC_ID)
    assert solution_claims(inst)[0] == {"type": "TileDirs", "r": 0, "c": 0, "dirs": "D"}
    check_labels(inst, correct=[{"type": "TileDirs", "r": 1, "c": 1, "dirs": "LU"},
                                {"type": "Link", "a": [0, 0], "b": [1, 0], "on": True},
                                {"type": "Link", "a": [0, 0], "b": [0, 1], "on": False}],
                       incorrect=[{"type": "TileDirs", "r": 1, "c": 1, "dirs": "UR"},
                                  {"type": "Link", "a": [0, 0], "b": [0, 1], "on": True}])
    assert label_claim(inst, {"type": "Tile", "r": 1, "c": 0, "type_": 0, "payload": {"r": 1, "c": 0, "type": "C"}}) \
        == "correct"
    assert label_claim(inst, {"type": "Tile", "payload": {"r": 1, "c": 0, "type": "E"}}) == "incorrect"


def test_interactive_rotations_and_drawing():
    inst = T.load(SPEC_ID)
    s0 = T.initial_state(inst)
    assert s0 == ((0, 0), (0, 0))  # the scrambled tiles as given: U, U, UR, UR
    assert T.parse_move('{"r": 0, "c": 1, "v": 180}') == (0, 1, 180)
    assert T.check_move(inst, s0, (0, 1, 45)) is not None
    s = s0
    for m in T.golden_moves(inst):
        s = T.apply(inst, s, m)
    assert T.is_goal(inst, s) and T.optimal_steps(inst) == 3
    text = T.render(inst, SPEC_SOLUTION)
    assert "\u2193" in text and "\u2514" in text  # ends pointing down, a corner U+R
    img = T.render_rgb(inst, SPEC_SOLUTION)
    assert not np.array_equal(img, T.render_rgb(inst))
    assert json.JSONDecoder().raw_decode(T.prompt(inst).split("Puzzle state (JSON):\n", 1)[1])[0] == inst.data["state"]


def _dirs(inst):
    return [[t["dirs"] for t in row] for row in inst.data["state"]["tiles"]]


def test_deduction_is_sound_and_bites():
    """Our deduction (deduce/net.py) says solved only where SAT finds one network, and leaves
    ambiguous trees undecided; it needs its loop and closed-network rules (LOOPY_ID, LONG_LOOP_ID)."""
    state = T.load("4x4w:149554a2b5a2c97b").data["state"]
    assert deduces(_dirs(T.load(SPEC_ID)), False) and deduces(_dirs(T.load(LONG_LOOP_ID)), False)
    assert deduces(_dirs(T.load(LOOPY_ID)), False) and deduces([[t["dirs"] for t in r] for r in state["tiles"]], True)
    seen = {True: 0, False: 0}
    for seed in range(40):
        for H, W, wrap in ((4, 4, False), (3, 4, True)):
            rng = np.random.default_rng(seed)
            links = grid_links(H, W, wrap)
            tree = random_tree(rng, H * W, [(a[0] * W + a[1], b[0] * W + b[1]) for a, _, b in links], 0, 3)
            dirs = link_dirs(H, W, links, tree)
            st = {"tiles": [[{"dirs": d, "orientation": 0, "type": "E"} for d in row] for row in dirs], "wrap": wrap,
                  "barriers": []}
            inst = T.load(f"{W}x{H}{'w' * wrap}:{codec('net').encode(st)}")
            unique = T.count_solutions(inst) == 1
            solved = deduces(dirs, wrap)
            assert unique or not solved, (seed, H, W, wrap)
            seen[unique] += 1
    assert seen[True] and seen[False]
    # a barrier is a closed link: this 2x2 with a wall down the middle has no network at all
    assert deduces([["D", "D"], ["U", "U"]], False, frozenset({(0, 0, "R"), (1, 0, "R")})) is None


def test_generator_is_certified_by_deduction_with_a_sat_fallback(monkeypatch):
    """Generated puzzles are the deduction's (unique by SAT too); when it fails, the SAT loop
    generates unique puzzles on its own, deterministically."""
    for diff in ("normal", "hard"):
        inst = T.generate(np.random.default_rng(7), difficulty=diff)
        assert deduces(_dirs(inst), False) and T.count_solutions(inst) == 1
    w = T.generate(np.random.default_rng(3), W=5, H=4, wrap=True)
    assert deduces(_dirs(w), True) and T.count_solutions(w) == 1
    monkeypatch.setattr(net_module, "unique_tree", lambda *a: None)
    a = T.generate(np.random.default_rng(5), difficulty="normal")
    assert a == T.generate(np.random.default_rng(5), difficulty="normal") and T.count_solutions(a) == 1
