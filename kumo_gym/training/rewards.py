"""Reward functions with TRL's signature, built from our verifiers.

TRL calls ``reward(prompts=..., completions=..., **dataset_columns)``; our datasets carry the
columns ``env_id`` and ``instance`` (JSON text), so one function scores a mix of environments.
Multi-turn rollouts (:mod:`kumo_gym.training.grpo`) have already played the episode in the
environment; they pass its final verdict as the extra column ``kumo_verdict``, which then
replaces scoring the completion text.
"""
from __future__ import annotations

from ..core.errors import check_choice
from ..core.verdict import Verdict
from .data import score

KINDS = ("binary", "partial", "format")


def completion_text(completion) -> str:
    """The text of a completion: a string, or the last assistant message of a conversation."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content", ""))
    if isinstance(completion, (list, tuple)):
        for msg in reversed(completion):
            if isinstance(msg, dict) and msg.get("role", "assistant") == "assistant":
                return str(msg.get("content", ""))
    return "" if completion is None else str(completion)


def verdict_reward(verdict: Verdict, kind: str) -> float:
    if kind == "binary":
        return float(verdict.reward)
    if kind == "partial":
        return float(verdict.score)
    return 0.0 if verdict.status in ("parse_error", "truncated") else 1.0


def make_reward_function(env_id: str | None = None, kind: str = "binary"):
    """``reward(prompts, completions, **columns) -> list[float]``.

    ``kind``: ``binary`` (1 iff solved), ``partial`` (fraction of constraints met) or ``format``
    (1 iff an answer could be read). The function's ``__name__`` is ``kumo_<kind>`` so TRL logs
    each component under its own name.
    """
    check_choice("kind", kind, KINDS)

    def reward(prompts=None, completions=None, instance=None, env_id_column=None, **columns):
        ids = columns.get("env_id")
        played = columns.get("kumo_verdict")
        out = []
        for i, comp in enumerate(completions or []):
            eid = env_id or (ids[i] if ids is not None else None)
            try:
                if played is not None and played[i] is not None:
                    v = Verdict.from_dict(played[i])
                else:
                    v = score(eid, instance[i], completion_text(comp))
            except Exception as e:  # a broken row must not kill a training run; it scores 0
                v = Verdict("parse_error", f"could not score: {e}")
            out.append(verdict_reward(v, kind))
        return out

    reward.__name__ = f"kumo_{kind}"
    return reward
