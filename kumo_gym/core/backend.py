"""The model-backend interface: what any component that asks a language model relies on.

Implementations live in ``kumo_gym.training.backends`` (OpenAI-compatible HTTP client, local
transformers model, tiny local model, oracle and random agents). Families and the analysis
pipeline depend only on this protocol, so they never import torch or an HTTP client.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


@dataclass
class ChatResult:
    """One model reply: the visible ``text``, a separate ``reasoning`` channel when the server
    returns one, why generation stopped (``"stop"``/``"length"``), and token usage."""

    text: str
    reasoning: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    extra: dict = field(default_factory=dict)


@runtime_checkable
class ChatBackend(Protocol):
    """Anything that answers a list of chat messages."""

    def chat(self, messages: list[dict], *, max_tokens: int | None = None, temperature: float | None = None,
             n: int = 1, **kwargs) -> list[ChatResult]:
        """``n`` replies to ``messages`` (each ``{"role": ..., "content": ...}``)."""
        ...
