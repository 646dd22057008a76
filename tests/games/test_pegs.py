"""Pegs (docs/games.md, Pegs): every start Tatham gives the octagon is won by our search, symmetric
positions share one search, and Tatham's 9x9 random boards (fixed IDs printed by sgt-pegs 20230122, so
this runs without it) are read, written back and won."""
from __future__ import annotations

import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.games.pegs import codec
from kumo_gym.envs.games.pegs.search import Board

ENV = "kumo_gym/Pegs-v0"
RANDOM_9X9 = ["9x9:OOOOPOOOPOOOOPOOOPOOOOHOOOHOOOPPPPPPOOPPPPPPPOOPPPPPPPPPHPPPPPOOOPPPPHPOOOPPPPPOO",
              "9x9:OOOPHPPPPOOOOPOOPOOOOOHOOPOOOOOPPPPPOOPPPPPPPOPPHPPHPHOOPPHPPPPPPPPPPPPOOOOPPHPOO",
              "9x9:OPOOPPOOOOPPPPPPOOPPPPPPPOOOPHPHPPPPOOPPPPPPOOPPPPPOOOOOPHPPOOOOOPPPPOOOOOOPOOOOO"]


def _wins(task, inst, moves) -> bool:
    return task.verify(inst, moves).solved and not task.verify(inst, moves[:-1]).solved


def test_tathams_presets_are_ours():
    task = get_task(ENV)
    assert set(task.tatham_presets.values()) == {"7x7cross", "7x7octagon", "5x5random", "7x7random", "9x9random"}
    assert task.difficulties["tatham_7x7octagon"] == {"w": 7, "h": 7, "type": "octagon"}
    assert task.difficulties["tatham_9x9random"] == {"w": 9, "h": 9, "type": "random"}


def test_every_octagon_start_is_won():
    """All 16 starts of Tatham's octagon (three classes under the board's symmetries): each loads from
    its game ID, and the solver's jumps, replayed by the rules, leave one peg."""
    task = get_task(ENV)
    for hole in codec.OCTAGON_STARTS:
        game_id = f"7x7:{codec.layout('octagon', hole)}"
        inst = task.load(game_id)
        assert inst.data["type"] == "octagon" and task.to_game_id(inst) == game_id
        moves = task.solve(inst)
        assert len(moves) == 35 and _wins(task, inst, moves), hole


def test_symmetric_images_of_a_position_are_searched_once():
    """The cross is symmetric under all eight turns and reflections, the octagon too; a position and its
    mirror image get lines that are mirror images of each other, from one search."""
    desc = codec.layout("octagon", (2, 0))
    board = Board(7, 7, [i for i, ch in enumerate(desc) if ch != "O"])
    assert len(board.symmetries()) == 8
    left = board.solve([i for i, ch in enumerate(desc) if ch == "P"])
    mirror = codec.layout("octagon", (2, 6))
    right = board.solve([i for i, ch in enumerate(mirror) if ch == "P"])
    assert left[2] == right[2]

    def flip(cell: int) -> int:
        return cell // 7 * 7 + 6 - cell % 7

    assert right[0] == [(flip(a), flip(b), flip(t)) for a, b, t in left[0]]
    assert len(Board(5, 4, list(range(20))).symmetries()) == 4


def test_tathams_9x9_random_boards_are_read_and_won():
    task = get_task(ENV)
    for game_id in RANDOM_9X9:
        inst = task.load(game_id)
        assert task.to_game_id(inst) == game_id and inst.data["type"] == "random"
        moves = task.solve(inst)
        assert len(moves) == inst.data["board"].count("P") - 1 and _wins(task, inst, moves)


def test_a_grown_board_is_solved_by_the_line_it_was_grown_along():
    """A random board generated here takes its generator's line (no search: ``search_nodes`` is None), which
    wins by the rules; the same board loaded from its game ID is searched; a line that does not win (here, a
    board changed after it was grown) is not taken."""
    import numpy as np

    task = get_task(ENV)
    for difficulty in ("easy", "tatham_9x9random"):
        inst = task.generate(np.random.default_rng(3), difficulty=difficulty)
        moves = task.solve(inst)
        assert task.search_nodes(inst) is None and _wins(task, inst, moves)
    inst = task.generate(np.random.default_rng(3), difficulty="easy")
    loaded = task.load(inst.data["game_id"])
    assert task.search_nodes(loaded) > 0 and _wins(task, loaded, task.solve(loaded))
    task._grown = (inst.data["board"], [(0, 1, 2)])  # not a jump of this board: replay refuses it
    other = task.load(inst.data["game_id"])
    assert task.search_nodes(other) > 0 and task._grown is None and _wins(task, other, task.solve(other))


def test_a_reset_searches_its_board_once(monkeypatch):
    """The reset's copy of the instance (its seed and split recorded) shares the solver cache with the instance
    the generator validated: one search per episode, not two."""
    import warnings

    import gymnasium as gym

    task = get_task(ENV)
    calls = []
    search = type(task)._search
    monkeypatch.setattr(type(task), "_search", lambda self, *a: calls.append(1) or search(self, *a))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gym.make(ENV, difficulty="tatham_7x7cross")
        env.reset(seed=0)
        task.solve(env.unwrapped.instance)
        env.close()
    assert len(calls) == 1


def test_a_board_whose_search_runs_out_of_budget_is_refused(monkeypatch):
    """``solve_budget`` bounds the search of a board loaded (the games benchmark lowers it for Tatham's 9x9
    boards): a board that runs it out is refused at load, saying so, never taken without a line."""
    task = get_task(ENV)
    monkeypatch.setattr(task, "solve_budget", 50)
    with pytest.raises(ConfigError, match="ran out of budget"):
        task.load(RANDOM_9X9[1])
    monkeypatch.undo()
    inst = task.load(RANDOM_9X9[1])
    assert _wins(task, inst, task.solve(inst))
