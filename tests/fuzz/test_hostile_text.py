"""Hostile model output never hurts a run, over every registered env and mode.

``step()`` and the TRL reward functions never raise on any text: hypothesis draws deep nesting,
giant numbers, NaN/inf, control characters, lone surrogates, look-alike digits and repeated or
unclosed markers, and the regression inputs that once blew up some family (1 MB strings, 40,000 nested boxes ...)
run once each. Their work stays bounded: the process's peak memory may grow only by a fixed allowance plus a
small multiple of the input's size (no wall-clock assertion; pytest-timeout is only the guard against a hang), and
every regex of the package is audited statically for super-linear shapes
(``tests/fuzz/test_regex_audit.py``).
"""
from __future__ import annotations

import math
import resource

import gymnasium as gym
import pytest
from hypothesis import given

from ..registry_helpers import IDS, MODES, sample_instances
from .strategies import BIG, hostile_text

pytestmark = pytest.mark.skipif(not IDS, reason="no environment is registered yet")

_ENVS: dict = {}


def env_for(env_id: str, mode: str):
    if (env_id, mode) not in _ENVS:
        _ENVS[env_id, mode] = gym.make(env_id, mode=mode)
    return _ENVS[env_id, mode]


def one_step(env_id: str, mode: str, text: str):
    env = env_for(env_id, mode)
    env.reset(options={"instance": sample_instances(env_id)[0]})
    obs, r, terminated, truncated, info = env.step(text)
    assert isinstance(r, float) and math.isfinite(r) and -1.0 <= r <= 1.0, r
    assert isinstance(terminated, bool) and isinstance(truncated, bool)
    assert isinstance(info, dict)
    if isinstance(obs, str):
        obs.encode("utf-8")  # observations are always valid text (no lone surrogates echoed back)
    return r, info


@pytest.mark.parametrize("env_id,mode", MODES)
@given(text=hostile_text)
def test_step_never_raises_on_hostile_text(env_id, mode, text):
    one_step(env_id, mode, text)


#: memory a step may use beyond its input: a fixed allowance plus a small multiple of the input
MEMORY_FIXED = 64 * 2**20
MEMORY_PER_CHAR = 24


@pytest.mark.timeout(600)
@pytest.mark.parametrize("env_id,mode", MODES)
def test_regression_inputs_are_bounded(env_id, mode):
    env_for(env_id, mode)
    sample_instances(env_id)
    for text in BIG:
        before = _max_rss()
        one_step(env_id, mode, text)
        grew = _max_rss() - before
        assert grew <= MEMORY_FIXED + MEMORY_PER_CHAR * len(text), \
            f"{env_id} {mode}: the process grew {grew / 2**20:.0f} MB for a {len(text)}-character reply {text[:30]!r}..."


def _max_rss() -> int:
    """The process's peak resident memory in bytes (a high-water mark: growth means a new peak)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@pytest.mark.timeout(600)
@pytest.mark.parametrize("env_id", [e for e, m in MODES if m == "answer"])
def test_reward_functions_never_raise_on_hostile_text(env_id):
    from kumo_gym.training.rewards import make_reward_function

    inst = sample_instances(env_id)[0].to_json()
    for kind in ("binary", "partial", "format"):
        fn = make_reward_function(env_id, kind)
        got = fn(prompts=[""] * len(BIG), completions=BIG, instance=[inst] * len(BIG))
        assert len(got) == len(BIG) and all(math.isfinite(x) and 0.0 <= x <= 1.0 for x in got)
        assert fn.scoring_errors == 0, f"{env_id}: a hostile reply made the scorer itself fail"
        got = fn(prompts=[""], completions=[[{"role": "assistant", "content": BIG[3]}]], instance=[inst])
        assert got == [0.0]
