"""The types on the wire of ``kumo-gym serve``: what a ``step`` and a ``reset`` carry, what an
observation and a state hold (OpenEnv's protocol; :mod:`kumo_gym.integrations.serving`).

:mod:`kumo_gym.integrations.openenv` builds OpenEnv's ``KumoGymAction``, ``KumoGymObservation`` and
``KumoGymState`` from the ``*Fields`` models; the ``Wire*`` models are the same types without
OpenEnv installed, for the server's validation and its ``/schema``.
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ActionFields(BaseModel):
    """The model's reply: one move (interactive mode) or the whole answer (answer mode)."""

    text: str = Field(..., description="the model's reply text")
    reasoning: str | None = Field(default=None, description="a separate reasoning channel, if the model has one")
    finish_reason: str | None = Field(default=None, description="'length' marks a reply cut off by the token limit")


class ObservationFields(BaseModel):
    """What the environment shows after ``reset`` or a step."""

    text: str = Field(default="", description="the prompt after reset, the environment's feedback after a step")
    messages: list[dict[str, Any]] = Field(
        default_factory=list, description="the conversation so far (system, user, assistant ...); a reply of more "
                                          "than 32K characters is echoed cut, keeping both ends, the cut said in its text")
    env_id: str = ""
    instance_id: str = ""
    difficulty: str | None = None
    mode: str = ""
    optimal_steps: int | None = None
    status: str | None = Field(default=None, description="the last step's status (legal, illegal, solved ...)")
    verdict: dict[str, Any] | None = Field(default=None, description="the final verdict when the episode ended")


class StateFields(BaseModel):
    """Where the episode stands, beyond OpenEnv's ``episode_id`` and ``step_count``."""

    env_id: str = ""
    instance_id: str = ""
    mode: str = ""
    done: bool = False
    total_reward: float = 0.0
    verdict: dict[str, Any] | None = None


class WireAction(ActionFields):
    """A ``step`` message's ``data``: the action, no other key (OpenEnv's ``Action`` has ``metadata``)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    metadata: dict[str, Any] = Field(default_factory=dict, description="free-form; the environment ignores it")


class WireObservation(ObservationFields):
    """An observation as OpenEnv's ``Observation`` has it (``done``, ``reward``, ``metadata``)."""

    done: bool = False
    reward: float | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class WireState(StateFields):
    """The state as OpenEnv's ``State`` has it (``episode_id``, ``step_count``)."""

    episode_id: str | None = Field(default=None, description="the current episode's id (none before a reset)")
    step_count: int = Field(default=0, ge=0, description="steps taken in the current episode")


class ResetData(BaseModel):
    """A ``reset`` message's ``data``: item ``seed``, or a given ``instance``."""

    model_config = ConfigDict(extra="forbid")
    seed: int | None = Field(default=None, ge=0, strict=True, description="the item to play (default 0)")
    episode_id: str | None = Field(default=None, max_length=255, description="an id of the caller's choosing")
    instance: dict[str, Any] | str | None = Field(
        default=None, description="an instance to play (its dict or JSON text, e.g. a dataset row's `instance`)")
