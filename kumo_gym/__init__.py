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
    """A reward function with TRL's signature for ``env_id`` (or each row's ``env_id`` column).

    ``kind``: ``binary`` (1 iff solved), ``partial`` or ``format``; ``reward_function("partial")``
    reads as the kind (no environment id is a kind's name).
    """
    from .training.rewards import KINDS, make_reward_function

    if env_id is not None and env_id in KINDS:
        kind, env_id = env_id, None
    if env_id is not None:
        from .core.registry import entry

        env_id = entry(env_id).id  # an unknown id fails here, not at every scored row
    return make_reward_function(env_id, kind)


__all__ = ["ENV_IDS", "ConfigError", "ContaminationError", "Instance", "ParseError", "Verdict", "__version__",
           "generate_instances", "get_task", "make_dataset", "reward_function", "score"]
