"""Structured view of an interactive environment, for Stable-Baselines3 and other RL code.

The text environment stays the source of truth: an integer action is looked up in the task's
``move_catalog(instance)`` (a fixed list of every move for the instance's parameters),
formatted with ``format_move`` and sent through the text ``step``. Observations are the task's
``encode_state(instance, state)`` vector. ``action_masks()`` marks the legal moves (the method
name MaskablePPO from sb3-contrib looks for); ``info["action_mask"]`` carries the same array.
"""
from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..core.capabilities import StateBounds, StructuredView
from ..core.errors import ConfigError
from ..core.task import InteractiveTask


class StructuredWrapper(gym.Wrapper):
    """``Box`` observations and ``Discrete`` actions with an action mask.

    Arguments: ``step_penalty`` (reward added on every step that does not end the episode,
    default 0), ``illegal_penalty`` (reward of a masked action: it has no effect, and the inner
    env's ``max_invalid`` consecutive ones truncate the episode).
    """

    def __init__(self, env: gym.Env, step_penalty: float = 0.0, illegal_penalty: float = 0.0):
        super().__init__(env)
        base: Any = env.unwrapped  # one of ours: it has task, instance, state, which gym.Env does not declare
        task = base.task
        if not (isinstance(task, StructuredView) and isinstance(task, InteractiveTask)):
            raise ConfigError(f"{base.env_id} has no structured interface (its task needs move_catalog() and "
                              "encode_state() in interactive mode)")
        probe = task.generate(np.random.default_rng(0), **base.params)
        self._catalog = list(task.move_catalog(probe))
        vec = np.asarray(task.encode_state(probe, task.initial_state(probe)), dtype=np.float32)
        low, high = task.state_bounds(probe) if isinstance(task, StateBounds) else (-np.inf, np.inf)
        self.observation_space = spaces.Box(low=np.full(vec.shape, low, np.float32),
                                            high=np.full(vec.shape, high, np.float32), dtype=np.float32)
        self.action_space = spaces.Discrete(len(self._catalog))
        self.step_penalty = float(step_penalty)
        self.illegal_penalty = float(illegal_penalty)

    def _obs(self) -> np.ndarray:
        base: Any = self.env.unwrapped
        return np.asarray(base.task.encode_state(base.instance, base.state), dtype=np.float32)

    def action_masks(self) -> np.ndarray:
        base: Any = self.env.unwrapped
        task, inst, state = base.task, base.instance, base.state
        return np.array([task.check_move(inst, state, m) is None for m in self._catalog], dtype=bool)

    def reset(self, **kwargs):
        _, info = self.env.reset(**kwargs)
        base: Any = self.env.unwrapped
        catalog = list(base.task.move_catalog(base.instance))
        if len(catalog) != len(self._catalog):
            raise ConfigError("instances of these parameters have different move catalogues; "
                              "fix the size parameters instead of sampling them")
        self._catalog = catalog
        info = dict(info, action_mask=self.action_masks())
        return self._obs(), info

    def step(self, action):
        base: Any = self.env.unwrapped
        move = self._catalog[int(action)]
        legal = base.task.check_move(base.instance, base.state, move) is None
        _, inner_reward, terminated, truncated, info = self.env.step(base.task.format_move(move))
        reward = float(inner_reward)
        if not legal:
            reward += self.illegal_penalty
        elif not (terminated or truncated):
            reward += self.step_penalty
        info = dict(info, action_mask=self.action_masks(), move=base.task.format_move(move))
        return self._obs(), float(reward), terminated, truncated, info
