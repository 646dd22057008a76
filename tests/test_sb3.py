"""Stable-Baselines3 on the structured view: PPO learns Tower of Hanoi with 3 disks.

The success rate is asserted after a fixed number of timesteps (not a time budget).
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import kumo_gym  # noqa: F401
from kumo_gym.core.registry import entries

pytestmark = pytest.mark.skipif("kumo_gym/Hanoi-v0" not in [e.id for e in entries()], reason="Hanoi not registered")


def hanoi3(**kw):
    from kumo_gym.wrappers import StructuredWrapper

    env = gym.make("kumo_gym/Hanoi-v0", mode="interactive", n=3, max_invalid=50,
                   max_steps=30, **kw)
    return StructuredWrapper(env, step_penalty=-0.01, illegal_penalty=-0.05)


@pytest.mark.slow
def test_ppo_learns_hanoi_3():
    sb3 = pytest.importorskip("stable_baselines3")
    import torch

    torch.manual_seed(0)
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env(hanoi3, n_envs=4, seed=0)
    model = sb3.PPO("MlpPolicy", venv, n_steps=128, batch_size=128, n_epochs=8, learning_rate=3e-3, gamma=0.97,
                    ent_coef=0.01, seed=0, device="cpu", verbose=0)
    model.learn(total_timesteps=40_000)
    env = hanoi3()
    wins = 0
    for ep in range(20):
        obs, _ = env.reset(seed=ep)
        done = trunc = False
        total = 0.0
        while not (done or trunc):
            action, _ = model.predict(obs, deterministic=True)
            obs, r, done, trunc, info = env.step(int(action))
            total += r
        wins += info["verdict"]["status"] == "solved"
    assert wins / 20 >= 0.9, f"PPO solved {wins}/20 episodes"


def test_random_policy_rarely_solves_hanoi_3():
    """The baseline that makes the PPO assertion meaningful: random masked play seldom wins."""
    env = hanoi3()
    rng = np.random.default_rng(0)
    wins = 0
    for ep in range(50):
        obs, info = env.reset(seed=ep)
        done = trunc = False
        steps = 0
        while not (done or trunc):
            legal = np.flatnonzero(info["action_mask"])
            obs, r, done, trunc, info = env.step(int(rng.choice(legal)))
            steps += 1
        wins += info["verdict"]["status"] == "solved" and steps <= 7
    assert wins <= 5
