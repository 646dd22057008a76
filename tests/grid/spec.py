"""Checks the grid puzzles' tests share."""
from __future__ import annotations

import numpy as np
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


def violated_rules(task, inst, grid) -> list[str]:
    """The rule codes an unsolved ``grid`` breaks, sorted (it must not solve the puzzle)."""
    v = task.verify(inst, grid)
    assert not v.solved
    return sorted({x["rule"] for x in v.details["violations"]})


def check_cuts_needed(task, rule: str, difficulty: str, seeds: int = 4, at_least: int = 2) -> None:
    """Generated puzzles are unique only with the cuts of ``rule``: without them the encoding has
    other 'solutions' (which break ``rule``) for at least ``at_least`` of ``seeds`` seeds."""
    from kumo_gym.solvers.engine import Engine

    found = 0
    for seed in range(seeds):
        inst = task.generate(np.random.default_rng(seed), difficulty=difficulty)
        enc = task.encoding(inst)
        extra = [enc.decode(v) for v in Engine(enc.formula, enc.answer, None).models(enc.assumptions(), 2)]
        assert task.count_solutions(inst) == 1
        if len(extra) == 2:
            assert any(rule in task.verify(inst, g).rules for g in extra)
            found += 1
    assert found >= at_least


def check_labels(inst, correct=(), incorrect=(), unverifiable=()) -> None:
    """``label_claim`` labels every claim (a docs/specs/grid_puzzles.md §7 payload) as the argument it is listed
    under."""
    from kumo_gym.envs.grid.claims import label_claim

    for label, claims in (("correct", correct), ("incorrect", incorrect), ("unverifiable", unverifiable)):
        for claim in claims:
            assert label_claim(inst, claim) == label, (claim, label)


def play_golden(task, inst, state):
    """``state`` after the golden moves of ``inst``, applied in order."""
    for m in task.golden_moves(inst):
        state = task.apply(inst, state, m)
    return state
