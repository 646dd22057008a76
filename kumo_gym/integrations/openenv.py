"""Any registered environment as an OpenEnv server, and the matching client.

``kumo-gym serve kumo_gym/KUMO-v0 --port 8000`` serves the environment over ``openenv-core``'s
server API: every WebSocket session (``/ws``) gets its own environment, ``reset`` starts an
episode (a seed, or a given ``instance``), ``step`` takes the model's reply, ``state`` tells
where the episode stands; ``/health``, ``/schema`` and ``/metadata`` are OpenEnv's own.
:class:`KumoGymEnvClient` is the client (async; ``.sync()`` for a blocking one), and
:class:`TRLEnvironment` is the shape TRL's ``GRPOTrainer(environment_factory=...)`` drives.

The wire types:

* :class:`KumoGymAction` ``{"text": reply, "reasoning": ..., "finish_reason": ...}``: in interactive
  mode one move, in answer mode the whole answer; the optional fields are those of
  :meth:`kumo_gym.wrappers.ChatEnv.step` (a separate reasoning channel; a ``length`` finish
  reason marks a cut-off answer).
* :class:`KumoGymObservation`: ``text`` (what the environment says now: the prompt after ``reset``,
  the feedback after a move), ``messages`` (the conversation so far, system part included, ready
  for a chat template), ``reward`` and ``done``, the episode's ``env_id``, ``instance_id``,
  ``difficulty``, ``mode``, ``optimal_steps``, and ``status``/``verdict`` of the last step.
* :class:`KumoGymState`: ``episode_id``, ``step_count``, ``env_id``, ``instance_id``, ``mode``,
  ``done``, ``total_reward`` and the final ``verdict``.

The instance itself (hidden truths, solutions) never leaves the server. Needs ``pip install
'kumo-gym[openenv]'``.
"""
from __future__ import annotations

import json
import uuid
from typing import Any

from ..core.deprecation import renamed
from ..core.errors import ConfigError
from . import require

require("openenv.core", "openenv", "the OpenEnv server and client")

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server import Action, Environment, Observation, State
from openenv.core.env_server.types import EnvironmentMetadata
from pydantic import Field


class KumoGymAction(Action):
    """The model's reply: one move (interactive mode) or the whole answer (answer mode)."""

    text: str = Field(..., description="the model's reply text")
    reasoning: str | None = Field(default=None, description="a separate reasoning channel, if the model has one")
    finish_reason: str | None = Field(default=None, description="'length' marks a reply cut off by the token limit")


class KumoGymObservation(Observation):
    """What the environment shows after ``reset`` or a step."""

    text: str = Field(default="", description="the prompt after reset, the environment's feedback after a step")
    messages: list[dict[str, Any]] = Field(default_factory=list,
                                           description="the conversation so far (system, user, assistant ...)")
    env_id: str = ""
    instance_id: str = ""
    difficulty: str | None = None
    mode: str = ""
    optimal_steps: int | None = None
    status: str | None = Field(default=None, description="the last step's status (legal, illegal, solved ...)")
    verdict: dict[str, Any] | None = Field(default=None, description="the final verdict when the episode ended")


class KumoGymState(State):
    """Where the episode stands (OpenEnv's ``state``)."""

    env_id: str = ""
    instance_id: str = ""
    mode: str = ""
    done: bool = False
    total_reward: float = 0.0
    verdict: dict[str, Any] | None = None


def _text(content) -> str:
    from ..wrappers.chat import message_text

    return message_text(content)


