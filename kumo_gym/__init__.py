"""kumo_gym: reasoning-puzzle environments for training and evaluating language models.

Importing the package registers every environment with Gymnasium under the ``kumo_gym/``
namespace::

    import gymnasium as gym
    import kumo_gym

    env = gym.make("kumo_gym/Hanoi-v0", n=3)
    prompt, info = env.reset(seed=0)
"""
from __future__ import annotations

from .core import ConfigError, ContaminationError, Instance, ParseError, Verdict
from .core.registry import get_task, register_all
from .training.data import generate_instances, make_dataset, score

__version__ = "0.1.0"

ENV_IDS = register_all()


def reward_function(env_id: str | None = None, kind: str = "binary"):
    """A reward function with TRL's signature for ``env_id`` (or each row's ``env_id`` column)."""
    from .training.rewards import make_reward_function

    return make_reward_function(env_id, kind)


__all__ = ["ConfigError", "ContaminationError", "Instance", "ParseError", "Verdict", "get_task",
           "make_dataset", "generate_instances", "score", "reward_function", "ENV_IDS", "__version__"]
