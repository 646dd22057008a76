"""Registry-wide adversarial verifier suite: every verifier rule is sound and bites.

For every registered environment and every rule code its verifier reports, the Task's
:class:`~kumo_gym.core.capabilities.NearMisses` hook gives answers that break exactly that rule
(grid puzzles: a model of the puzzle's own SAT encoding with one instance of the rule negated;
planning: one illegal move at position k; SPaRC: one rule of one region broken; KUMO: an
observation exactly at an interval end; FineReason: a move into a dead subtree ...). The suite
asserts that

* together the near misses cover every rule that applies to the sampled instances;
* the verdict of each names its rule (``Verdict.rules``), only that rule when the near miss is
  exclusive, and pays below 1 in both reward modes;
* each rule check is load-bearing: with the check switched off (``Task.rules_disabled``, which
  behaves as if the check were deleted from the source) the suite's own assertions fail. That is
  the mutation test in miniature: a planted single-rule weakening of any verifier is caught.

Grid puzzles are also broken at *every* instance of every rule (tests/edge_misses.py): a
check that skips the last row or column, the wrap-around of a loop, or one of two signs is
load-bearing and passes the suite above, but leaves one rule instance unnamed there.

A new puzzle is covered by registering it; nothing here names a family.
"""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.capabilities import NearMisses
from kumo_gym.core.registry import get_task
from kumo_gym.envs.grid.base import GridTask

from .edge_misses import unnamed_rule_instances
from .registry_helpers import IDS, difficulties, rng_for, sample_instances

pytestmark = pytest.mark.skipif(not IDS, reason="no environment is registered yet")


def near_miss_pairs(env_id: str) -> list:
    task = get_task(env_id)
    assert isinstance(task, NearMisses), f"{env_id}: the Task defines no near_misses (capabilities.NearMisses)"
    return [(nm.instance or inst, nm) for i, inst in enumerate(sample_instances(env_id))
            for nm in task.near_misses(inst, rng_for(env_id, i))]


def check_near_misses(task, pairs) -> None:
    """The suite's assertions on a list of (instance, near miss) pairs."""
    for inst, nm in pairs:
        v = task.verify(inst, nm.answer)
        assert not v.solved and v.reward < 1 and v.score < 1, (nm.rule, v.status, v.message)
        assert nm.rule in v.rules, f"the verdict names {v.rules}, not the broken rule {nm.rule}: {v.message}"
        if nm.exclusive:
            assert v.rules == [nm.rule], f"{nm.rule}: the verdict also names {v.rules}: {v.message}"


_PAIRS: dict = {}


def pairs_of(env_id: str) -> list:
    if env_id not in _PAIRS:
        _PAIRS[env_id] = near_miss_pairs(env_id)
    return _PAIRS[env_id]


@pytest.mark.parametrize("env_id", IDS)
def test_near_misses_cover_every_rule(env_id):
    task = get_task(env_id)
    pairs = pairs_of(env_id)
    assert task.rule_codes, f"{env_id} declares no rule codes"
    applicable = set().union(*(task.rules_of(inst) for inst in sample_instances(env_id)))
    covered = {nm.rule for _, nm in pairs}
    assert covered <= set(task.rule_codes), covered - set(task.rule_codes)
    assert applicable <= covered, f"rules without a near miss on the sampled instances: {sorted(applicable - covered)}"


@pytest.mark.parametrize("env_id", IDS)
def test_near_misses_break_exactly_their_rule(env_id):
    check_near_misses(get_task(env_id), pairs_of(env_id))


@pytest.mark.parametrize("env_id", IDS)
def test_every_rule_check_is_load_bearing(env_id):
    """Switch each rule's check off in turn: the near-miss assertions must then fail, and the
    rule must vanish from every verdict (so the check, not another one, caught it)."""
    task = get_task(env_id)
    pairs = pairs_of(env_id)
    for rule in sorted({nm.rule for _, nm in pairs}):
        mine = [(inst, nm) for inst, nm in pairs if nm.rule == rule]
        with task.rules_disabled(rule):
            with pytest.raises(AssertionError):
                check_near_misses(task, mine)
            for inst, nm in mine:
                assert rule not in task.verify(inst, nm.answer).rules, (env_id, rule)


@pytest.mark.parametrize("env_id", IDS)
def test_rules_disabled_is_restored(env_id):
    task = get_task(env_id)
    code = next(iter(task.rule_codes))
    with task.rules_disabled(code):
        assert not task.rule_enabled(code)
    assert task.rule_enabled(code)
    from kumo_gym.core.errors import ConfigError
    with pytest.raises(ConfigError, match="rule code"), task.rules_disabled("no.such.rule"):
        pass


# ---- near misses at every rule instance (tests/edge_misses.py) ---------------------------------------------------
GRID_IDS = [i for i in IDS if isinstance(get_task(i), GridTask)]


def _grid_instance(env_id: str, level: int, seed: int):
    task = get_task(env_id)
    d = difficulties(task, level + 1)[level]
    return task, task.generate(np.random.default_rng(seed), **task.resolve_params(difficulty=d))


def check_every_rule_instance(env_id: str, level: int, seeds) -> None:
    """Every instance of every rule, broken alone (first and last row and column, both signs,
    each operator), is named by the verdict."""
    for seed in seeds:
        task, inst = _grid_instance(env_id, level, seed)
        bad = unnamed_rule_instances(task, inst, rng_for(env_id, "instances", level, seed))
        assert not bad, (f"{env_id} seed {seed}: {bad[0][0]} broken at {bad[0][1]} is not named "
                         f"(the verdict names {bad[0][3]}): {bad[0][2]}")


@pytest.mark.parametrize("env_id", GRID_IDS)
def test_every_rule_instance_is_named(env_id):
    check_every_rule_instance(env_id, 0, (0, 1))


@pytest.mark.slow
@pytest.mark.parametrize("env_id", GRID_IDS)
def test_every_rule_instance_is_named_larger(env_id):
    """The same at the second preset, one seed (every rule instance of a larger grid is already many near
    misses; the first preset covers two seeds)."""
    check_every_rule_instance(env_id, 1, (0,))
