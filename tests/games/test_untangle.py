"""Untangle (docs/games.md, Untangle): exact geometry rule by rule, Tatham IDs and AUXINFO, the
generator's certified placement, the planar-drawing solver, and interactive play."""
from __future__ import annotations

from fractions import Fraction
from itertools import combinations, pairwise

import gymnasium as gym
import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.games import tatham
from kumo_gym.envs.games.untangle import codec
from kumo_gym.envs.games.untangle.generate import circle, draw_graph, planar_placement, tatham_side
from kumo_gym.envs.games.untangle.geometry import crossings, first_fault, untangled

TASK = get_task("kumo_gym/Untangle-v0")
#: printed by sgt-untangle 20230122 (``--generate 1 6 --save``), with the save file's AUXINFO
SAVED_ID = "6:0-1,0-2,0-4,1-2,1-4,1-5,2-3,2-5,3-5"
SAVED_AUX = ("2e86c43f0a6adeeb00ab016d2448ecc5a4c61ef2111ffda8483bf89eff6923b0849b96332c01ed62642023c0291f676b0f09f1f"
             "445340e")
TATHAM_IDS = [SAVED_ID,
              "10:0-6,0-9,1-4,1-8,1-9,2-3,2-4,2-5,2-9,3-5,3-6,4-7,4-8,5-7,5-8,6-9,7-8",
              "10:0-1,0-3,0-9,1-5,1-7,1-9,2-3,2-4,2-5,2-8,3-6,3-8,4-5,4-6,4-8,5-7,6-8,7-9"]


def _inst(edges: str, n: int):
    return TASK.load(f"{n}:{edges}")


def _placed(inst, placement):
    """Moves that put every point of ``inst`` at ``placement`` (those not already there)."""
    return [[p, x, y] for p, (x, y) in enumerate(placement) if tuple(inst.data["start"][p]) != (x, y)]


def _rule(inst, placement):
    v = TASK.verify(inst, _placed(inst, placement))
    return v.details.get("rule"), v


# ---- the verifier, rule by rule -------------------------------------------------------------------------------
# 4 points, edges 0-2 and 1-3 (they cross on the start circle)
PAIR = "0-2,1-3"


def test_crossing_free_placements_all_score_one():
    inst = _inst(PAIR, 4)
    for placement in ([(0, 0), (0, 2), (3, 0), (3, 2)], [(7, 7), (0, 0), (1, 7), (6, 1)], [(0, 0), (3, 0), (1, 0), (5, 0)]):
        _, v = _rule(inst, placement)
        assert v.solved and v.reward == 1.0, (placement, v.message)


def test_points_on_one_spot_fail():
    inst = _inst(PAIR, 4)
    rule, v = _rule(inst, [(0, 0), (3, 0), (0, 0), (3, 3)])
    assert rule == "points_coincide" and v.details["fault_points"] == [0, 2] and not v.solved


def test_collinear_overlapping_edges_fail_and_are_named():
    inst = _inst(PAIR, 4)
    rule, v = _rule(inst, [(0, 0), (2, 0), (4, 0), (6, 0)])
    assert rule == "edges_overlap" and v.details["fault_edges"] == [[0, 2], [1, 3]]
    # collinear but apart is fine; end to end puts two points on one spot
    assert _rule(inst, [(0, 0), (3, 0), (2, 0), (6, 0)])[1].solved
    assert _rule(inst, [(0, 0), (3, 0), (3, 0), (6, 0)])[0] == "points_coincide"
    # edges with a common end, one along the other
    inst = _inst("0-1,0-2,1-3", 4)
    rule, v = _rule(inst, [(0, 0), (2, 2), (4, 4), (7, 0)])
    assert rule == "edges_overlap" and v.details["fault_edges"] == [[0, 1], [0, 2]]


def test_an_edge_through_a_point_fails():
    inst = _inst(PAIR, 4)
    rule, v = _rule(inst, [(0, 0), (2, 2), (4, 4), (2, 7)])  # point 1 on edge 0-2, edge 1-3 leaves it sideways
    assert rule == "edge_through_point" and v.details["fault_edges"] == [[0, 2]] and v.details["fault_points"] == [1]
    # an edge ending on another edge (a T) is the same fault
    assert _rule(inst, [(0, 0), (3, 0), (6, 0), (3, 5)])[0] == "edge_through_point"
    # a point with no edges on an edge
    inst = _inst(PAIR, 5)
    lone = [(0, 0), (0, 6), (4, 0), (4, 6), (2, 0)]
    assert _rule(inst, lone)[0] == "edge_through_point"
    # the fast goal test of interactive play and of the reference solution sees it too
    assert not untangled(lone, inst.data["edges"]) and not TASK.is_goal(inst, tuple(lone))
    assert untangled(lone[:4] + [(2, 1)], inst.data["edges"])