class KumoGymEnvironment(Environment):
    """The server side: one kumo_gym environment (through :class:`~kumo_gym.wrappers.ChatEnv`)
    per session. ``env_kwargs`` are ``gym.make``'s (difficulty, split, mode, sizes ...)."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # each session owns its environment; tasks hold no episode state

    def __init__(self, env_id: str, env_kwargs: dict | None = None):
        super().__init__()
        import gymnasium as gym

        import kumo_gym  # noqa: F401  (registers the ids)

        from ..core.registry import entry
        from ..wrappers.chat import ChatEnv

        kw = dict(env_kwargs or {})
        if kw.get("observation", "text") != "text":
            raise ConfigError("the OpenEnv server sends text observations; drop observation="
                              f"{kw['observation']!r} from the environment kwargs")
        self.env_id = entry(env_id).id
        self.mode = kw.get("mode") or entry(self.env_id).modes[0]
        self.chat = ChatEnv(gym.make(self.env_id, **kw))
        self._state = KumoGymState(env_id=self.env_id, mode=self.mode)
        self._info: dict = {}

    def reset(self, seed: int | None = None, episode_id: str | None = None, instance: Any = None,
              **kwargs: Any) -> KumoGymObservation:
        """A new episode: item ``seed`` of the environment, or ``instance`` (its dict or JSON text,
        e.g. a dataset row's ``instance`` column)."""
        options = None
        if instance is not None:
            from ..training.data import load_instance

            options = {"instance": load_instance(self.env_id, instance)}
        messages, info = self.chat.reset(seed=seed, options=options)
        self._info = info
        self._state = KumoGymState(episode_id=episode_id or str(uuid.uuid4()), step_count=0, env_id=self.env_id,
                                instance_id=str(info.get("instance_id", "")), mode=self.mode)
        return self._observation(messages, _text(messages[-1]["content"]), reward=None, done=False, info=info)

    def step(self, action: KumoGymAction, timeout_s: float | None = None, **kwargs: Any) -> KumoGymObservation:
        if self._state.episode_id is None:
            raise ConfigError("step before reset: start an episode with reset first")
        if self._state.done:
            raise ConfigError("the episode has ended; reset to start another")
        messages, reward, terminated, truncated, info = self.chat.step(
            action.text, reasoning=action.reasoning, finish_reason=action.finish_reason)
        done = bool(terminated or truncated)
        st = self._state
        st.step_count += 1
        st.total_reward += float(reward)
        st.done = done
        if done:
            st.verdict = info.get("verdict")
        return self._observation(messages, str(info.get("feedback", "")), reward=float(reward), done=done, info=info)

    def _observation(self, messages, text, reward, done, info) -> KumoGymObservation:
        verdict = info.get("verdict")
        return KumoGymObservation(
            text=text, messages=[{"role": m["role"], "content": _text(m["content"])} for m in messages],
            reward=reward, done=done, env_id=self.env_id, instance_id=str(self._info.get("instance_id", "")),
            difficulty=None if self._info.get("difficulty") is None else str(self._info.get("difficulty")),
            mode=self.mode, optimal_steps=self._info.get("optimal_steps"),
            status=info.get("status", (verdict or {}).get("status")) if reward is not None else None,
            verdict=verdict if done else None)

    @property
    def state(self) -> KumoGymState:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        import kumo_gym

        from ..core.registry import entry

        e = entry(self.env_id)
        return EnvironmentMetadata(name=self.env_id, description=e.summary, version=kumo_gym.__version__,
                                   author="kumo_gym")

    def close(self) -> None:
        self.chat.close()


def create_app(env_id: str, env_kwargs: dict | None = None, max_sessions: int = 16):
    """The FastAPI application serving ``env_id`` (one environment per WebSocket session)."""
    from openenv.core.env_server import create_fastapi_app

    KumoGymEnvironment(env_id, env_kwargs).close()  # bad ids and kwargs fail here, before the server starts

    def factory() -> KumoGymEnvironment:
        return KumoGymEnvironment(env_id, env_kwargs)

    return create_fastapi_app(factory, KumoGymAction, KumoGymObservation, max_concurrent_envs=max_sessions)


def serve(env_id: str, env_kwargs: dict | None = None, *, host: str = "127.0.0.1", port: int = 8000,
          max_sessions: int = 16, log_level: str = "warning") -> None:
    """Run the server until interrupted (``kumo-gym serve``)."""
    import uvicorn

    app = create_app(env_id, env_kwargs, max_sessions)
    print(f"serving {env_id} on http://{host}:{port} (OpenEnv: /ws, /reset, /step, /state, /health, /schema)",
          flush=True)
    uvicorn.run(app, host=host, port=port, log_level=log_level)


class KumoGymEnvClient(EnvClient[KumoGymAction, KumoGymObservation, KumoGymState]):
    """The client: ``async with KumoGymEnvClient(base_url="http://127.0.0.1:8000") as env`` then
    ``await env.reset(seed=0)``, ``await env.step(KumoGymAction(text=...))``, ``await env.state()``;
    ``KumoGymEnvClient(...).sync()`` gives the same calls without ``await``."""

    def _step_payload(self, action: KumoGymAction) -> dict[str, Any]:
        if isinstance(action, str):
            action = KumoGymAction(text=action)
        return action.model_dump(exclude_none=True, exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[KumoGymObservation]:
        obs = KumoGymObservation(**payload.get("observation", {}), reward=payload.get("reward"),
                              done=bool(payload.get("done", False)))
        return StepResult(observation=obs, reward=payload.get("reward"), done=bool(payload.get("done", False)))

    def _parse_state(self, payload: dict[str, Any]) -> KumoGymState:
        return KumoGymState(**payload)


class TRLEnvironment:
    """A served environment in the shape of TRL's ``GRPOTrainer(environment_factory=...)``.

    TRL makes one per rollout, calls :meth:`reset` with the dataset row (so a row built by
    :func:`kumo_gym.make_dataset` replays its ``instance`` on the server), exposes :meth:`move`
    to the model as a tool and rewards the rollout with :meth:`get_reward` (the episode's total
    reward)::

        GRPOTrainer(model=..., train_dataset=kumo_gym.make_dataset("kumo_gym/KUMO-v0", 64),
                    environment_factory=lambda: TRLEnvironment("http://127.0.0.1:8000"), ...)
    """

    def __init__(self, base_url: str):
        self.client = KumoGymEnvClient(base_url=base_url).sync()
        self.client.connect()
        self.result: Any = None  # the last StepResult; None before the first reset
        self.reward = 0.0

    def reset(self, instance: Any = None, seed: int | None = None, **row: Any) -> str | None:
        """Start the row's episode; returns nothing (the row's prompt already holds the opening)."""
        if isinstance(instance, dict):
            instance = json.dumps(instance)
        self.result = self.client.reset(**({"instance": instance} if instance is not None else {"seed": seed or 0}))
        self.reward = 0.0
        return None

    def move(self, move: str) -> str:
        """Make one move in the puzzle and read the environment's answer.

        Args:
            move: the move, written as the puzzle's instructions ask.

        Returns:
            The environment's feedback; it says when the episode is over.
        """
        if self.result is not None and self.result.done:
            return "The episode is over."
        self.result = self.client.step(KumoGymAction(text=move))
        self.reward += float(self.result.reward or 0.0)
        return self.result.observation.text

    def get_reward(self) -> float:
        return self.reward

    def close(self) -> None:
        self.client.close()


#: the old names, which read as the KUMO family's (``KumoEnvClient`` serves any environment)
__getattr__ = renamed(__name__, {"KumoAction": "KumoGymAction", "KumoObservation": "KumoGymObservation",
                                 "KumoState": "KumoGymState", "KumoEnvironment": "KumoGymEnvironment",
                                 "KumoEnvClient": "KumoGymEnvClient"})
