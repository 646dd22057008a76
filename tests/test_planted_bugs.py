"""Realistic single-line verifier bugs, planted one at a time: the registry-wide suites catch each.

``tests/test_adversarial.py`` proves every rule check load-bearing by switching it off whole.
Real bugs are subtler (an off-by-one that skips the last window of a line, a closed interval
made half-open), so here each bug of that kind is planted with ``monkeypatch`` and the suite's
own assertions (:func:`check_near_misses`) must fail, or an instance drawn must change.

The bugs of tests/planted.py sit where rule-level near misses never land (the last row, the
last column, the wrap-around of a loop, one of two signs, one operator); the registry-wide
differential test (tests/test_differential.py) or the near misses at every rule instance
(tests/edge_misses.py) must catch each, on the instances those suites draw, and pass the
unplanted verifier on the same instances.
"""
from __future__ import annotations

import pytest

from kumo_gym.core.registry import get_task

from .differential import disagreements
from .edge_misses import unnamed_rule_instances
from .planted import BUGS, patch_everywhere
from .registry_helpers import rng_for
from .test_adversarial import _grid_instance, check_near_misses, pairs_of

_patch_everywhere = patch_everywhere


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


#: env id -> (suite, preset level, seed, rule codes): where the registry-wide suites catch its bug.
#: Keen's ``/`` needs a 6x6 grid (5 and 2 meet a ``2/`` cage only from n = 5), the next preset up.
CATCHES = {
    "kumo_gym/Keen-v0": ("instances", 2, 0, {"keen.R3"}),
    "kumo_gym/Magnets-v0": ("instances", 0, 0, {"magnets.R2"}),
    "kumo_gym/Range-v0": ("instances", 0, 1, {"range.R2"}),
    "kumo_gym/Tracks-v0": ("differential", 0, 1, None),
    "kumo_gym/Pearl-v0": ("differential", 0, 0, None),
}


def _caught(env_id: str) -> list:
    suite, level, seed, rules = CATCHES[env_id]
    task, inst = _grid_instance(env_id, level, seed)
    if suite == "differential":
        return disagreements(task, inst, rng_for(env_id, level, seed), limit=1)
    return unnamed_rule_instances(task, inst, rng_for(env_id, "instances", level, seed), limit=1, rules=rules)


@pytest.mark.parametrize("env_id", sorted(BUGS))
def test_edge_bug_is_caught(env_id, monkeypatch):
    """The unplanted verifier passes; with the bug planted (one of tests/planted.py) a wrong
    answer is accepted or a broken rule instance goes unnamed."""
    assert set(CATCHES) == set(BUGS)
    assert not _caught(env_id)
    BUGS[env_id](monkeypatch)
    found = _caught(env_id)
    assert found, f"{env_id}: the planted bug ({BUGS[env_id].__doc__.split(chr(10))[0]}) is not caught"