def test_proper_crossings_fail_and_are_named():
    inst = _inst(PAIR, 4)
    rule, v = _rule(inst, [(0, 0), (3, 0), (3, 3), (0, 3)])
    assert rule == "edges_cross" and v.details["fault_edges"] == [[0, 2], [1, 3]]
    assert "0-2 and 1-3 cross" in v.message


def test_near_collinear_points_are_judged_exactly():
    """One lattice step off a long edge is off it: the vertical edge 1-3 at x = 38 stops at y = 37,
    just short of edge 0-2 (y = 37.03 there), and reaches it at y = 38."""
    edges = [[0, 2], [1, 3]]
    assert first_fault([(0, 0), (38, 37), (39, 38), (38, 30)], edges) is None
    assert first_fault([(0, 0), (38, 38), (39, 38), (38, 30)], edges)["rule"] == "edges_cross"
    assert first_fault([(0, 0), (39, 38), (78, 76), (70, 75)], edges)["rule"] == "edge_through_point"
    assert first_fault([(0, 0), (39, 38), (79, 76), (70, 75)], edges) is None


def test_moves_off_the_grid_naming_no_point_or_not_moving_are_refused():
    inst = _inst(PAIR, 4)
    size = inst.data["size"]
    assert size == 8
    for move, rule in (([0, size, 0], "off_grid"), ([0, 0, -1], "off_grid"), ([4, 1, 1], "no_such_point"),
                       ([-1, 1, 1], "no_such_point"), ([0, *inst.data["start"][0]], "point_not_moved")):
        v = TASK.verify(inst, [move])
        assert v.status == "illegal_move" and v.details["rule"] == rule and v.first_error == 1, (move, v.message)
    ok = _placed(inst, [(0, 0), (0, 2), (3, 0), (3, 2)])
    assert TASK.verify(inst, ok).solved
    assert TASK.verify(inst, ok + [ok[0]]).details["rule"] == "point_not_moved"


def _segments_meet_exactly(a, b, c, d) -> bool:
    """Brute force with fractions: do the closed segments share a point?"""
    def sub(u, v):
        return (u[0] - v[0], u[1] - v[1])

    def cr(u, v):
        return u[0] * v[1] - u[1] * v[0]

    r, s = sub(b, a), sub(d, c)
    den = cr(r, s)
    if den == 0:
        if cr(sub(c, a), r) != 0:
            return False
        rr = r[0] * r[0] + r[1] * r[1]
        t0 = Fraction((c[0] - a[0]) * r[0] + (c[1] - a[1]) * r[1], rr)
        t1 = Fraction((d[0] - a[0]) * r[0] + (d[1] - a[1]) * r[1], rr)
        return max(min(t0, t1), 0) <= min(max(t0, t1), 1)
    t = Fraction(cr(sub(c, a), s), den)
    u = Fraction(cr(sub(c, a), r), den)
    return 0 <= t <= 1 and 0 <= u <= 1


def _clean_by_brute_force(points, edges) -> bool:
    if len(set(points)) < len(points):
        return False
    for (a, b), (c, d) in combinations(edges, 2):
        shared = {a, b} & {c, d}
        if not shared:
            if _segments_meet_exactly(points[a], points[b], points[c], points[d]):
                return False
        else:  # one common end: they may meet only there, so no overlap along a line
            v = shared.pop()
            x, y = ({a, b} - {v}).pop(), ({c, d} - {v}).pop()
            p, q, o = points[x], points[y], points[v]
            if (q[0] - o[0]) * (p[1] - o[1]) == (q[1] - o[1]) * (p[0] - o[0]) and \
                    (q[0] - o[0]) * (p[0] - o[0]) + (q[1] - o[1]) * (p[1] - o[1]) > 0:
                return False
    for a, b in edges:
        for i, p in enumerate(points):
            if i not in (a, b) and _segments_meet_exactly(points[a], points[b], p, p):
                return False
    return True


