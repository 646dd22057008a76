"""Tatham game IDs read and written exactly (fixed IDs printed by sgt-puzzles 20230122, so this runs
without it), malformed IDs refused with the reason, and the certified bounds of the games whose
search has a budget: the lower bound never exceeds the true optimum (breadth-first search) and the
upper bound is the length of a legal solution."""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.games.fifteen import search as sliding
from kumo_gym.envs.games.sixteen import search as cyclic

TATHAM_IDS = {
    "Flip": ["3x3:d074191345d1644c17058,ea8",
             "4x4:cc00ec0070003300c80006c01330311008c804cc02230311008c004e00270033,0d3d"],
    "Fifteen": ["4x4:8,5,6,13,3,15,2,9,14,10,12,11,4,1,0,7", "3x3:4,0,5,3,2,6,1,7,8",
                "4x3:6,3,0,9,1,7,10,2,4,5,8,11"],
    "Sixteen": ["4x4m5:13,2,11,16,1,6,15,4,10,3,8,5,9,14,7,12", "3x3:2,5,6,4,3,7,1,9,8",
                "4x3:3,7,4,10,1,8,11,2,5,6,12,9"],
}
MALFORMED = {
    "Flip": ["3x3", "3x3:d074,ea8", "3x3:d074191345d1644c17058;ea8", "3x3q:d074191345d1644c17058,ea8",
             "99x99:0,0", "3x3:d074191345d1644c1705g,ea8"],
    "Fifteen": ["4x4:1,2,3", "3x3:1,2,3,4,5,6,7,8,8", "3x3:01,2,3,4,5,6,7,8,0", "3x3:2,1,3,4,5,6,7,8,0",
                "9x9:0", "3x3m4:1,2,3,4,5,6,7,8,0"],
    "Sixteen": ["3x3:1,2,3", "3x3:2,1,3,4,5,6,7,8,9", "3x3:1,2,3,4,5,6,7,8,10", "3x3z:1,2,3,4,5,6,7,8,9",
                "6x6:1"],
}


@pytest.mark.parametrize("game", sorted(TATHAM_IDS))
def test_tatham_ids_round_trip_byte_for_byte(game):
    task = get_task(f"kumo_gym/{game}-v0")
    for game_id in TATHAM_IDS[game]:
        inst = task.load(game_id)
        assert task.to_game_id(inst) == game_id == inst.data["game_id"]
        assert task.verify(inst, task.solve(inst)).solved


def test_flip_reads_full_parameters_and_checks_the_shape():
    task = get_task("kumo_gym/Flip-v0")
    short = TATHAM_IDS["Flip"][0]
    assert task.load("3x3c:" + short.partition(":")[2]).data == task.load(short).data
    with pytest.raises(ConfigError, match="random"):
        task.load("3x3r:" + short.partition(":")[2])  # a crosses matrix under random parameters


@pytest.mark.parametrize("game", sorted(MALFORMED))
def test_malformed_ids_are_refused_with_a_reason(game):
    task = get_task(f"kumo_gym/{game}-v0")
    for bad in MALFORMED[game]:
        with pytest.raises(ConfigError) as err:
            task.load(bad)
        assert len(str(err.value)) > 20, bad


def _bfs_distance(start, goal, neighbours) -> int:
    seen, queue = {start: 0}, deque([start])
    while queue:
        s = queue.popleft()
        if s == goal:
            return seen[s]
        for t in neighbours(s):
            if t not in seen:
                seen[t] = seen[s] + 1
                queue.append(t)
    raise AssertionError("goal unreachable")


def test_sliding_bounds_are_certified():
    rng = np.random.default_rng(3)
    w = h = 3
    goal = (*range(1, 9), 0)

    def neighbours(s):
        g = s.index(0)
        for d in range(4):
            r, c = g // w + int(sliding.DR[d]), g % w + int(sliding.DC[d])
            if 0 <= r < h and 0 <= c < w:
                t = list(s)
                t[g], t[r * w + c] = t[r * w + c], 0
                yield tuple(t)

    for _ in range(6):
        tiles = tuple(rng.permutation(9).tolist())
        if not sliding.solvable(tiles, w, h):
            continue
        true = _bfs_distance(tiles, goal, neighbours)
        path, lower, _ = sliding.ida_star(tiles, w, h, max_nodes=30)  # a budget too small on purpose
        assert lower <= true
        if path is not None:
            assert len(path) == true
        found = sliding.weighted_astar(tiles, w, h)
        assert len(found) >= true


def test_cyclic_bounds_are_certified():
    rng = np.random.default_rng(4)
    w = h = 3
    goal = tuple(range(1, 10))
    moves = cyclic.all_moves(w, h)
    for _ in range(6):
        board = tuple((rng.permutation(9) + 1).tolist())
        if not cyclic.solvable(board, w, h):
            continue
        true = _bfs_distance(board, goal, lambda s: (cyclic.apply_move(s, w, h, m) for m in moves))
        path, lower = cyclic.bidirectional(board, w, h, max_states=20)  # a budget too small on purpose
        assert path is None or len(path) == true
        assert lower <= true and cyclic.heuristic(board, w, h) <= true
        built = cyclic.constructive(board, w, h)
        s = board
        for m in built:
            s = cyclic.apply_move(s, w, h, m)
        assert s == goal and len(built) >= true


@pytest.mark.parametrize("game", ["Fifteen", "Sixteen", "Netslide"])
def test_bounded_instances_report_their_bounds(game):
    """Tatham's own draw on the largest preset: the optimum is bounded, the solution legal, and no
    partial credit is paid from inexact distances."""
    task = get_task(f"kumo_gym/{game}-v0")
    preset = "tatham_4x4"
    inst = task.generate(np.random.default_rng(1), difficulty=preset)
    lower, upper = task.optimum_bounds(inst)
    gold = task.solve(inst)
    assert lower <= upper == len(gold) and task.verify(inst, gold).solved
    if lower < upper:
        assert not task.distance_exact(inst)
        assert task.verify(inst, gold[: len(gold) // 2]).score == 0.0
        assert task.record_fields(inst)["optimum_exact"] is False
