"""Realistic single-line verifier bugs, planted one at a time: the registry-wide suites catch each.

``tests/test_adversarial.py`` proves every rule check load-bearing by switching it off whole.
Real bugs are subtler (an off-by-one that skips the last window of a line, a closed interval
made half-open), so here each bug of that kind is planted with ``monkeypatch`` and the suite's
own assertions (:func:`check_near_misses`) must fail, or an instance drawn must change.
"""
from __future__ import annotations

import sys

import pytest

from kumo_gym.core.registry import get_task

from .test_adversarial import check_near_misses, pairs_of


def _patch_everywhere(monkeypatch, original, replacement) -> int:
    """Replace ``original`` in every kumo_gym module that imported it by name."""
    n = 0
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("kumo_gym"):
            for name, value in list(vars(mod).items()):
                if value is original:
                    monkeypatch.setattr(mod, name, replacement)
                    n += 1
    return n


def test_unruly_last_window_of_each_line_unchecked_is_caught(monkeypatch):
    from kumo_gym.envs.grid import unruly

    """On 6-cell lines a window at an end cannot be all one colour alone (balance then forces a
    second triple), so the bug is only observable on larger grids: the suite's near misses are
    drawn on hard (14x14) puzzles here, where the edge-first order breaks end windows alone. With
    every given kept, an end window can be broken alone on about one hard puzzle in ten (the
    generator's propagation-minimal givens pin most windows); seeds 17 and 19 are such puzzles."""
    import numpy as np

    env_id = "kumo_gym/Unruly-v0"
    task = get_task(env_id)
    pairs = [(inst, nm) for s in (17, 18, 19)
             for inst in [task.generate(np.random.default_rng(s), **task.resolve_params(difficulty="hard"))]
             for nm in task.near_misses(inst, np.random.default_rng(s))]
    check_near_misses(task, pairs)  # the unplanted verifier passes
    real = unruly.UnrulyTask.rule_checks

    def weakened(self, instance, grid):  # R2 never looks at the last three cells of a line
        out = real(self, instance, grid)
        H, W = self.dims(instance)
        ends = {tuple(line[-3:]) for line in unruly.lines(H, W)}
        return [ch for ch in out if not (ch.rule == "R2" and tuple(ch.cells) in ends)]

    monkeypatch.setattr(unruly.UnrulyTask, "rule_checks", weakened)
    with pytest.raises(AssertionError):
        check_near_misses(task, pairs)


def test_kumo_half_open_interval_is_caught(monkeypatch):
    """The spec's intervals are closed; a boundary observation exactly at an end must match."""
    from kumo_gym.envs.kumo import search as solver

    env_id = "kumo_gym/KUMO-v0"
    task, pairs = get_task(env_id), pairs_of(env_id)
    check_near_misses(task, pairs)
    real = solver.outcome_matches

    def half_open(kind, state, value):
        if kind == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
            lo, hi = state
            return lo <= value < hi
        return real(kind, state, value)

    assert _patch_everywhere(monkeypatch, real, half_open) >= 1
    with pytest.raises(AssertionError):
        check_near_misses(task, pairs)
