"""The single Gymnasium entry point: picks the environment class for an id and a mode."""
from __future__ import annotations

from ..core.errors import check_choice
from ..core.registry import entry, get_task, import_object

GENERIC = {"answer": "kumo_gym.envs.answer:AnswerEnv", "interactive": "kumo_gym.envs.interactive:InteractiveEnv"}


def make_env(env_id: str, mode: str | None = None, **kwargs):
    """Build the environment ``env_id`` in ``mode`` (the entry's first mode by default)."""
    e = entry(env_id)
    mode = mode or e.modes[0]
    check_choice("mode", mode, e.modes)
    cls = import_object(e.env_classes.get(mode) or GENERIC[mode])
    return cls(get_task(env_id), env_id, **kwargs)
