"""Cube (docs/games.md, Cube): the rolls of every solid, Tatham's IDs read and written exactly (fixed IDs
printed by sgt-cube 20230122, so this runs without it), the icosahedron's rolls and bounds, IDs refused with a reason, and the
optimum against breadth-first search, exact and certified between bounds."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.games.cube import geometry as geo
from kumo_gym.envs.games.cube.search import INF, Search

ENV = "kumo_gym/Cube-v0"
TATHAM_IDS = ["c4x4:6426,9", "c4x4:D10C,15", "c3x3:EC8,3", "c3x3:9F0,8", "c5x5:8900850,14", "c6x6:010D10010,0",
              "t1x2:A048,10", "t1x2:1308,9", "o2x2:5D8401,22", "o2x2:194605,12"]
MALFORMED = ["c4x4", "c4x4:6426", "c4x4:642,9", "c4x4:6426,16", "c4x4:6426;9", "c4x4:64G6,9", "c4x4:0000,1",
             "c1x4:6,1", "q4x4:6426,9", "c99x99:0,0", "c4x4:6426,", "c4x4:6426,9x", "t0x0:0,0"]


def test_tatham_ids_round_trip_and_are_solved():
    task = get_task(ENV)
    for game_id in TATHAM_IDS:
        inst = task.load(game_id)
        assert task.to_game_id(inst) == game_id == inst.data["game_id"]
        gold = task.solve(inst)
        assert task.verify(inst, gold).solved and not task.verify(inst, gold[:-1]).solved
        lower, upper = task.optimum_bounds(inst)
        assert lower == upper == len(gold)


def test_what_tatham_also_reads_is_kept_byte_for_byte():
    """Lower-case digits and leading zeros are Tatham's too: the same board, the ID written back as given."""
    task = get_task(ENV)
    for variant, canonical in (("c4x4:d10c,15", "c4x4:D10C,15"), ("c4x4:D10C,015", "c4x4:D10C,15")):
        inst = task.load(variant)
        assert task.to_game_id(inst) == variant
        assert task.initial_state(inst) == task.initial_state(task.load(canonical))
    assert task.load("c4:D10C,15").data["game_id"] == "c4x4:D10C,15"  # a single side is read as a square


@pytest.mark.parametrize("bad", MALFORMED)
def test_malformed_ids_are_refused_with_a_reason(bad):
    with pytest.raises(ConfigError) as err:
        get_task(ENV).load(bad)
    assert len(str(err.value)) > 20


ICOSAHEDRON_IDS = ["i3x3:9298002DAC03AC,23", "i3x3:8F42AB04055844,17", "i3x3:83F681010B8C14,34"]


def test_icosahedron_ids_round_trip_and_are_solved_within_certified_bounds():
    """Tatham's Icosahedron preset: his IDs read and written back, our rolls win, and the optimum lies
    between a lower bound of at least 20 (a roll turns at most one face blue) and our roll count."""
    task = get_task(ENV)
    for game_id in ICOSAHEDRON_IDS:
        inst = task.load(game_id)
        assert task.to_game_id(inst) == game_id and inst.data["solid"] == "icosahedron"
        gold = task.solve(inst)
        assert task.verify(inst, gold).solved and not task.verify(inst, gold[:-1]).solved
        lower, upper = task.optimum_bounds(inst)
        assert 20 <= lower <= upper == len(gold)
    env = gym.make(ENV, solid="icosahedron", w=3, h=3)
    env.reset(seed=0)
    assert "icosahedron" in env.unwrapped.task.rules(env.unwrapped.instance)


def test_an_unknown_solid_is_refused_naming_the_four():
    with pytest.raises(ConfigError, match="tetrahedron, cube, octahedron, icosahedron"):
        gym.make(ENV, solid="dodecahedron", w=3, h=3).reset(seed=0)


