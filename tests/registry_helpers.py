"""Shared pieces of the registry-wide suites (adversarial, reward hacking, fuzz, contract).

Every environment registered by ``import kumo_gym`` is covered by being registered: the suites
parametrise over :data:`IDS` / :data:`MODES`, draw a few small instances per env with
:func:`sample_instances`, and reach a Task's optional hooks through the capability protocols of
:mod:`kumo_gym.core.capabilities` (never ``hasattr``).
"""
from __future__ import annotations

import functools
import zlib

import numpy as np

import kumo_gym  # noqa: F401  (registers the environments)
from kumo_gym.core.registry import entries, get_task

ENTRIES = entries()
IDS = [e.id for e in ENTRIES]
MODES = [(e.id, m) for e in ENTRIES for m in e.modes]
FAMILY = {e.id: e.family for e in ENTRIES}


def rng_for(*parts) -> np.random.Generator:
    """A generator seeded from the names of what is being tested (stable across processes)."""
    return np.random.default_rng(zlib.crc32("/".join(map(str, parts)).encode()))


def difficulties(task, k: int = 2) -> list:
    """The ``k`` smallest presets of a task (its first ones), or ``[None]`` without presets."""
    names = list(task.difficulties)
    return names[:k] if names else [None]


#: seeds drawn per difficulty; FineReason items need several to see both labels / dead ends
_SEEDS = {"finereason": (0, 1, 2, 3, 4, 5), "kumo": (0, 1, 2)}


@functools.cache
def sample_instances(env_id: str) -> tuple:
    """A few small instances of ``env_id`` (two smallest presets, a few seeds each), cached."""
    task = get_task(env_id)
    out = []
    for d in difficulties(task):
        for s in _SEEDS.get(FAMILY[env_id], (0, 1)):
            kw = {} if d is None else {"difficulty": d}
            out.append(task.generate(np.random.default_rng(s), **task.resolve_params(**kw)))
    return tuple(out)


def first_instance(env_id, seed=0, **kw):
    """``(env, instance, info)`` of ``gym.make(env_id, **kw)`` reset with ``seed``."""
    import gymnasium as gym

    env = gym.make(env_id, **kw)
    _, info = env.reset(seed=seed)
    return env, env.unwrapped.instance, info
