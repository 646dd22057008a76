"""Registry-wide: the answer size limit (docs/security.md).

Every environment, in every mode, refuses an action longer than ``max_answer_chars`` (default
:data:`~kumo_gym.core.verdict.MAX_ANSWER_CHARS`) with the status ``too_long``, deciding by its
length alone: a string that claims to be one character over the limit but holds the gold answer is
refused too, so nothing of it was read. An answer exactly at the limit is read as usual. How long
a step takes on 10 MB and on at-limit hostile input is measured in ``benchmarks/hostile.py``.
"""
from __future__ import annotations

import gymnasium as gym
import pytest

from kumo_gym.core.capabilities import GoldenMoves
from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.core.verdict import MAX_ANSWER_CHARS, UNREADABLE, too_long
from kumo_gym.training.rewards import verdict_reward

from .registry_helpers import IDS, MODES, sample_instances

pytestmark = pytest.mark.skipif(not IDS, reason="no environment is registered yet")

OVER = " " * MAX_ANSWER_CHARS + "x"  # built once: one character over the default limit


class _Claims(str):
    """A short string that says it is longer than it is: read, it is the gold answer; measured, it
    is over the limit. Only an environment that decides by ``len`` alone refuses it."""

    claimed = MAX_ANSWER_CHARS + 1

    def __len__(self):
        return self.claimed


def _gold(env_id: str, mode: str, inst) -> str | None:
    task = get_task(env_id)
    if mode == "answer":
        return task.format_answer(task.solve(inst))
    if isinstance(task, GoldenMoves):
        m = task.golden_moves(inst)[0]
        return m if isinstance(m, str) else task.format_move(m)
    return None


def _status(info: dict) -> str:
    return (info.get("verdict") or {}).get("status")


@pytest.mark.parametrize("env_id,mode", MODES)
def test_an_answer_over_the_limit_is_refused_unread(env_id, mode):
    inst = sample_instances(env_id)[0]
    env = gym.make(env_id, mode=mode)
    env.reset(options={"instance": inst})
    _, reward, _, _, info = env.step(OVER)
    assert _status(info) == "too_long" and reward == 0.0, (env_id, mode, info.get("verdict"))
    assert info["verdict"]["details"]["limit"] == MAX_ANSWER_CHARS
    gold = _gold(env_id, mode, inst)
    if gold is not None:
        env.reset(options={"instance": inst})
        _, reward, _, _, info = env.step(_Claims(gold))
        assert _status(info) == "too_long" and reward == 0.0, (env_id, mode, "the text was read", info.get("verdict"))


@pytest.mark.parametrize("env_id,mode", MODES)
def test_the_limit_is_configurable_and_an_answer_at_it_is_read(env_id, mode):
    inst = sample_instances(env_id)[0]
    gold = _gold(env_id, mode, inst)
    if gold is None:
        pytest.skip("no golden move to pad")
    limit = len(gold) + 64
    env = gym.make(env_id, mode=mode, max_answer_chars=limit)
    env.reset(options={"instance": inst})
    _, _, _, _, info = env.step(" " * (limit - len(gold)) + gold)  # exactly at the limit: read
    assert _status(info) != "too_long", (env_id, mode, info.get("verdict"))
    if mode == "answer":
        assert _status(info) == "solved", (env_id, info.get("verdict"))
    env.reset(options={"instance": inst})
    _, reward, _, _, info = env.step(" " * (limit - len(gold) + 1) + gold)  # one over: refused
    assert _status(info) == "too_long" and reward == 0.0, (env_id, mode, info.get("verdict"))
    assert info["verdict"]["details"]["limit"] == limit


def test_the_limit_in_score_and_rewards():
    env_id = IDS[0]
    task, inst = get_task(env_id), sample_instances(env_id)[0]
    gold = task.format_answer(task.solve(inst))
    v = task.score(inst, _Claims(gold))
    assert v.status == "too_long" and v.status in UNREADABLE and verdict_reward(v, "format") == 0.0
    assert task.score(inst, gold, reasoning=_Claims("x")).status == "too_long"
    assert task.score(inst, gold, max_answer_chars=len(gold)).solved
    assert too_long("x" * 11, limit=10).details == {"reason": "too_long", "chars": 11, "limit": 10,
                                                    "part": "answer", "truncated": False}
    with pytest.raises(ConfigError, match="max_answer_chars"):
        gym.make(env_id, max_answer_chars=0)
