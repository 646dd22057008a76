"""The FineReason environments: the generic ones, plus what a replayed item needs.

* ``info`` says where the item comes from (``source``), its ``puzzle`` and ``depth``, and names
  the defects of a replayed reference row (``defects``; ``explored_child``: whether the row's own
  explored child is shown or, where it is defective, the oracle's).
* A replayed instance (``reset(options={"instance": ...})``) takes the prompt and scoring
  options passed to ``gym.make`` (``transition_reward="strict"``, ``faithful_labels=True``,
  ``grid_semantics="finereason"`` ...), so a reference row can be judged under any of them.
"""
from __future__ import annotations

from typing import Any

from ..answer import AnswerEnv
from ..interactive import InteractiveEnv
from .tasks import REPLAY_OPTIONS, item_info, with_options


def _explicit_options(kwargs: dict) -> tuple[str, ...]:
    return tuple(k for k in REPLAY_OPTIONS if k in kwargs)


def _replayed(env, inst, options):
    """``inst`` with the env's explicit options when it was passed in through ``options``."""
    if options and options.get("instance") is not None and env._explicit:
        inst = with_options(env.task, inst, {k: env.params[k] for k in env._explicit if k in env.params})
        env.instance = inst
    return inst


def _info(env, info: dict) -> dict:
    if env.instance is not None:
        info.update(item_info(env.instance))
    return info


def _doc(base: type) -> str:
    """``base``'s manual sections, its Rewards and Arguments left to the task's manual, plus ``info``."""
    import inspect
    import re

    parts = re.split(r"(?m)^(## .+)$", inspect.cleandoc(base.__doc__ or ""))
    keep = [parts[0]] + [h + b for h, b in zip(parts[1::2], parts[2::2])
                         if h.strip() not in ("## Rewards", "## Arguments")]
    text = "".join(keep).rstrip()
    return text.replace("``verdict`` (the Verdict as a dict).", "``verdict`` (the Verdict as a dict). FineReason "
                        "adds ``puzzle``, ``depth``, ``source`` and, for a replayed reference row, ``defects``, "
                        "``defect_notes`` and ``explored_child`` (reference, oracle or none).") + "\n"


def _env_class(base: type, name: str) -> type:
    """``base`` (AnswerEnv or InteractiveEnv) with the replay options and the item's ``info``."""

    def __init__(self, task, env_id: str, **kwargs: Any):
        self._explicit = _explicit_options(kwargs)
        base.__init__(self, task, env_id, **kwargs)

    def _next_instance(self, seed, options):
        return _replayed(self, base._next_instance(self, seed, options), options)

    def _info_with_item(self) -> dict:
        return _info(self, base._info(self))

    return type(name, (base,), {"__doc__": _doc(base), "__module__": __name__, "__qualname__": name,
                                "__init__": __init__, "_next_instance": _next_instance, "_info": _info_with_item})


FineReasonAnswerEnv = _env_class(AnswerEnv, "FineReasonAnswerEnv")
FineReasonInteractiveEnv = _env_class(InteractiveEnv, "FineReasonInteractiveEnv")