def test_the_icosahedron_rolls_round_a_grid_corner_over_five_faces():
    """Six triangles meet at a corner of the grid but five faces at a corner of the icosahedron: rolling
    round the corner puts five different faces down, and the sixth roll brings the first one back."""
    cells = geo.grid("icosahedron", 3, 3)
    table, nf = geo.moves_table("icosahedron", 3, 3)
    corner = max({p for c in cells for p in c.corners}, key=lambda p: sum(p in c.corners for c in cells))
    ring = [k for k, c in enumerate(cells) if corner in c.corners]
    assert len(ring) == 6
    order = [ring[0]]
    while len(order) < 6:  # walk round the corner through shared edges
        order.append(next(t for _, t, _ in table[order[-1]] if t in ring and t not in order))
    faces = list(range(nf))
    bottoms = []
    for a, b in zip(order, order[1:] + order[:1]):
        perm = next(p for _, t, p in table[a] if t == b)
        faces = [faces[perm[i]] for i in range(nf)]
        bottoms.append(faces[0])
    assert len(set(bottoms[:5])) == 5 and bottoms[5] == bottoms[0]


def test_the_cube_rolls_as_a_real_cube():
    """Rolling right brings the right-hand face down and the bottom face to the left; a roll and its
    opposite undo each other; four rolls one way come back."""
    normals = geo.face_normals("cube")
    name = {tuple(np.round(n).astype(int)): i for i, n in enumerate(normals)}
    bottom, right, left, top = name[(0, 0, -1)], name[(1, 0, 0)], name[(-1, 0, 0)], name[(0, 0, 1)]
    perm = geo.roll_permutation("cube", False, 1.0, 0.0, False)
    assert perm[bottom] == right and perm[left] == bottom and perm[top] == left and perm[right] == top
    table, _ = geo.moves_table("cube", 3, 3)
    for a, b in (("R", "L"), ("D", "U")):
        pa = {d: p for d, _, p in table[4]}[a]
        pb = {d: p for d, _, p in table[4]}[b]
        assert [pa[pb[i]] for i in range(6)] == list(range(6))
        p = list(range(6))
        for _ in range(4):
            p = [p[pa[i]] for i in range(6)]
        assert p == list(range(6))


@pytest.mark.parametrize("solid,d1,d2", [("tetrahedron", 1, 2), ("octahedron", 2, 2), ("icosahedron", 3, 3),
                                         ("cube", 4, 3)])
def test_every_roll_is_undone_by_rolling_back(solid, d1, d2):
    table, nf = geo.moves_table(solid, d1, d2)
    for k, row in enumerate(table):
        for _, t, p in row:
            back = [q for _, s, q in table[t] if s == k]
            assert len(back) == 1 and sorted(p) == list(range(nf))
            assert [p[back[0][i]] for i in range(nf)] == list(range(nf))


def test_tetrahedron_classes_hold_one_blue_cell_each_in_tathams_games():
    cls = geo.classes("tetrahedron", 1, 2)
    assert sorted(cls.count(c) for c in range(4)) == [3, 3, 3, 4]
    task = get_task(ENV)
    for game_id in ("t1x2:A048,10", "t1x2:1308,9"):
        blue = task.load(game_id).data["blue"]
        assert sorted(cls[i] for i, b in enumerate(blue) if b == "1") == [0, 1, 2, 3]


def _bfs_optimum(search: Search, start) -> int:
    seen, todo = {start: 0}, [start]
    for s in todo:
        if s[1] == search.full:
            return seen[s]
        for d in search.directions(s[0]):
            u = search.step(s, d)
            if u not in seen:
                seen[u] = seen[s] + 1
                todo.append(u)
    return INF


@pytest.mark.parametrize("difficulty", ["easy", "trivial"])
def test_bounds_past_the_budget_are_certified(difficulty):
    """With a budget too small for the exact search the lower bound never exceeds the true optimum and
    the upper bound is the length of a legal solution."""
    task = get_task(ENV)
    for seed in range(3):
        inst = task.generate(np.random.default_rng(seed), difficulty=difficulty)
        d = inst.data
        search = Search(d["solid"], d["w"], d["h"])
        s0 = task.initial_state(inst)
        best = _bfs_optimum(search, s0)
        assert task.optimal_length(inst) == best
        out = search.solve(s0, budget=3)
        assert out["lower"] <= best <= out["upper"] == len(out["moves"])
        assert task.verify(inst, [[m] for m in out["moves"]]).solved


def test_the_prompt_names_the_faces_and_the_rolls():
    task = get_task(ENV)
    inst = task.load("c3x3:EC8,3")
    text = task.user_prompt(inst)
    assert "Blue faces (0 of 6): none" in text and " C" in text
    s = task.apply(inst, task.initial_state(inst), ["R"])
    assert "Blue faces (1 of 6): bottom." in task.render_state(inst, s)  # the east face picked up the blue square