def test_verifier_agrees_with_brute_force_on_random_placements():
    rng = np.random.default_rng(11)
    agree = n_clean = 0
    for _ in range(400):
        n = int(rng.integers(4, 8))
        _, edges = draw_graph(n, rng)
        side = int(rng.integers(3, 6))
        placement = [(int(rng.integers(side)), int(rng.integers(side))) for _ in range(n)]
        clean = _clean_by_brute_force(placement, edges)
        assert (first_fault(placement, edges) is None) == clean, (placement, edges)
        assert untangled(placement, edges) == clean, (placement, edges)
        if len(set(placement)) == n:
            meets = sum(_segments_meet_exactly(placement[a], placement[b], placement[c], placement[d])
                        for (a, b), (c, d) in combinations(edges, 2) if not {a, b} & {c, d})
            assert crossings(placement, edges) >= meets
        agree += 1
        n_clean += clean
    assert agree == 400 and 0 < n_clean < 400


# ---- Tatham IDs and AUXINFO ----------------------------------------------------------------------------------
def test_tatham_ids_round_trip_byte_for_byte_and_solve():
    for game_id in TATHAM_IDS:
        inst = TASK.load(game_id)
        assert TASK.to_game_id(inst) == game_id == inst.data["game_id"]
        assert inst.data["size"] == 2 * inst.data["n"] and inst.data.get("solution") is None
        assert not TASK.is_goal(inst, TASK.initial_state(inst))
        gold = TASK.solve(inst)
        assert TASK.verify(inst, gold).solved and not TASK.verify(inst, gold[:-1]).solved


#: fresh sgt-untangle IDs where a single pass of the pruning kept a move that a later drop made
#: unneeded (point 0's move is needed only while point 3's is made, and point 3's was dropped after)
PRUNE_TWICE_IDS = ["6:0-2,0-5,1-3,1-4,2-3,2-4,2-5,3-4,3-5", "6:0-1,0-3,0-4,0-5,1-4,2-3,2-5,3-4,3-5",
                   "6:0-2,0-3,0-4,0-5,1-3,1-5,2-5,3-4,3-5"]


@pytest.mark.parametrize("game_id", PRUNE_TWICE_IDS + TATHAM_IDS)
def test_every_move_of_the_reference_solution_is_needed(game_id):
    inst = TASK.load(game_id)
    gold = TASK.solve(inst)
    assert TASK.verify(inst, gold).solved
    for i in range(len(gold)):
        assert not TASK.verify(inst, gold[:i] + gold[i + 1:]).solved, (game_id, gold[i])


def test_auxinfo_is_tatham_solution_on_our_grid():
    text = "S;P0:7,3/2;P1:3,1/2;P2:5,5/2;P3:3,7/2;P4:5,1/2;P5:1,3/2"
    # Tatham's cells (3, 1), (1, 0), (2, 2), (1, 3), (2, 0), (0, 1) of his 4x4 grid, times 3, centred on our 12x12
    assert codec.aux_solution(6, SAVED_AUX) == [[10, 4], [4, 1], [7, 7], [4, 10], [7, 1], [1, 4]]
    assert text.startswith("S;")
    inst = TASK.load_with_aux(SAVED_ID, SAVED_AUX)
    assert TASK.load({"game_id": SAVED_ID, "auxinfo": SAVED_AUX}) == inst
    assert first_fault(inst.data["solution"], inst.data["edges"]) is None
    assert TASK.verify(inst, TASK.solve(inst)).solved
    with pytest.raises(ConfigError):
        codec.aux_solution(6, SAVED_AUX[:-2])
    with pytest.raises(ConfigError):
        codec.aux_solution(5, SAVED_AUX)


@pytest.mark.parametrize("bad", ["4", "4:", "3:0-1,1-2", "4:0-0", "4:0-1,1-0", "4:0-4", "4:0-1;1-2", "x:0-1",
                                 "4:0-1,", "4:a-b", "41:0-1", "4:0-1",
                                 "5:0-1,0-2,0-3,0-4,1-2,1-3,1-4,2-3,2-4,3-4"])
def test_malformed_ids_are_refused_with_a_reason(bad):
    with pytest.raises(ConfigError) as err:
        TASK.load(bad)
    assert len(str(err.value)) > 20


def test_non_planar_graph_is_named():
    with pytest.raises(ConfigError, match="not planar"):
        TASK.load("5:0-1,0-2,0-3,0-4,1-2,1-3,1-4,2-3,2-4,3-4")
    with pytest.raises(ConfigError, match="already untangled"):
        TASK.load("4:0-1")


