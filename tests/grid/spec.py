"""Checks the grid puzzles' tests share."""
from __future__ import annotations

import pytest

from kumo_gym.core.errors import ConfigError


def check_tatham_example(task, game_id: str, solution: list):
    """The instance of ``game_id``: its unique solution is ``solution``, which verifies, and its ID
    is written back unchanged. Returns the instance for further checks."""
    inst = task.load(game_id)
    assert inst.data["solution"] == solution and task.count_solutions(inst) == 1
    assert task.verify(inst, solution).solved
    assert task.to_game_id(inst) == game_id
    return inst


def check_rejected(read, bad_values) -> None:
    """``read(value)`` raises ConfigError for every one of ``bad_values``."""
    for bad in bad_values:
        with pytest.raises(ConfigError):
            read(bad)
