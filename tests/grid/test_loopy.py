"""Loopy (docs/grid.md "Loopy"): Tatham's game IDs, the rules one by one, generation, moves, claims, pictures."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid import tatham
from kumo_gym.envs.grid.claims import label_claim
from kumo_gym.envs.grid.geometry import number_loops
from kumo_gym.envs.grid.loopy import LoopyTask, board, penrose
from kumo_gym.envs.grid.loopy.geometry import boundary, clues_of, random_region
from kumo_gym.envs.grid.loopy.tiling import tiling

from .spec import check_cuts_needed, check_labels, check_rejected, check_tatham_example

T = LoopyTask()
#: sgt-loopy --generate 1 '4x4t0de#kumo1'
SPEC_ID = "4x4t0:d3a3d3a20a"
SPEC_SOLUTION = [[1, 2, 3, 4, 5], [22, 21, 12, 11, 6], [19, 20, 13, 10, 7], [18, 15, 14, 9, 8],
                 [17, 16, -1, -1, -1]]


def rules(inst, grid):
    return T.verify(inst, grid).rules


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"]["clues"][1] == [3, -1, 3, -1] and inst.data["state"]["clues"][3] == [-1, 2, 0, -1]
    assert (inst.data["H"], inst.data["W"]) == (5, 5)  # the answer grid is the dots


def test_grammar():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["7x7t0de", "10x10t0de", "10x10t0dn", "10x10t0dh"]
    assert T.decode_params("7x5t0dh") == {"W": 7, "H": 5, "tiling": 0, "tatham_difficulty": "h"}
    assert T.decode_params("6") == {"W": 6, "H": 6}
    long = T.load("3x3t0:" + "z" * 0 + "i")  # a run of empty faces
    assert T.to_game_id(long) == "3x3t0:i"
    wide = T.load("9x3t0:za")  # 27 empty faces: 'z' (26) then 'a'
    assert T.to_game_id(wide) == "9x3t0:za"
    check_rejected(T.load, ("4x4t0:d3a3d3a20", "4x4t0:d3a3d3a20aa", "4x4t0:d5a3d3a20a", "4x4t0:d3a3d3a2_0a",
                            "4x4t0:d3a3d3a2Xa"))
    for bad in ("2x2t0de", "4x4t16de", "2x5t11de", "4x4t0dx"):  # too small; no such tiling; too small; no such level
        with pytest.raises(ConfigError):
            T.resolve_params(**T.decode_params(bad))


def test_each_rule_alone():
    inst = T.load(SPEC_ID)
    # R1: dot (0, 0) left out, so the numbering is an open path (its two lines border only face (0, 0), no clue)
    bad = [[v - 1 if v > 1 else -1 for v in row] for row in SPEC_SOLUTION]
    assert rules(inst, bad) == ["loopy.R1"]
    twice = [list(r) for r in SPEC_SOLUTION]
    twice[4][4] = 5
    assert "loopy.R1" in rules(inst, twice)
    assert "loopy.R1" in rules(inst, [[1, 2, -1, -1, -1]] + [[-1] * 5] * 4)
    # R2: a valid loop (the square round face (0, 3)) that gives the clued faces other counts
    square = number_loops(5, 5, {((0, 3), (0, 4)), ((0, 4), (1, 4)), ((1, 3), (1, 4)), ((0, 3), (1, 3))})
    assert rules(inst, square) == ["loopy.R2"]
    v = T.verify(inst, square)
    assert v.details["first_error_cell"] == [1, 0]  # face (1, 0), named by its corner dots
    with T.rules_disabled("loopy.R2"):
        assert T.verify(inst, square).solved


def test_two_loops_break_the_one_loop_rule():
    inst = T.load(SPEC_ID)
    two = number_loops(5, 5, {((0, 0), (0, 1)), ((0, 1), (1, 1)), ((1, 0), (1, 1)), ((0, 0), (1, 0)),
                              ((3, 3), (3, 4)), ((3, 4), (4, 4)), ((4, 3), (4, 4)), ((3, 3), (4, 3))})
    assert "loopy.R1" in rules(inst, two)


def test_uniqueness_needs_the_one_loop_cuts():
    check_cuts_needed(T, "loopy.R1", "trivial")


def test_random_regions_bound_one_loop():
    for seed in range(6):
        inside = random_region(np.random.default_rng(seed), 6, 7, 0.5)
        edges = boundary(inside)
        numbered = number_loops(7, 8, edges)
        assert sum(v > 0 for row in numbered for v in row) == len(edges)  # one simple loop through every line
        clues = clues_of(6, 7, edges)
        assert sum(map(sum, clues)) == 2 * len(edges) - sum(  # an edge on the border has one face
            1 for (a, b) in edges if a[0] == b[0] in (0, 6) or a[1] == b[1] in (0, 7))


def test_generation():
    inst = T.generate(np.random.default_rng(1), difficulty="trivial")
    assert T.count_solutions(inst) == 1 and T.verify(inst, inst.data["solution"]).solved
    assert inst.data["game_id"].startswith("7x7t0:")
    assert abs(T.clue_count(inst) - 0.452 * 49) <= 0.15 * 0.452 * 49  # Tatham's share of clued faces
    again = T.generate(np.random.default_rng(1), difficulty="trivial")
    assert again.to_json() == inst.to_json()


def test_edge_moves():
    inst = T.load(SPEC_ID)
    state = T.initial_state(inst)
    for m in T.golden_moves(inst):
        assert T.check_move(inst, state, m) is None
        state = T.apply(inst, state, m)
    assert T.is_goal(inst, state) and T.state_answer(inst, state) == SPEC_SOLUTION
    assert len(T.golden_moves(inst)) == 22


def test_claims():
    inst = T.load(SPEC_ID)
    cstar = T.solution_claims(inst)
    assert len(cstar) == 22 and all(label_claim(inst, c) == "correct" for c in cstar)
    check_labels(inst, incorrect=[{"type": "Edge", "a": [0, 0], "b": [0, 1], "on": False},
                                  {"type": "OnPath", "r": 4, "c": 4}, {"type": "Clue", "r": 1, "c": 0, "n": 2},
                                  {"type": "Clue", "r": 4, "c": 0, "n": 0}],
                       correct=[{"type": "OffPath", "r": 4, "c": 4}, {"type": "Clue", "r": 3, "c": 2, "n": 0}])


def test_pictures_draw_the_loop_between_the_dots():
    inst = T.load(SPEC_ID)
    empty, solved = T.render_rgb(inst), T.render_rgb(inst, SPEC_SOLUTION)
    assert empty.shape == solved.shape and not np.array_equal(empty, solved)
    text = T.render(inst, SPEC_SOLUTION)
    assert "\u250c" in text and "3" in text
    square = number_loops(5, 5, {((0, 3), (0, 4)), ((0, 4), (1, 4)), ((1, 3), (1, 4)), ((0, 3), (1, 3))})
    pic = T.state_picture(inst, square, T.verify(inst, square).to_dict())
    assert pic.marks[0]["at"] == [1, 0] and pic.marks[0]["first"]


# ---- the triangular (t1) and honeycomb (t2) tilings ---------------------------------------------------------------
#: sgt-loopy --generate 1 '3x3t1de#kumo1' and '3x3t2de#kumo1' style IDs (any of Tatham's IDs at these sizes)
TRI_ID = "3x3t1:0_20d1d01a21211"
HEX_ID = "3x3t2:03b4a5b"
need_sgt = pytest.mark.skipif(tatham.sgt_binary("loopy") is None, reason="sgt-loopy not installed (sgt-puzzles)")


def test_tiling_layouts():
    from kumo_gym.envs.grid.loopy import MAX_DOTS, TILINGS
    from kumo_gym.envs.grid.loopy.penrose import random_desc
    from kumo_gym.envs.grid.loopy.tiling import default_desc
    assert MAX_DOTS == max(len(tiling(k, 20, 20, default_desc(k)).dots) for k in TILINGS if k and k not in (11, 12))
    rng = np.random.default_rng(0)
    assert max(len(tiling(k, 20, 20, random_desc(rng, k, 20, 20)).dots) for k in (11, 12) for _ in range(4)) < MAX_DOTS
    assert max(T.symbols) == MAX_DOTS
    tri = tiling(1, 3, 3, "0")
    assert (len(tri.faces), len(tri.dots), len(tri.edges)) == (19, 16, 34)  # odd height: two end triangles left out
    hexes = tiling(2, 3, 3)
    assert (len(hexes.faces), len(hexes.dots), len(hexes.edges)) == (9, 30, 38)
    kinds = [*range(3, 11), 13, 14, 15]
    others = [tiling(k, 4, 5) for k in kinds] + [tiling(k, 5, 4) for k in kinds]
    for t in (tri, hexes, tiling(1, 4, 5, None), tiling(1, 6, 4, "0"), tiling(2, 5, 4), *others):
        assert len(t.edges) == len(t.faces) + len(t.dots) - 1  # Euler: one piece, no holes
        for ds in t.faces:  # clockwise on the page (y downwards): positive shoelace sum
            pts = [t.dots[d] for d in ds]
            assert sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1])) > 0
        assert all(len(fs) in (1, 2) for fs in t.edge_faces)
    # Tatham's face order: honeycomb row 0 left to right (odd columns half a face lower), then row 1
    assert [hexes.centre(f) for f in range(4)] == [(2.0, 1.0), (5.0, 2.0), (8.0, 1.0), (2.0, 3.0)]
    # triangular row 0: the four pointing up, then the three pointing down
    ups = [tri.dots[tri.faces[f][0]][1] > tri.dots[tri.faces[f][1]][1] for f in range(7)]
    assert ups == [True] * 4 + [False] * 3


@need_sgt
@pytest.mark.parametrize("params", ["3x3t1", "4x5t1", "5x4t1", "7x6t1", "3x3t2", "4x5t2", "6x3t2", "3x3t3", "4x5t3",
                                    "3x4t4", "5x4t4", "4x6t4", "3x3t5", "4x5t5", "5x4t5", "3x3t6", "5x4t6", "3x3t7",
                                    "4x5t7", "5x4t7", "3x3t8", "4x5t8", "5x4t8", "3x3t9", "4x5t9", "5x4t9", "3x3t10",
                                    "4x5t10", "5x4t10", "3x3t13", "4x5t13", "5x4t13", "3x3t14", "4x5t14", "5x4t14",
                                    "3x3t15", "4x5t15", "5x4t15"])
def test_face_counts_agree_with_tatham(params):
    """An ID with no clues is accepted by Tatham only when it lists exactly Tatham's number of faces."""
    W, H = map(int, params.split("t")[0].split("x"))
    kind = int(params.split("t")[1])
    for desc in (["0", None] if kind == 1 else [None]):
        F = len(tiling(kind, W, H, desc).faces)
        runs = "z" * (F // 26) + ("" if F % 26 == 0 else chr(ord("a") + F % 26 - 1))
        game_id = f"{params}:" + (f"{desc}_" if desc else "") + runs
        assert tatham.sgt_accepts("loopy", game_id)[0], game_id
        longer = game_id + "a"
        assert not tatham.sgt_accepts("loopy", longer)[0], longer


@need_sgt
@pytest.mark.parametrize("params", ["7x7t1de", "7x7t1dn", "10x10t1dh", "7x7t2de", "7x7t2dn", "12x10t2dh", "7x7t3dn",
                                    "5x5t4dh", "5x4t5dn", "7x7t6dh", "5x5t7dn", "5x5t8dn", "5x4t9dh", "5x4t10dn",
                                    "4x4t13dn", "5x4t14dn", "5x5t15dn", "7x7t11dn", "10x10t11dh", "3x3t11de",
                                    "7x7t12dn", "10x10t12dh", "4x9t12de"])
def test_tatham_tiling_ids_import_unique_and_round_trip(params):
    for save in tatham.sgt_generate_saves("loopy", params, 2, seed="kumo1"):
        game_id = f"{T.encode_params(T.decode_params(params), full=False)}:{save['DESC']}"
        inst = T.load(game_id)
        assert T.to_game_id(inst) == game_id  # byte for byte, the triangular grid's "0_" included
        assert T.count_solutions(inst) == 1, game_id
        gold = T.solve(inst)
        assert T.score(inst, T.format_answer(gold)).solved
        assert "AUXINFO" not in save or not save["AUXINFO"]  # Loopy writes none


@need_sgt
@pytest.mark.parametrize("params", ["7x7t1dn", "10x10t1dh", "7x7t2dn", "12x10t2dh", "5x5t3dn", "4x5t4dn", "4x4t5dn",
                                    "5x5t6dn", "4x4t7dn", "4x4t8dn", "5x4t9dn", "4x4t10dn",
                                    "3x3t13dn", "4x4t14dn", "4x4t15dn", "7x7t11dn", "5x5t12dn"])
def test_our_tiling_ids_are_accepted_by_tatham(params):
    for seed in range(2):
        inst = T.generate(np.random.default_rng(seed), **T.decode_params(params))
        assert T.generate(np.random.default_rng(seed), **T.decode_params(params)).to_json() == inst.to_json()
        assert T.count_solutions(inst) == 1 and T.verify(inst, inst.data["solution"]).solved
        ok, err = tatham.sgt_accepts("loopy", inst.data["game_id"])
        assert ok, f"{inst.data['game_id']}: {err}"
        assert T.load(inst.data["game_id"]).data["state"] == inst.data["state"]


#: sgt-loopy --generate 1 '<params>#kumo1' (Debian's sgt-puzzles 20230122): Penrose kite/dart and rhombs
PENROSE_IDS = ["7x7t11:G1347,727,324_33c33a02e01b3110", "7x7t12:G2014,-2693,324_b22b223b0a3b231c1",
               "10x10t11:G2681,1716,324_b113a2321c3a2e22c32b2f21d3a2333e21a2a2b3c2", "4x9t12:G2034,-2673,324_4b"]


@pytest.mark.parametrize("game_id", PENROSE_IDS)
def test_penrose_ids_import_unique_and_round_trip(game_id):
    """The faces, their number and their order (a clue on the wrong face would leave no loop or several) are
    Tatham's; the 4x9 rhombs patch is trimmed to its one inland group of 3 faces, as Tatham trims it."""
    inst = T.load(game_id)
    assert T.to_game_id(inst) == game_id
    assert T.count_solutions(inst) == 1, game_id
    assert T.score(inst, T.format_answer(T.solve(inst))).solved
    t = T.board(inst.data["state"])
    assert len(t.edges) == len(t.faces) + len(t.dots) - 1  # one piece, no holes
    assert {len(f) for f in t.faces} == {4}
    if game_id.startswith("4x9"):
        assert len(t.faces) == 3


def test_penrose_pruned_subdivision_is_the_whole_one():
    """Visiting only the subtrees that can reach the patch finds exactly the tiles (and order) of the whole
    subdivision, Tatham's way; the trimming keeps the faces round the largest inland group."""
    rng = np.random.default_rng(1)
    for kind, w, h in [(11, 3, 3), (12, 3, 3), (11, 6, 4), (12, 4, 7), (11, 7, 7), (12, 8, 8)]:
        for _ in range(3):
            x, y, a = penrose.parse_desc(kind, w, h, penrose.random_desc(rng, kind, w, h))
            full = penrose._tiles(kind, w, h, x, y, a, prune=False)
            assert penrose._tiles(kind, w, h, x, y, a) == full
            kept = penrose._trim(full)
            assert kept and all(t in full for t in kept)
    # two squares of faces joined at one corner: the group with more inland dots wins, the other goes
    grid = [[(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)] for x in range(3) for y in range(3)]
    far = [[(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)] for x in range(3, 5) for y in range(3, 5)]
    assert penrose._trim(far + grid) == grid


def test_penrose_grid_descriptions_are_checked():
    check_rejected(T.load, ("7x7t11:33c33a02e01b3110",  # no description
                            "7x7t11:G99999,0,36_33c33a02e01b3110",  # offset beyond the patch
                            "7x7t11:G1347,727,30_33c33a02e01b3110",  # angle not a multiple of 36
                            "7x7t11:G1347,727,360_33c33a02e01b3110", "7x7t11:G1347,727_33c33a02e01b3110",
                            "7x7t11:G1347,727,324_33c33a02e01b311",  # one face short
                            "7x7t11:G1347,727,324_33c33a02e01b31100"))
    with pytest.raises(ConfigError, match="more than"):
        T.load("7x7t11:G99999,0,36_33c33a02e01b3110")
    with pytest.raises(ValueError, match="is not G<x>"):  # int() would read an Arabic-Indic digit
        penrose.parse_desc(11, 7, 7, "G1347,727,\u0663\u0662\u0664")


def test_tatham_old_triangular_ids_import():
    """Tatham's older triangular layout (no grid description) is read too, and written back the same way."""
    inst = T.load("5x5t1:2c2a1a2a201a1a1a1112a1a2b1211f0b21a2a2a0a")
    assert inst.data["state"]["grid_desc"] is None and len(inst.data["state"]["clues"]) == 50
    assert T.count_solutions(inst) == 1 and T.to_game_id(inst) == "5x5t1:2c2a1a2a201a1a1a1112a1a2b1211f0b21a2a2a0a"


def test_tiling_grammar_errors():
    for bad in ("3x3t4de", "3x2t12de", "3x2t1de"):  # Cairo needs a side of 4; too small; too small
        with pytest.raises(ConfigError):
            T.resolve_params(**T.decode_params(bad))
    check_rejected(T.load, ("3x3t1:1_20d1d01a21211", "3x3t1:0_20d1d01a2121", "3x3t1:0_20d1d01a212111",
                            "3x3t1:0_40d1d01a21211", "3x3t2:0_03b4a5b", "3x3t2:73b4a5b", "3x3t2:03b4a5"))


def _two_triangles(t):
    """Two faces far apart, each with its own loop round it (as answer-row edge sets)."""
    return [board.number_loop(t, set(t.face_edges[0]) | set(t.face_edges[len(t.faces) - 1]))]


@pytest.mark.parametrize("game_id", [TRI_ID, HEX_ID])
def test_each_rule_alone_on_tilings(game_id):
    inst = T.load(game_id)
    t = T.tiled(inst)
    gold = T.solve(inst)
    assert rules(inst, gold) == []
    # R1: the last dot of the loop left out (an open path; renumbered so the numbers stay 1..L - 1). Its two
    # edges are taken off, so counts change too unless neither face there has a clue: only R1 is asked.
    L = max(gold[0])
    path = [[v if v < L else -1 for v in gold[0]]]
    assert "loopy.R1" in rules(inst, path)
    twice = [list(gold[0])]
    twice[0][twice[0].index(2)] = 1  # a number used twice (and 2 missing)
    assert "loopy.R1" in rules(inst, twice)
    assert "loopy.R1" in rules(inst, _two_triangles(t))  # two separate loops
    # R2: a valid loop round one face, which gives the clued faces other counts
    one = [board.number_loop(t, set(t.face_edges[0]))]
    assert rules(inst, one) == ["loopy.R2"]
    with T.rules_disabled("loopy.R2"):
        assert T.verify(inst, one).solved
    # and a loop that skips a dot joined to its neighbours by no edge breaks R1 (steps must follow edges)
    far = [[-1] * len(t.dots)]
    a, b = t.faces[0][:2]
    z = next(d for d in range(len(t.dots)) if d not in t.neighbours[a] and d not in t.neighbours[b] and d != a)
    far[0][a], far[0][b], far[0][z] = 1, 2, 3
    assert "loopy.R1" in rules(inst, far)
    assert T.verify(inst, T.parse(T.format_answer(gold))).solved


@pytest.mark.parametrize("game_id", ["5x5t1:0_2zz", "5x5t2:5x"])
def test_single_rule_breaks_are_exact(game_id):
    """Hand-made answers that break one rule and nothing else, on a board whose only clue says face 0 has all its
    sides but one on the loop. R1: face 0's corners numbered 1, 2, ... in turn, then a far dot: the sides between
    consecutive corners are drawn (the clue holds) but the numbers do not close into a loop. R2: a loop round the
    last face, which leaves face 0 with no side."""
    inst = T.load(game_id)
    t = T.tiled(inst)
    corners, last = t.faces[0], len(t.faces) - 1
    far = t.faces[last][0]
    assert far not in {x for d in corners for x in t.neighbours[d] | {d}}
    path = [[-1] * len(t.dots)]
    for k, d in enumerate(corners):
        path[0][d] = k + 1
    path[0][far] = len(corners) + 1
    assert board.face_counts(t, board.loop_edges(t, path[0]))[0] == len(corners) - 1
    assert rules(inst, path) == ["loopy.R1"]
    with T.rules_disabled("loopy.R1"):
        assert T.verify(inst, path).solved
    one = [board.number_loop(t, set(t.face_edges[last]))]
    assert rules(inst, one) == ["loopy.R2"]
    with T.rules_disabled("loopy.R2"):
        assert T.verify(inst, one).solved


def test_tiling_generation_and_clue_share():
    for params, share in (("7x7t1dn", 0.415), ("7x7t2dn", 0.463)):
        inst = T.generate(np.random.default_rng(3), **T.decode_params(params))
        assert T.count_solutions(inst) == 1 and T.verify(inst, inst.data["solution"]).solved
        F = len(inst.data["state"]["clues"])
        assert T.clue_count(inst) >= round(share * F)  # reduced to Tatham's share, not below
        assert inst.data["game_id"].startswith(params[:5] + ":")


def test_tiling_regions_bound_one_loop():
    for kind, desc in ((1, "0"), (2, None)):
        t = tiling(kind, 6, 5, desc)
        for seed in range(5):
            inside = board.random_region(np.random.default_rng(seed), t, 0.5)
            edges = board.boundary(t, inside)
            row = board.number_loop(t, edges)
            assert sum(v > 0 for v in row) == len(edges) and len(board.components(t, edges)) == 1


def test_tiling_uniqueness_needs_the_one_loop_cuts():
    """Without the cuts the clues of a Tatham honeycomb puzzle admit answers of several loops."""
    inst = T.load("7x7t2:5b45a04b43a2a3b5d1b35b3f311a5b441b")
    enc = T.encoding(inst)
    assert len(enc.engine.models(enc.assumptions(), 2)) == 1
    from pysat.solvers import Solver
    with Solver(bootstrap_with=enc.formula.clauses) as s:
        models = 0
        while models < 2 and s.solve(assumptions=enc.assumptions()):
            m = s.get_model()
            lits = [int(x) for x in enc.answer]
            s.add_clause([-x if m[x - 1] > 0 else x for x in lits])
            models += 1
    assert models == 2


@pytest.mark.parametrize("game_id", [TRI_ID, HEX_ID])
def test_tiling_prompt_moves_claims_pictures(game_id):
    inst = T.load(game_id)
    t = T.tiled(inst)
    prompt = T.prompt(inst)
    assert f"face 0: clue {inst.data['state']['clues'][0]}; dots {' '.join(map(str, t.faces[0]))}" in prompt
    assert f"one row of {len(t.dots)} numbers" in prompt and "{" not in T.rules_text(inst)
    gold = T.solve(inst)
    state = T.initial_state(inst)
    moves = T.golden_moves(inst)
    assert len(moves) == max(gold[0])
    for m in moves:
        assert T.check_move(inst, state, m) is None
        state = T.apply(inst, state, m)
    assert T.is_goal(inst, state)
    assert T.check_move(inst, state, ("edge", 0, 0, 0, len(t.dots) - 1, 1))  # no such edge
    a, b = t.edges[0]
    move = T.parse_move(f'{{"op": "edge", "cells": [[0, {a}], [0, {b}]], "v": 1}}')
    assert T.check_move(inst, T.initial_state(inst), move) is None
    cstar = T.solution_claims(inst)
    assert len(cstar) == max(gold[0]) and all(label_claim(inst, c) == "correct" for c in cstar)
    on = next(d for d, v in enumerate(gold[0]) if v > 0)
    f = next(f for f, n in enumerate(inst.data["state"]["clues"]) if n >= 0)
    n = inst.data["state"]["clues"][f]
    check_labels(inst, incorrect=[{**cstar[0], "on": False}, {"type": "OffPath", "r": 0, "c": on},
                                  {"type": "Clue", "face": f, "n": n + 1}, {"type": "Edge", "a": [0, 0], "b": [0, 0]}],
                 correct=[{"type": "OnPath", "r": 0, "c": on}, {"type": "Clue", "face": f, "n": n}])
    empty, solved = T.render_rgb(inst), T.render_rgb(inst, state)
    assert empty.shape == solved.shape and not np.array_equal(empty, solved)
    text = T.render(inst, gold)
    assert "o" in text and str(n) in text and text != T.render(inst)
    one = [board.number_loop(t, set(t.face_edges[0]))]
    pic = T.state_picture(inst, one, T.verify(inst, one).to_dict())
    assert pic.marks and pic.image is not None


def test_compiled_region_and_loop_match_the_python_ones():
    """The generator's compiled region draws the same region as :func:`random_region` and leaves the
    generator where it does; the numpy boundary, numbers and answer are the Python ones."""
    from kumo_gym.envs.grid.loopy import search

    for H, W in ((7, 7), (10, 10), (3, 5)):
        for seed in range(20):
            a, b = np.random.default_rng([seed, H]), np.random.default_rng([seed, H])
            inside = random_region(a, H, W, 0.5)
            assert (search.random_region(b, H, W, 0.5) == inside).all() and a.random() == b.random()
            edges, full, answer = search.square_loop(inside)
            assert edges == boundary(inside) and full == clues_of(H, W, edges)
            assert answer == number_loops(H + 1, W + 1, edges)


def _sat_loops(state: dict) -> int:
    enc = T.encode(state)
    return len(enc.engine.models(enc.assumptions(), 2))


@pytest.mark.parametrize("kind", [0, 1, 2])
def test_the_loop_counter_agrees_with_sat(kind):
    """The generator's counter (deduction and search, no SAT) says unique exactly when SAT with the
    one-loop cuts does, on random clue subsets of random loops; a second loop it finds meets the clues."""
    from kumo_gym.envs.grid.loopy import search

    rng = np.random.default_rng(kind)
    seen = set()
    for seed in range(4):
        if kind == 0:
            edges, full, _ = search.square_loop(random_region(np.random.default_rng(seed), 6, 6, 0.5))
            g, index = search.square(6, 6)
            on = [index[k] for k in edges]
            flat = np.asarray(full).ravel()
            state = lambda clues: {"clues": clues.reshape(6, 6).tolist()}
        else:
            t = tiling(kind, 5, 5, "0" if kind == 1 else None)
            on = sorted(board.boundary(t, board.random_region(np.random.default_rng(seed), t, 0.5)))
            g = search.tiled(t)
            flat = np.asarray(board.face_counts(t, set(on)))
            state = lambda clues, desc=t.desc: {"tiling": kind, "size": [5, 5], "grid_desc": desc,
                                                "clues": clues.tolist()}
        truth = np.full(len(g.ed) // 2, 2, np.int64)
        truth[on] = 1
        for share in (0.3, 0.45, 0.6, 0.8):
            active = rng.random(len(flat)) < share
            counter = search.Counter(g, flat, truth, 10**6)
            unique = counter.unique(active)
            assert counter.fallbacks == 0
            assert unique == (_sat_loops(state(np.where(active, flat, -1))) == 1)
            seen.add(unique)
            if not unique:
                other = counter.others[-1]
                assert ((other == flat) | ~active).all() and (counter.alt != truth).any()
    assert seen == {True, False}


def test_levels_set_what_the_solver_may_do():
    """Easy and normal puzzles are the same (deduction alone finds the loop); hard ones come from a short
    search as well; every one is unique."""
    from kumo_gym.envs.grid.loopy import search

    insts = {d: T.generate(np.random.default_rng(4), difficulty=d) for d in ("easy", "normal", "hard")}
    assert insts["easy"].data["state"] == insts["normal"].data["state"]
    for d, inst in insts.items():
        assert T.count_solutions(inst) == 1, d
    clues = np.asarray(insts["easy"].data["state"]["clues"]).ravel()
    g, index = search.square(10, 10)
    truth = np.full(len(index), 2, np.int64)
    truth[[index[k] for k in _edges_of(insts["easy"].data["solution"])]] = 1
    full = np.where(clues >= 0, clues, 0)
    assert search.Counter(g, full, truth, 0).unique(clues >= 0)  # deduction alone
    assert search.LEVEL_BUDGET["e"] == search.LEVEL_BUDGET["n"] == 0 < search.LEVEL_BUDGET["h"]


def _edges_of(grid: list[list]) -> set:
    """The square grid's loop edges of an answer grid (dots numbered along the loop)."""
    where = {v: (r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v > 0}
    L = len(where)
    return {tuple(sorted((where[k], where[k % L + 1]))) for k in range(1, L + 1)}
