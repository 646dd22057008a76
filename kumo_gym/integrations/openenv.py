"""Any registered environment as an OpenEnv server, and the matching client.

``kumo-gym serve kumo_gym/KUMO-v0 --port 8000`` serves the environment with OpenEnv's protocol
(:mod:`kumo_gym.integrations.serving`: worker processes, capacity, idle sessions, faults): every
WebSocket session (``/ws``) gets its own environment, ``reset`` starts an episode (a seed, or a
given ``instance``), ``step`` takes the model's reply, ``state`` tells where the episode stands;
``/health``, ``/schema`` and ``/metadata`` answer as in every OpenEnv environment.
:class:`KumoGymEnvClient` is the client (async; ``.sync()`` for a blocking one), and
:class:`TRLEnvironment` is the shape TRL's ``GRPOTrainer(environment_factory=...)`` drives.

The wire types:

* :class:`KumoGymAction` ``{"text": reply, "reasoning": ..., "finish_reason": ...}``: in interactive
  mode one move, in answer mode the whole answer; the optional fields are those of
  :meth:`kumo_gym.wrappers.ChatEnv.step` (a separate reasoning channel; a ``length`` finish
  reason marks a cut-off answer).
* :class:`KumoGymObservation`: ``text`` (what the environment says now: the prompt after ``reset``,
  the feedback after a move), ``messages`` (the conversation so far, system part included, ready
  for a chat template; a reply of megabytes comes back cut, the cut said), ``reward`` and
  ``done``, the episode's ``env_id``, ``instance_id``, ``difficulty``, ``mode``,
  ``optimal_steps``, and ``status``/``verdict`` of the last step.
* :class:`KumoGymState`: ``episode_id``, ``step_count``, ``env_id``, ``instance_id``, ``mode``,
  ``done``, ``total_reward`` and the final ``verdict``.

What the client does when the server or the network fails:

* **At capacity** the server refuses the session (HTTP 503, ``Retry-After``): the client raises
  :class:`ServerAtCapacity`, or with ``wait_for_capacity_s`` waits that long for a place.
* **A dropped connection** (the network, a restarted server, a session closed for idleness):
  the next call reconnects (``retries`` attempts, backoff from ``backoff_s`` doubling). An
  episode that was in flight is gone with the server's session; the client never replays its
  moves: ``step`` raises :class:`EpisodeLost` (with the close code and reason), and ``reset``
  starts the next episode on a new session.
* An ``error`` reply (a bad message, a step after the end) raises :class:`ServerError`; the
  session goes on.

The instance itself (hidden truths, solutions) never leaves the server. Needs ``pip install
'kumo-gym[openenv]'``.
"""
from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from typing import Any
from urllib.parse import urlsplit

from ..core.deprecation import renamed
from ..core.errors import ConfigError
from . import require
from .serving import Session, Settings, check_settings, create_app, describe_close, serve
from .wire import ActionFields, ObservationFields, StateFields

require("openenv.core", "openenv", "the OpenEnv server and client")

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server import Action, Environment, Observation, State
from openenv.core.env_server.types import EnvironmentMetadata

__all__ = ["EpisodeLost", "KumoGymAction", "KumoGymEnvClient", "KumoGymEnvironment", "KumoGymObservation", "KumoGymState",
           "ServerAtCapacity", "ServerError", "TRLEnvironment", "create_app", "serve"]

log = logging.getLogger("kumo_gym.openenv")


class KumoGymAction(Action, ActionFields):
    """The model's reply: one move (interactive mode) or the whole answer (answer mode)."""


class KumoGymObservation(Observation, ObservationFields):
    """What the environment shows after ``reset`` or a step."""


class KumoGymState(State, StateFields):
    """Where the episode stands (OpenEnv's ``state``)."""


