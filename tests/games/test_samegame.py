"""Samegame (docs/games.md, Samegame): Tatham's IDs read and written exactly, the rules one by one,
falling cells and closing columns, soluble generation, and the clearing search against exhaustive
search over every removal sequence on small boards."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.games.samegame import codec
from kumo_gym.envs.games.samegame.generate import soluble_board
from kumo_gym.envs.games.samegame.search import clear, exhaustive, from_grid, groups, remove, to_grid

#: printed by sgt-samegame 20230122 (--generate at Tatham's presets)
TATHAM_IDS = ["5x5c3s2:3,1,1,2,1,2,3,3,2,2,2,2,1,1,2,1,3,2,3,1,1,3,1,3,1",
              ("10x5c3s2:3,1,3,3,3,2,1,3,3,2,3,1,2,2,3,3,2,2,1,3,2,2,1,3,1,2,3,3,3,2,3,3,1,3,1,3,1,2,1,2,1,1,3,2,"
               "3,2,2,3,2,3")]
MALFORMED = ["5x5c3s2", "5x5c3s2:1,2,3", "5x5c3s3:" + ",".join(["1"] * 25), "5x5c3s2q:" + ",".join(["1"] * 25),
             "5x5c3s2:" + ",".join(["4"] * 25), "5x5c3s2:" + ",".join(["01"] + ["1"] * 24),
             "2x2c3s2:1,1,0,1", "2x2c3s2:0,0,0,0", "2x2c3s2:0,1,0,1", "40x40c3s2:1", "5x5c12s2:1"]


@pytest.fixture(scope="module")
def task():
    return get_task("kumo_gym/Samegame-v0")


def test_example_parses_solves_verifies_and_round_trips(task):
    for game_id in TATHAM_IDS:
        inst = task.load(game_id)
        assert task.to_game_id(inst) == game_id == inst.data["game_id"]
        gold = task.solve(inst)
        assert task.parse(task.format_answer(gold)) == gold
        assert task.verify(inst, gold).solved
        assert not task.verify(inst, gold[:-1]).solved


def test_parameters_short_and_full(task):
    assert codec.decode_params("5x5") == {"w": 5, "h": 5, "colours": 3, "scoresub": 2, "soluble": True}
    assert codec.decode_params("10x5c4s1r") == {"w": 10, "h": 5, "colours": 4, "scoresub": 1, "soluble": False}
    p = {"w": 10, "h": 5, "colours": 4, "scoresub": 1, "soluble": False}
    assert codec.encode_params(p, full=True) == "10x5c4s1r" and codec.encode_params(p, full=False) == "10x5c4s1"
    desc = TATHAM_IDS[0].partition(":")[2]
    assert task.load("5x5:" + desc).data == task.load(TATHAM_IDS[0]).data  # Tatham's defaults c3 s2
    assert task.tatham_preset("tatham_15x10c4") == "15x10c4s2"


@pytest.mark.parametrize("bad", MALFORMED)
def test_malformed_ids_are_refused_with_a_reason(task, bad):
    with pytest.raises(ConfigError) as err:
        task.load(bad)
    assert len(str(err.value)) > 20


def test_settled_boards_with_empty_cells_are_read(task):
    inst = task.load("3x2c3s2:1,0,0,1,2,2")
    assert task.solve(inst) == [[0, 0], [1, 0]] or task.verify(inst, task.solve(inst)).solved
    assert task.to_game_id(inst) == "3x2c3s2:1,0,0,1,2,2"


def test_cells_fall_and_columns_close_left(task):
    # rows from the top: 2 1 . / 1 1 3 / 2 3 3 ; removing the 1s lets the top 2 fall onto the bottom 2
    inst = task.load("3x3c3s2:2,1,0,1,1,3,2,3,3")
    s = task.apply(inst, task.initial_state(inst), [1, 1])
    assert s == (0, 0, 0, 2, 0, 3, 2, 3, 3)
    # removing the 2s (now stacked in column 0) empties column 0: the others close up to the left
    s = task.apply(inst, s, [2, 0])
    assert s == (0, 0, 0, 0, 3, 0, 3, 3, 0)
    s = task.apply(inst, s, [2, 0])
    assert task.is_goal(inst, s)
    assert task.verify(inst, [[1, 1], [2, 0], [2, 0]]).solved


def _rule(task, inst, moves):
    v = task.verify(inst, moves)
    return v.details.get("rule"), v.first_error


def test_each_rule_alone(task):
    inst = task.load("3x3c3s2:2,1,0,1,1,3,2,3,3")
    assert _rule(task, inst, [[3, 0]]) == ("off_board", 1)
    assert _rule(task, inst, [[0, 3]]) == ("off_board", 1)
    assert _rule(task, inst, [[0, 2]]) == ("empty_cell", 1)
    assert _rule(task, inst, [[0, 0]]) == ("lone_cell", 1)  # the top 2 touches no other 2
    assert _rule(task, inst, [[1, 1], [0, 0]]) == ("empty_cell", 2)  # positions are read after the removal
    assert _rule(task, inst, [[1, 1]]) == ("goal_not_reached", 2)
    with task.rules_disabled("lone_cell"):  # a lone cell changes nothing, as in Tatham's game
        assert task.verify(inst, [[0, 0], [1, 1], [2, 0], [2, 0]]).solved
    with task.rules_disabled("empty_cell"):
        assert task.verify(inst, [[0, 2], [1, 1], [2, 0], [2, 0]]).solved


def test_no_partial_credit_for_removed_cells(task):
    inst = task.load(TATHAM_IDS[1])
    gold = task.solve(inst)
    assert task.verify(inst, gold[:-1]).score == 0.0
    assert task.verify(inst, gold).score == 1.0


def test_tatham_score_of_the_reference(task):
    inst = task.load("3x3c3s2:2,1,0,1,1,3,2,3,3")
    assert task.score_of(inst, [[1, 1], [2, 0], [2, 0]]) == 1 + 0 + 1  # 3 ones, 2 twos, 3 threes with s=2


@pytest.mark.parametrize("w,h,nc", [(4, 3, 3), (5, 5, 3), (3, 1, 3), (1, 5, 4), (2, 3, 3), (7, 4, 5)])
def test_soluble_boards_are_full_and_cleared(w, h, nc):
    for seed in range(4):
        board = tuple(map(tuple, soluble_board(w, h, nc, np.random.default_rng(seed))))
        grid = to_grid(board, w, h)
        assert all(1 <= c <= nc for c in grid)
        path = clear(board)
        assert path is not None
        for g in path:
            assert g in groups(board)
            board = remove(board, g)
        assert board == ()


def test_random_boards_are_drawn_until_clearable(task):
    inst = task.generate(np.random.default_rng(3), w=4, h=3, colours=2, soluble=False)
    assert task.verify(inst, task.solve(inst)).solved
    assert task.tatham_params(inst.params) == "4x3c2s2r"


def test_search_clears_exactly_the_clearable_boards():
    """Every 3x2 board over 2 colours and a sample of 3x3 and 4x3 boards over 3 colours: the search
    finds a clearing sequence exactly when exhaustive search over every removal order does."""
    boards = [(3, 2, g) for g in itertools.product((1, 2), repeat=6)]
    rng = np.random.default_rng(11)
    boards += [(3, 3, tuple(int(v) for v in rng.integers(1, 4, 9))) for _ in range(150)]
    boards += [(4, 3, tuple(int(v) for v in rng.integers(1, 3, 12))) for _ in range(150)]
    clearable = 0
    for w, h, grid in boards:
        board = from_grid(grid, w, h)
        path = clear(board)
        assert (path is not None) == exhaustive(board), grid
        if path is not None:
            clearable += 1
            for g in path:
                board = remove(board, g)
            assert board == ()
    assert 30 < clearable < len(boards)
