"""Inertia (docs/games.md, Inertia): Tatham's IDs read and written exactly (fixed IDs printed by
sgt-puzzles 20230122, so this runs without it), malformed IDs refused, the sliding rules on small
hand-made grids, the generator's guarantee, and the certified bounds of a search cut short."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.games.inertia.generate import gem_candidates
from kumo_gym.envs.games.inertia.search import Board, shortest

TATHAM_IDS = [
    "5x5:Sgwbgwgsbwgsbsmgbswmwmmsm", "5x5:swggwmbmwgbwsgmgwbsbsSmsm",
    "7x7:sbgssswgwmsgsbbbbmwmmsmbmmwwswbwgmgbgwbSgbwmbgsbg",
    "10x8:sswbwwwbbmsgmwsbgmbbmmbSbsbwbmwgsggsgbmwgmbwgbmwsgsgggwsmsmmwbmswbmgsgsmsswwwggm",
    "10x8:wmbwsssmgmbbbwmmwbmssbmswggswsgggwggbsmswgwswggbbmsmgwgmmsmwgbwbsbsgsbbmwmSgwbwm",
]
MALFORMED = ["5x5", "5x5:Sgwbg", "5x5:Sgwbgwgsbwgsbsmgbswmwmmsx", "5x5:sgwbgwgsbwgsbsmgbswmwmmsm",
             "5x5:SSwbgwgsbwgsbsmgbswmwmmsm", "5x5:Sbwbbwbsbwbsbsmbbswmwmmsm", "1x5:Sbgbb", "2x2:Sgbb",
             "5x5q:Sgwbgwgsbwgsbsmgbswmwmmsm", "99x99:S"]


@pytest.fixture(scope="module")
def task():
    return get_task("kumo_gym/Inertia-v0")


def grid(task, game_id):
    return task.load(game_id)


def test_tatham_ids_round_trip_and_are_solved(task):
    for game_id in TATHAM_IDS:
        inst = task.load(game_id)
        assert inst.data["game_id"] == game_id and task.to_game_id(inst) == game_id
        gold = task.solve(inst)
        # Tatham's boards up to 10x8 are solved exactly: both bounds are the gold answer's length
        assert task.optimum_bounds(inst) == (len(gold), len(gold))
        assert task.verify(inst, gold).solved
        assert not task.verify(inst, gold[:-1]).solved


@pytest.mark.parametrize("game_id", MALFORMED)
def test_malformed_ids_are_refused(task, game_id):
    with pytest.raises(ConfigError):
        task.load(game_id)


def test_slides_pass_gems_and_stop_at_walls_stops_and_edges(task):
    #   row 0: S . * . #      row 1: . . . . .
    inst = grid(task, "5x2:Sbgbwbbbbb")
    s0 = task.initial_state(inst)
    assert task.apply(inst, s0, [0, 1]) == (3, 0)          # over the gem, stops before the wall
    assert task.is_goal(inst, task.apply(inst, s0, [0, 1]))
    assert task.apply(inst, s0, [1, 1]) == (6, 1)          # diagonal: stops at the bottom edge
    assert task.apply(inst, s0, [1, 0]) == (5, 1)
    assert task.check_move(inst, s0, [-1, 0]) == "blocked"
    assert task.check_move(inst, s0, [0, -1]) == "blocked"
    assert task.check_move(inst, s0, [0, 0]) == "not_a_direction"
    assert task.check_move(inst, s0, [2, 0]) == "not_a_direction"
    #   a stop square halts the ball before the gem; a gem on the last cell is taken
    stop = grid(task, "5x2:Sbsgbbbbbb")
    assert task.apply(stop, task.initial_state(stop), [0, 1]) == (2, 1)
    edge = grid(task, "5x2:Sbbbgbbbbb")
    assert task.apply(edge, task.initial_state(edge), [0, 1]) == (4, 0)


def test_mines_are_illegal_and_named_first(task):
    inst = grid(task, "5x2:Sbmgbbbbbg")
    s0 = task.initial_state(inst)
    assert task.check_move(inst, s0, [0, 1]) == "hits_mine"
    verdict = task.verify(inst, [[1, 0], [-1, 0], [0, 1], [1, 0]])
    assert verdict.status == "illegal_move" and verdict.first_error == 3
    assert verdict.details["rule"] == "hits_mine"


def test_unreachable_gems_are_refused(task):
    #   row 0: S . # *    row 1: . . # .   (the wall column cuts the gem off)
    with pytest.raises(ConfigError):
        task.load("4x2:Sbwgbbwb")


def test_generated_gems_can_be_fetched(task):
    for diff in ("easy", "normal", "hard"):
        for seed in range(3):
            inst = task.generate(np.random.default_rng(seed), difficulty=diff)
            d = inst.data
            gems = [i for i, ch in enumerate(d["grid"]) if ch == "g"]
            assert len(gems) == d["w"] * d["h"] // 5
            bare = d["grid"].replace("g", "b")
            assert set(gems) <= set(gem_candidates(d["w"], d["h"], bare))


def test_bounds_of_a_search_cut_short_hold(task):
    for game_id in TATHAM_IDS[3:]:
        w, h = 10, 8
        b = Board(w, h, game_id.partition(":")[2])
        exact = shortest(b, b.start, b.all_gems, 400_000)
        assert exact["exact"]
        for budget in (50, 500, 3000):
            cut = shortest(b, b.start, b.all_gems, budget, beam=20)
            assert cut["lower"] <= exact["upper"] <= cut["upper"] == len(cut["dirs"])
            assert b.play(b.start, b.all_gems, cut["dirs"])[1] == 0


def test_large_boards_report_bounds(task):
    inst = task.generate(np.random.default_rng(0), difficulty="tatham_15x12")
    lower, upper = task.optimum_bounds(inst)
    gold = task.solve(inst)
    assert lower <= upper == len(gold) and task.verify(inst, gold).solved
    if lower < upper:
        assert task.distance(inst, task.initial_state(inst)) is None
        assert task.verify(inst, gold[:-1]).score == 0