class KumoGymEnvironment(Environment):
    """The server side as an OpenEnv ``Environment``: one kumo_gym environment (through
    :class:`~kumo_gym.wrappers.ChatEnv`) per session, for OpenEnv's own ``create_app``.
    ``env_kwargs`` are ``gym.make``'s (difficulty, split, mode, sizes ...). ``kumo-gym serve``
    plays the same episodes (:class:`~kumo_gym.integrations.serving.Session`)."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # each session owns its environment; tasks hold no episode state

    def __init__(self, env_id: str, env_kwargs: dict | None = None):
        super().__init__()
        from ..core.registry import entry

        self.env_id = entry(env_id).id
        self.session = Session(Settings(env_id=self.env_id, env_kwargs=check_settings(self.env_id, env_kwargs)))
        self.mode = self.session.mode

    def reset(self, seed: int | None = None, episode_id: str | None = None, instance: Any = None,
              **kwargs: Any) -> KumoGymObservation:
        """A new episode: item ``seed`` of the environment, or ``instance`` (its dict or JSON text,
        e.g. a dataset row's ``instance`` column)."""
        if kwargs:
            raise ConfigError(f"unknown reset argument {min(kwargs)!r}; reset takes seed, episode_id, instance")
        return self._observation(self.session.reset(seed=seed, episode_id=episode_id, instance=instance))

    def step(self, action: KumoGymAction, timeout_s: float | None = None, **kwargs: Any) -> KumoGymObservation:
        return self._observation(self.session.step(action.text, reasoning=action.reasoning,
                                                   finish_reason=action.finish_reason))

    @staticmethod
    def _observation(payload: dict) -> KumoGymObservation:
        return KumoGymObservation(**payload["observation"], reward=payload["reward"], done=payload["done"])

    @property
    def state(self) -> KumoGymState:
        return KumoGymState(**self.session.state)

    def get_metadata(self) -> EnvironmentMetadata:
        import kumo_gym

        from ..core.registry import entry

        return EnvironmentMetadata(name=self.env_id, description=entry(self.env_id).summary,
                                   version=kumo_gym.__version__, author="kumo_gym")

    def close(self) -> None:
        self.session.close()


# --- the client -------------------------------------------------------------------------------

class ServerAtCapacity(ConnectionError):
    """The server has no place for another session (it answered HTTP 503)."""

    def __init__(self, message: str, retry_after_s: float | None = None):
        super().__init__(message)
        self.retry_after_s = retry_after_s


class EpisodeLost(ConnectionError):
    """The connection closed during an episode: the server's copy of it is gone, and the client
    does not replay its moves. ``reset`` starts the next episode on a new session."""

    def __init__(self, message: str, close_code: int | None = None):
        super().__init__(message)
        self.close_code = close_code


class ServerError(RuntimeError):
    """The server answered a message with an error (a bad message, a step after the end); the
    session goes on. ``code`` is OpenEnv's error code (``VALIDATION_ERROR``, ``EXECUTION_ERROR`` ...)."""

    def __init__(self, message: str, code: str):
        super().__init__(f"Server error: {message} (code: {code})")
        self.detail = message
        self.code = code


def _loopback(url: str) -> bool:
    return (urlsplit(url).hostname or "") in ("localhost", "127.0.0.1", "::1")


def _retry_after(headers) -> float:
    try:
        return max(0.0, float(headers.get("Retry-After", 1)))
    except (TypeError, ValueError):  # an HTTP date or nonsense: a second
        return 1.0


def _refusal_detail(response) -> str:
    try:
        return str(json.loads(response.body)["detail"])
    except Exception:  # noqa: BLE001 - a body that is not our JSON: shown as text
        return (response.body or b"").decode("utf-8", "replace")[:300] or response.reason_phrase


class KumoGymEnvClient(EnvClient[KumoGymAction, KumoGymObservation, KumoGymState]):
    """The client: ``async with KumoGymEnvClient(base_url="http://127.0.0.1:8000") as env`` then
    ``await env.reset(seed=0)``, ``await env.step(KumoGymAction(text=...))``, ``await env.state()``;
    ``KumoGymEnvClient(...).sync()`` gives the same calls without ``await``.

    ``wait_for_capacity_s``: how long to wait for a place when the server is at capacity (0, the
    default: raise :class:`ServerAtCapacity` at once; ``None``: wait as long as it takes).
    ``retries`` and ``backoff_s``: connection attempts after a failed one, the first after
    ``backoff_s`` seconds, each wait twice the last (at most 30 s). Other keywords are
    OpenEnv's ``EnvClient``'s (``connect_timeout_s``, ``message_timeout_s`` ...).
    """

    _ws: Any  # OpenEnv's: the websockets connection, or None

    def __init__(self, base_url: str, *, wait_for_capacity_s: float | None = 0.0, retries: int = 4,
                 backoff_s: float = 0.5, **kwargs: Any):
        super().__init__(base_url, **kwargs)
        if retries < 0 or backoff_s < 0 or (wait_for_capacity_s is not None and wait_for_capacity_s < 0):
            raise ConfigError(f"retries ({retries}), backoff_s ({backoff_s}) and wait_for_capacity_s "
                              f"({wait_for_capacity_s}) cannot be negative")
        self.wait_for_capacity_s = math.inf if wait_for_capacity_s is None else float(wait_for_capacity_s)
        self.retries = retries
        self.backoff_s = backoff_s
        self._in_episode = False  # a reset answered, the episode not over
        self._lost: EpisodeLost | None = None  # the episode the last drop took, until the next reset

    def _backoff(self, failures: int) -> float:
        return min(self.backoff_s * 2 ** (failures - 1), 30.0)

    async def connect(self) -> KumoGymEnvClient:
        """Open the session: reconnects after a drop, waits for capacity as told, retries a
        refused or failed connection ``retries`` times."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidHandshake, InvalidStatus
        from websockets.protocol import State as WsState

        current = self._ws
        if current is not None:
            if current.state is WsState.OPEN:
                return self
            self._ws = None
        failures, waited, give_up_at = 0, 0.0, time.monotonic() + self.wait_for_capacity_s
        while True:
            try:
                self._ws = await connect(self._ws_url, open_timeout=self._connect_timeout,
                                         max_size=self._max_message_size, proxy=None if _loopback(self._ws_url) else True)
                return self
            except InvalidStatus as e:
                status, detail = e.response.status_code, _refusal_detail(e.response)
                if status != 503:
                    raise ConnectionError(f"{self._ws_url} refused the session: HTTP {status}: {detail}") from None
                pause = _retry_after(e.response.headers)
                if time.monotonic() + pause > give_up_at:
                    how = (f" (waited {waited:.0f} s)" if waited else
                           "; pass wait_for_capacity_s= to wait for a place")
                    raise ServerAtCapacity(f"{self._ws_url}: {detail}{how}", retry_after_s=pause) from None
                await asyncio.sleep(pause)
                waited += pause
            except (OSError, TimeoutError, asyncio.TimeoutError, InvalidHandshake) as e:
                failures += 1
                if failures > self.retries:
                    raise ConnectionError(f"could not connect to {self._ws_url} ({failures} attempts): "
                                          f"{type(e).__name__}: {e}") from e
                await asyncio.sleep(self._backoff(failures))

    def _drop(self, code: int | None, reason: str | None) -> EpisodeLost | None:
        """Forget the closed connection; the episode in flight, if any, is lost."""
        self._ws = None
        if not self._in_episode:
            return None
        self._in_episode = False
        self._lost = EpisodeLost(
            f"the connection to {self._ws_url} closed during an episode ({describe_close(code, reason)}): the "
            "episode is lost with the server's session, and the client does not replay it; reset starts the next "
            "one (the client reconnects)", close_code=code)
        log.warning("%s", self._lost)
        return self._lost

    async def _send_and_receive(self, message: dict[str, Any]) -> dict[str, Any]:
        from websockets.exceptions import ConnectionClosed
        from websockets.protocol import State as WsState

        kind = message.get("type")
        if kind == "step" and self._lost is not None:
            raise self._lost
        drops = 0
        while True:
            current = self._ws
            if current is not None and current.state is not WsState.OPEN:  # closed by the server since the last call
                lost = self._drop(current.close_code, current.close_reason)
                if lost is not None and kind != "reset":
                    raise lost
            await self.connect()
            ws = self._ws
            assert ws is not None  # connect() opened it or raised
            try:
                await ws.send(json.dumps(message))
                raw = await asyncio.wait_for(ws.recv(), timeout=self._message_timeout)
                break
            except ConnectionClosed as e:
                close = e.rcvd
                lost = self._drop(close.code if close else 1006, close.reason if close else None)
                if lost is not None and kind != "reset":
                    raise lost from None
                drops += 1
                if drops > self.retries:
                    raise ConnectionError(f"the connection to {self._ws_url} closed {drops} times in a row "
                                          f"({describe_close(close.code if close else 1006)})") from None
                await asyncio.sleep(self._backoff(drops))
            except asyncio.TimeoutError:  # (TimeoutError itself from Python 3.11)
                # no reply in time: the session is in an unknown state, so it is given up
                self._ws = None
                await ws.close()
                lost = self._drop(None, f"no reply in {self._message_timeout:g} s")
                raise lost or TimeoutError(f"no reply from {self._ws_url} in {self._message_timeout:g} s") from None
        response = json.loads(raw)
        if response.get("type") == "error":
            data = response.get("data") or {}
            raise ServerError(str(data.get("message", "unknown error")), str(data.get("code", "UNKNOWN")))
        if kind == "reset":
            self._in_episode, self._lost = True, None
        elif kind == "step":
            self._in_episode = not response.get("data", {}).get("done", False)
        return response

    async def disconnect(self) -> None:
        await super().disconnect()
        self._in_episode = False

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


_LOST_TEXT = ("The connection to the environment server was lost, and this episode with it: it is over. "
              "No further moves can be made.")


class TRLEnvironment:
    """A served environment in the shape of TRL's ``GRPOTrainer(environment_factory=...)``.

    TRL keeps a pool of these and calls :meth:`reset` with each dataset row (so a row built by
    :func:`kumo_gym.make_dataset` replays its ``instance`` on the server), exposes :meth:`move`
    to the model as a tool (every public method but ``reset`` and ``get_reward`` is one) and
    rewards the rollout with :meth:`get_reward` (the episode's total reward)::

        GRPOTrainer(model=..., train_dataset=kumo_gym.make_dataset("kumo_gym/KUMO-v0", 64),
                    environment_factory=lambda: TRLEnvironment("http://127.0.0.1:8000"), ...)

    A dropped connection costs one episode at most: :meth:`move` tells the model the episode is
    over, :attr:`lost` says why, :meth:`get_reward` is what the episode earned before, and the
    next :meth:`reset` reconnects. ``wait_for_capacity_s``, ``retries`` and ``backoff_s`` are
    :class:`KumoGymEnvClient`'s.
    """

    def __init__(self, base_url: str, *, wait_for_capacity_s: float | None = 0.0, retries: int = 4,
                 backoff_s: float = 0.5):
        self.client = KumoGymEnvClient(base_url=base_url, wait_for_capacity_s=wait_for_capacity_s, retries=retries,
                                    backoff_s=backoff_s).sync()
        self.client.connect()
        self.result: StepResult[KumoGymObservation] | None = None
        self.reward = 0.0
        self.lost: str | None = None  # why the current episode was lost, if it was

    def reset(self, instance: Any = None, seed: int | None = None, **row: Any) -> str | None:
        """Start the row's episode; returns nothing (the row's prompt already holds the opening)."""
        if isinstance(instance, dict):
            instance = json.dumps(instance)
        self.result, self.reward, self.lost = None, 0.0, None
        self.result = self.client.reset(**({"instance": instance} if instance is not None else {"seed": seed or 0}))
        return None

    def move(self, move: str) -> str:
        """Make one move in the puzzle and read the environment's answer.

        Args:
            move: the move, written as the puzzle's instructions ask.

        Returns:
            The environment's feedback; it says when the episode is over.
        """
        if self.lost is not None:
            return _LOST_TEXT
        if self.result is not None and self.result.done:
            return "The episode is over."
        try:
            result = self.client.step(KumoGymAction(text=move))
        except EpisodeLost as e:
            self.lost = str(e)
            return _LOST_TEXT
        self.result = result
        self.reward += float(result.reward or 0.0)
        return result.observation.text

    def get_reward(self) -> float:
        return self.reward

    # A property, not a method: TRL offers every public method to the model as a tool, and the
    # model must not be able to close its own session. ``env.close()`` works as usual.
    close = property(lambda self: self.client.close, doc="close the session (``env.close()``)")

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


#: the old names, which read as the KUMO family's (``KumoEnvClient`` serves any environment)
__getattr__ = renamed(__name__, {"KumoAction": "KumoGymAction", "KumoObservation": "KumoGymObservation",
                                 "KumoState": "KumoGymState", "KumoEnvironment": "KumoGymEnvironment",
                                 "KumoEnvClient": "KumoGymEnvClient"})