def test_imported_and_saved_tatham_games_conform():
    """Tatham's games at every preset: their AUXINFO placement and our solver's placement verify."""
    if tatham.sgt_binary("untangle") is None:
        pytest.skip("sgt-untangle not found: install Debian's sgt-puzzles (binaries in /usr/games)")
    from kumo_gym.envs.grid.tatham import sgt_generate_saves

    for name in TASK.tatham_presets:
        for save in sgt_generate_saves("untangle", TASK.tatham_preset(name), 2):
            game_id = f"{save['PARAMS']}:{save['DESC']}"
            inst = TASK.load_with_aux(game_id, save["AUXINFO"])
            assert TASK.to_game_id(inst) == game_id
            assert TASK.verify(inst, TASK.solve(inst)).solved
            bare = TASK.load(game_id)
            drawn = TASK.goal(bare)
            assert first_fault(drawn, bare.data["edges"]) is None
            assert TASK.verify(bare, TASK.solve(bare)).solved


# ---- generator and solver ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("difficulty", ["trivial", "easy", "normal", "hard", "tatham_25"])
def test_generated_instances_are_certified_and_deterministic(difficulty):
    for seed in range(3):
        inst = TASK.generate(np.random.default_rng(seed), difficulty=difficulty)
        again = TASK.generate(np.random.default_rng(seed), difficulty=difficulty)
        assert inst.to_json() == again.to_json()
        d = inst.data
        assert first_fault(d["solution"], d["edges"]) is None
        xs = sorted({v for p in d["solution"] for v in p})
        step = (2 * d["n"] - 1) // (tatham_side(d["n"]) - 1)
        assert all((b - a) % step == 0 for a, b in pairwise(xs)) and xs[-1] < 2 * d["n"]
        assert all(max(deg) <= 4 for deg in [np.bincount(np.ravel(d["edges"]), minlength=d["n"]).tolist()])
        assert crossings(d["start"], d["edges"]) > 0 and d["start"] == [list(p) for p in circle(d["n"])]
        assert TASK.verify(inst, TASK.solve(inst)).solved
        assert ok_with_tatham(inst) in (True, None)


def ok_with_tatham(inst):
    if tatham.sgt_binary("untangle") is None:
        return None
    return tatham.sgt_accepts("untangle", inst.data["game_id"])[0]


def test_planar_drawing_handles_any_planar_graph():
    rng = np.random.default_rng(3)
    for n in (4, 9, 30, 60):
        _, edges = draw_graph(n, rng)
        drawn = planar_placement(n, edges)
        assert first_fault(drawn, edges) is None and max(max(p) for p in drawn) < 2 * n
    # several components and lone points
    edges = [(0, 1), (1, 2), (2, 0), (3, 4), (5, 6), (6, 7)]
    drawn = planar_placement(9, edges)
    assert first_fault(drawn, edges) is None
    assert planar_placement(5, list(combinations(range(5), 2))) is None


# ---- interactive play and cheap strategies -----------------------------------------------------------------------
def test_interactive_observation_lists_points_and_crossings():
    env = gym.make("kumo_gym/Untangle-v0", mode="interactive")
    obs, info = env.reset(seed=3)
    inst = env.unwrapped.instance
    start = crossings(inst.data["start"], inst.data["edges"])
    assert f"Pairs of edges that meet: {start}" in obs
    for i, (x, y) in enumerate(inst.data["start"]):
        assert f"{i} ({x}, {y})" in obs
    gold = TASK.solve(inst)
    obs, r, term, _, info = env.step(TASK.format_move(gold[0]))
    assert "Moves made: 1" in obs and "Pairs of edges that meet:" in obs
    obs, r, term, _, info = env.step(f"[0, {inst.data['size']}, 0]")
    assert info["verdict"]["details"]["rule"] == "off_grid" and not term
    for m in gold[1:]:
        obs, r, term, _, info = env.step(TASK.format_move(m))
    assert term and r == 1.0


def test_piles_and_lines_earn_nothing():
    inst = TASK.generate(np.random.default_rng(0), difficulty="normal")
    n, size = inst.data["n"], inst.data["size"]
    for spot in (lambda i: (0, 0), lambda i: (i, 0), lambda i: (i, i), lambda i: (3, i)):
        moves = [[i, *spot(i)] for i in range(n) if tuple(inst.data["start"][i]) != spot(i)]
        v = TASK.verify(inst, moves)
        assert not v.solved and v.score == 0.0
        assert v.details["rule"] in ("points_coincide", "edges_overlap", "edge_through_point")
    for ca in TASK.cheap_answers(inst, np.random.default_rng(1)):
        if ca.completion:
            assert TASK.score(inst, ca.completion).reward == ca.chance
    assert size == 30
