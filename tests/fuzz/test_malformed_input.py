"""Malformed instances and kwargs fail early and clearly.

An instance given at ``reset(options={"instance": ...})`` is either valid (then ``step`` works on
it) or refused at reset with a :class:`ConfigError` naming what is wrong, never a ``TypeError``,
``KeyError`` ... at reset or later. Every parameter of every env refuses a bad value at
``gym.make`` with a ``ConfigError`` that names the parameter.
"""
from __future__ import annotations

import math

import gymnasium as gym
import pytest
from hypothesis import given

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task

from ..registry_helpers import ENTRIES, IDS, MODES, sample_instances
from .strategies import malformed

pytestmark = pytest.mark.skipif(not IDS, reason="no environment is registered yet")

_ENVS: dict = {}


def env_for(env_id: str, mode: str):
    if (env_id, mode) not in _ENVS:
        _ENVS[env_id, mode] = gym.make(env_id, mode=mode, disable_env_checker=True)
    return _ENVS[env_id, mode]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("env_id,mode", MODES)
def test_malformed_instances_are_refused_at_reset(env_id, mode):
    base = sample_instances(env_id)[0].to_dict()
    env = env_for(env_id, mode)

    @given(d=malformed(base))
    def check(d):
        try:
            env.reset(options={"instance": d})
        except ConfigError:
            return
        _, r, _, _, _ = env.step("I give up.")
        assert math.isfinite(r)

    check()


@pytest.mark.parametrize("env_id,mode", MODES)
def test_non_instances_are_refused_at_reset(env_id, mode):
    env = env_for(env_id, mode)
    # (a bare int is a size for the planning puzzles: Hanoi's ``7`` is N = 7)
    for bad in ({"foo": 1}, {"family": "nonsense", "data": {}}, 7.5, True, "nonsense", [], None, {"data": 7},
                {"family": get_task(env_id).family, "data": "x"}):
        if bad is None:
            continue  # None means "no instance": draw one
        with pytest.raises(ConfigError):
            env.reset(options={"instance": bad})


BAD_VALUES = ["abc", 3.5, -10**9, 10**9, float("nan"), float("inf"), [], {"a": 1}, True]
PARAMS = [(e.id, s) for e in ENTRIES for cls in [get_task(e.id).Params] if cls is not None for s in cls.specs()]


@pytest.mark.parametrize("env_id,spec", PARAMS, ids=[f"{e}-{s.name}" for e, s in PARAMS])
def test_bad_kwargs_name_the_parameter(env_id, spec):
    for bad in BAD_VALUES + ([None] if not spec.nullable else []):
        try:
            env = gym.make(env_id, **{spec.name: bad})
        except ConfigError as e:
            assert spec.name in str(e), f"the error for {spec.name}={bad!r} does not name it: {e}"
            continue
        env.close()  # accepted: it must be a value of the declared kind
        assert spec.coerce(bad) is not None or spec.nullable


@pytest.mark.parametrize("env_id", IDS)
def test_unknown_kwargs_are_refused_with_the_choices(env_id):
    with pytest.raises(ConfigError, match="no_such_option"):
        gym.make(env_id, no_such_option=1)
