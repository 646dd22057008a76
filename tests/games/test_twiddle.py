"""Twiddle (docs/games.md, Twiddle): Tatham's IDs read and written byte for byte (fixed IDs printed by
sgt-puzzles, so this runs without it), malformed and unsupported IDs refused with the reason, one
wrong answer per rule, Tatham's orientation convention, and the solver's bounds against
breadth-first search over every state of small boards."""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.games.twiddle import search

TASK = get_task("kumo_gym/Twiddle-v0")
TATHAM_IDS = ["3x3n2r:3,1,3,2,1,3,2,1,2", "3x3n2:9,3,8,4,2,7,5,1,6", "3x3n2o:9u3l8r4d2r7l5u1r6r",
              "4x4n2o:7l14l8d4u1r15r11l2r5r13u6d12d10u16d9r3d", "3x3n2om5:4r3l6l2u9u5l7u1l8l",
              "3x3n2rom4:2r2d2d1u1d3l3u1l3l", "4x4n2rm3:1,1,2,1,2,3,2,1,3,2,4,3,4,3,4,4",
              "4x4n3:11,5,8,15,10,3,2,16,9,12,6,7,13,14,4,1"]
MALFORMED = ["3x3n2", "3x3:9,3,8,4,2,7,5,1,6", "3x3n2:9,3,8,4,2,7,5,1", "3x3n2:9,3,8,4,2,7,5,1,6,",
             "3x3n2:09,3,8,4,2,7,5,1,6", "3x3n2:9,3,8,4,2,7,5,1;6", "3x3n2o:9,3,8,4,2,7,5,1,6",
             "3x3n2o:9u3l8r4d2r7l5u1r6x", "3x3n2q:9,3,8,4,2,7,5,1,6", "3x3n2or:9u3l8r4d2r7l5u1r6r",
             "9x9n2:1", "3x3n4:1,2,3,4,5,6,7,8,9", "3x3n2:1,2,3,4,5,6,7,8,9", "3x3n2m0:9,3,8,4,2,7,5,1,6",
             "5x5n3o:" + "u".join(str(v) for v in range(1, 26)) + "u",
             "4x3n3:2,1,3,4,5,6,7,8,9,10,11,12", "2x2n2o:1u2u3u4l"]


@pytest.mark.parametrize("game_id", TATHAM_IDS)
def test_tatham_ids_round_trip_byte_for_byte(game_id):
    inst = TASK.load(game_id)
    assert TASK.to_game_id(inst) == game_id == inst.data["game_id"]
    gold = TASK.solve(inst)
    assert TASK.verify(inst, gold).solved
    lower, upper = TASK.optimum_bounds(inst)
    assert lower <= upper == len(gold)
    if inst.data["movetarget"]:  # the scramble caps the optimum, which these small ones reach exactly
        assert upper <= inst.data["movetarget"] and lower == upper


@pytest.mark.parametrize("bad", MALFORMED)
def test_malformed_and_unsupported_ids_are_refused_with_a_reason(bad):
    with pytest.raises(ConfigError) as err:
        TASK.load(bad)
    assert len(str(err.value)) > 20


def test_a_clockwise_turn_points_an_up_tile_right():
    """Tatham's letters: u, l, d, r are 0, 1, 2, 3 quarter turns anticlockwise from up."""
    inst = TASK.load("2x2n2o:3r1r4r2r")
    assert TASK.render_state(inst, TASK.initial_state(inst)) == "3> 1>\n4> 2>"
    assert TASK.verify(inst, [[0, 0, -1]]).solved  # turning it back anticlockwise restores 1 2 / 3 4, all up
    assert TASK.apply(inst, TASK.initial_state(inst), [0, 0, 1]) == (16 + 2, 12 + 2, 8 + 2, 4 + 2)


def test_rows_only_goal_is_any_order_within_rows():
    inst = TASK.load("3x3n2r:3,1,3,2,1,3,2,1,2")
    assert TASK.goal(inst) == (4, 4, 4, 8, 8, 8, 12, 12, 12)


def test_each_rule_has_a_wrong_answer_that_breaks_only_it():
    inst = TASK.load("3x3n2:9,3,8,4,2,7,5,1,6")
    for move, rule in (([2, 0, 1], "off_board"), ([0, -1, 1], "off_board"), ([0, 0, 2], "bad_turn"),
                       ([1, 1, 0], "bad_turn")):
        verdict = TASK.verify(inst, [move])
        assert not verdict.solved and verdict.details["rule"] == rule, (move, verdict.details)
    assert TASK.verify(inst, [[0, 0, 1]]).details["rule"] == "goal_not_reached"


def _bfs(start, goal, neighbours) -> dict:
    seen, queue = {goal: 0}, deque([goal])
    while queue:
        s = queue.popleft()
        for t in neighbours(s):
            if t not in seen:
                seen[t] = seen[s] + 1
                queue.append(t)
    return seen


@pytest.mark.parametrize("w,h,orientable", [(4, 2, False), (3, 2, True)])
def test_bounds_are_certified_against_breadth_first_search(w, h, orientable):
    n = 2
    moves = search.geometry(w, h, n, orientable)[0]
    goal = tuple(4 * (p + 1) for p in range(w * h))
    dist = _bfs(goal, goal, lambda s: (search.apply_move(s, w, h, n, orientable, m) for m in moves))
    rng = np.random.default_rng(5)
    states = list(dist)
    for k in rng.choice(len(states), size=12, replace=False):
        board = states[int(k)]
        true = dist[board]
        assert search.heuristic(board, w, h, n, orientable) <= true
        path, lower = search.bidirectional(board, w, h, n, orientable, max_states=30)  # too small on purpose
        assert lower <= true and (path is None or len(path) == true)
        path, lower = search.bidirectional(board, w, h, n, orientable)
        assert len(path) == lower == true
        built = search.constructive(board, w, h, n, orientable)
        s = board
        for m in built:
            s = search.apply_move(s, w, h, n, orientable, m)
        assert s == goal and len(built) >= true


def test_large_boards_are_solved_with_a_certified_pair():
    inst = TASK.generate(np.random.default_rng(2), difficulty="tatham_4x4_orientable")
    lower, upper = TASK.optimum_bounds(inst)
    gold = TASK.solve(inst)
    assert lower <= upper == len(gold) and TASK.verify(inst, gold).solved
    if lower < upper:
        assert TASK.verify(inst, gold[: len(gold) // 2]).score == 0.0
