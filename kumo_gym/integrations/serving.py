"""The environment server behind ``kumo-gym serve``: OpenEnv's wire protocol, built for trainers.

A trainer reaches the suite through one WebSocket session per rollout worker (TRL's
``environment_factory``, OpenEnv clients), often hundreds at once. The server speaks OpenEnv's
protocol (``/ws`` messages ``reset``/``step``/``state``/``close``, answered by ``observation``,
``state`` and ``error`` messages; ``/health``, ``/schema``, ``/metadata``, ``/openapi.json``,
``POST /reset``, and a ``POST /step`` that answers 409 because plain HTTP keeps no episode; OpenEnv's
``openenv validate --url`` passes) and is built as follows:

* **Processes.** ``workers`` server processes share one listening socket (uvicorn's supervisor;
  a worker that dies is replaced); the kernel hands each new connection to one of them, and the
  session stays there. In each process one event loop does the network I/O and one worker
  thread does everything else for a message, in arrival order: parsing the frame, the
  environment's ``reset``/``step``, building and serialising the reply. The loop stays free to
  accept, refuse, ping and reap while an environment works, and one process per core uses the
  machine.
* **Capacity.** At most ``max_sessions`` sessions at once, counted across the processes (a
  counter in shared memory). One more gets HTTP 503 at the handshake, with ``Retry-After`` and a
  JSON body that says why; the client library raises :class:`~kumo_gym.integrations.openenv.ServerAtCapacity`
  or waits, as its user chooses. A session is an open connection; its environment is made at
  its first ``reset``, so idle connections cost little.
* **Idle sessions** (no message for ``idle_timeout_s``) are closed with code 4408 and a reason
  that says so, which frees their places.
* **No input breaks a session.** Every frame gets a reply: a frame that is not a JSON object, a
  binary frame, nesting deeper than the parser allows, an unknown message type, an unknown or
  misspelled key, a value of the wrong type all get an ``error`` reply that names the problem,
  and the session goes on. Any action text reaches the environment as sent (its invalid-move
  policy answers it), and every reply is valid UTF-8 (lone surrogates, which no tokenizer emits,
  come back as U+FFFD). A long reply is cut in the echoed conversation (the first and last
  :data:`ECHO_KEEP` characters, the cut said in between), so observations never carry megabytes.
  Only what RFC 6455 makes fatal closes a connection: a text frame that is not UTF-8 (1007), a
  frame over ``max_message_mb`` (1009).
* **Logs.** One line per abnormal close (a client that vanished, a protocol error, a reaped idle
  session); nothing for a normal close.

The types on the wire are in :mod:`kumo_gym.integrations.wire`. This module does not import
``openenv``: a server process needs Starlette and uvicorn only, and starts without OpenEnv's web
interface (gradio), in a fraction of the time and memory.
"""
from __future__ import annotations

import asyncio
import difflib
import json
import logging
import os
import re
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ConfigError

#: sessions served at once unless told otherwise (a session's environment takes 0.2-1 MB)
DEFAULT_MAX_SESSIONS = 1024
#: seconds without a message after which a session is closed (0: never)
DEFAULT_IDLE_TIMEOUT_S = 600.0
#: the largest frame accepted, in MiB: a 10 MB action even when JSON escapes every character
DEFAULT_MAX_MESSAGE_MB = 64
#: the close code of a session reaped for idleness (4000-4999 are the application's; 408: timeout)
CLOSE_IDLE = 4408
#: the close code of a connection refused for capacity where the handshake cannot answer 503
CLOSE_CAPACITY = 1013
#: the close codes of a clean end: normal, going away, and the server's own restart (uvicorn's
#: shutdown). Not 1005: uvicorn reports a connection lost without a close frame as 1005.
NORMAL_CLOSES = frozenset({1000, 1001, 1012})
#: characters kept at each end of a long reply in the echoed conversation (the wire types say 32K)
ECHO_KEEP = 16_384
#: seconds a refused client is told to wait before trying again
RETRY_AFTER_S = 1
#: the message types a session understands
MESSAGE_TYPES = ("reset", "step", "state", "close")

log = logging.getLogger("kumo_gym.serve")

_SURROGATES = re.compile("[\ud800-\udfff]")
_DROPPED = "the connection dropped without a close frame"
_CLOSE_MEANINGS = {1002: "protocol error", 1003: "unsupported data", 1005: _DROPPED, 1006: _DROPPED,
                   1007: "a text frame that is not UTF-8", 1008: "policy violation", 1009: "a frame over the size limit",
                   1011: "server error or keepalive ping timeout"}


# --- one session ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Settings:
    """What every server process is told: the environment and the limits."""

    env_id: str
    env_kwargs: dict = field(default_factory=dict)
    max_sessions: int = DEFAULT_MAX_SESSIONS
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S
    workers: int = 1
    max_message_mb: float = DEFAULT_MAX_MESSAGE_MB
    log_level: str = "warning"


class Rejected(ConfigError):
    """A message the session refuses, with the OpenEnv error code to answer with."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def describe_close(code: int | None, reason: str | None = None) -> str:
    """A close code and reason as words: ``1006 (the connection dropped without a close frame)``."""
    if code is None:
        return "no close code"
    words = reason or _CLOSE_MEANINGS.get(code) or ("normal closure" if code == 1000 else "")
    return f"{code} ({words})" if words else str(code)


def _echo(text: str) -> str:
    """A reply as the echoed conversation carries it: whole, or both ends with the cut said."""
    if len(text) <= 2 * ECHO_KEEP + 200:
        return text
    cut = len(text) - 2 * ECHO_KEEP
    return (f"{text[:ECHO_KEEP]}\n[... {cut:,} characters cut here: the server echoes the first and last "
            f"{ECHO_KEEP:,} characters of a reply ...]\n{text[-ECHO_KEEP:]}")


def dumps(payload: Any) -> str:
    """JSON text that is valid UTF-8 whatever the strings in ``payload`` hold."""
    text = json.dumps(payload, ensure_ascii=False)
    return _SURROGATES.sub("\ufffd", text) if _SURROGATES.search(text) else text


def _short(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters: an error message never echoes megabytes."""
    text = repr(value) if not isinstance(value, str) or len(value) <= limit else repr(value[:limit]) + "..."
    return text if len(text) <= limit + 5 else text[:limit] + "..."


def _did_you_mean(word: Any, choices) -> str:
    """`` (did you mean 'seed'?)`` for a near miss, else nothing (and no work on a long word)."""
    if not isinstance(word, str) or len(word) > 40:
        return ""
    near = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _validation_message(what: str, err, valid: list[str]) -> str:
    """A pydantic error as one sentence that names the bad key or value and the valid keys."""
    parts = []
    order = {"extra_forbidden": 0, "missing": 1}  # a misspelled key first: it explains the missing one
    for e in sorted(err.errors(), key=lambda e: order.get(e["type"], 2)):
        loc = ".".join(str(p) for p in e["loc"])
        if e["type"] == "extra_forbidden":
            parts.append(f"unknown key {_short(loc)}{_did_you_mean(e['loc'][0], valid)}")
        elif e["type"] == "missing":
            parts.append(f"missing key {_short(loc)}")
        else:
            parts.append(f"{_short(loc)}: {e['msg'].lower()} (got {_kind(e.get('input'))})")
    return f"bad {what}: {'; '.join(parts)}; {what} takes {', '.join(valid)}"


def parse_frame(frame: str | bytes | None) -> dict:
    """The message in one frame, or :class:`Rejected` naming what is wrong with it."""
    if not isinstance(frame, str):
        raise Rejected("INVALID_JSON", "binary frames are not read: send each message as a JSON text frame")
    try:
        message = json.loads(frame)
    except RecursionError:
        raise Rejected("INVALID_JSON", "the JSON is nested too deeply to read") from None
    except ValueError as e:
        raise Rejected("INVALID_JSON", f"invalid JSON: {e}") from None
    if not isinstance(message, dict):
        raise Rejected("VALIDATION_ERROR", f"a message must be a JSON object such as "
                                           f'{{"type": "reset", "data": {{"seed": 0}}}}; got {_kind(message)}')
    kind = message.get("type")
    if kind not in MESSAGE_TYPES:
        got = "no 'type' key" if "type" not in message else f"type {_short(kind)}"
        raise Rejected("UNKNOWN_TYPE", f"unknown message: {got}{_did_you_mean(kind, MESSAGE_TYPES)}; a message's type is one of "
                                       f"{', '.join(MESSAGE_TYPES)}")
    extra = sorted(set(message) - {"type", "data"})
    if extra:
        raise Rejected("VALIDATION_ERROR", f"unknown key {_short(extra[0])} in a {kind} message; a message has the keys "
                                           "'type' and 'data'")
    data = message.get("data", {})
    if not isinstance(data, dict):
        raise Rejected("VALIDATION_ERROR", f"a {kind} message's 'data' must be a JSON object; got {_kind(data)}")
    if kind in ("state", "close") and data:
        raise Rejected("VALIDATION_ERROR", f"a {kind} message takes no data; got the keys {_short(sorted(data))}")
    return {"type": kind, "data": data}


class Session:
    """One client's environment and episode. Every method runs on its process's worker thread.

    ``reset``/``step`` return OpenEnv's reply payload ``{"observation": ..., "reward": ...,
    "done": ...}``; :meth:`handle` turns one frame into the reply frame.
    """

    def __init__(self, settings: Settings):
        self.settings = settings
        self.chat: Any = None  # the environment (a ChatEnv), made at the first reset
        self.mode = settings.env_kwargs.get("mode") or _default_mode(settings.env_id)
        self.state = self._fresh_state()
        self._info: dict = {}

    def _fresh_state(self) -> dict:
        from .wire import WireState

        return WireState(env_id=self.settings.env_id, mode=self.mode).model_dump()

    def _make(self):
        import gymnasium as gym

        import kumo_gym  # noqa: F401  (registers the ids)

        from ..wrappers.chat import ChatEnv

        return ChatEnv(gym.make(self.settings.env_id, **self.settings.env_kwargs))

    # -- the episode --

    def reset(self, seed: int | None = None, episode_id: str | None = None, instance: Any = None) -> dict:
        """A new episode: item ``seed`` of the environment, or ``instance`` (its dict or JSON text)."""
        options = None
        if instance is not None:
            from ..training.data import load_instance

            try:
                options = {"instance": load_instance(self.settings.env_id, instance)}
            except Exception as e:  # noqa: BLE001 - whatever a malformed instance raises is the caller's mistake
                raise Rejected("VALIDATION_ERROR", f"bad instance for {self.settings.env_id}: "
                                                   f"{type(e).__name__}: {e}") from None
        if self.chat is None:
            self.chat = self._make()
        messages, info = self.chat.reset(seed=seed, options=options)
        self._info = info
        from .wire import WireState

        self.state = WireState(episode_id=episode_id or str(uuid.uuid4()), env_id=self.settings.env_id,
                               instance_id=str(info.get("instance_id", "")), mode=self.mode).model_dump()
        from ..wrappers.chat import message_text

        return self._observation(messages, message_text(messages[-1]["content"]), reward=None, done=False, info=info)

    def step(self, text: str, reasoning: str | None = None, finish_reason: str | None = None) -> dict:
        """One move (or the answer); the environment's invalid-move policy answers any text."""
        st = self.state
        if st["episode_id"] is None:
            raise Rejected("EXECUTION_ERROR", "step before reset: start an episode with reset first")
        if st["done"]:
            raise Rejected("EXECUTION_ERROR", "the episode has ended; reset to start another")
        messages, reward, terminated, truncated, info = self.chat.step(text, reasoning=reasoning,
                                                                       finish_reason=finish_reason)
        done = bool(terminated or truncated)
        st["step_count"] += 1
        st["total_reward"] += float(reward)
        st["done"] = done
        if done:
            st["verdict"] = info.get("verdict")
        return self._observation(messages, str(info.get("feedback", "")), reward=float(reward), done=done, info=info)

    def _observation(self, messages, text, reward, done, info) -> dict:
        from ..wrappers.chat import message_text

        verdict = info.get("verdict")
        start = self._info
        observation = {
            "text": text,
            "messages": [{"role": m["role"], "content": _echo(message_text(m["content"])) if m["role"] == "assistant"
                          else message_text(m["content"])} for m in messages],
            "env_id": self.settings.env_id, "instance_id": str(start.get("instance_id", "")),
            "difficulty": None if start.get("difficulty") is None else str(start.get("difficulty")),
            "mode": self.mode, "optimal_steps": start.get("optimal_steps"),
            "status": info.get("status", (verdict or {}).get("status")) if reward is not None else None,
            "verdict": verdict if done else None,
        }
        return {"observation": observation, "reward": reward, "done": done}

    def close(self) -> None:
        if self.chat is not None:
            self.chat.close()
            self.chat = None

    def warm(self) -> None:
        """Make the environment and play one reset: imports and compiled kernels load now, not on
        a client's first call (and bad ids or kwargs fail here, before the server starts)."""
        self.reset(seed=0)
        self.state = self._fresh_state()

    # -- one frame --

    def handle(self, frame: str | bytes | None) -> tuple[str | None, bool]:
        """The reply to one frame (JSON text; None for ``close``) and whether to close the session."""
        from pydantic import ValidationError

        from .wire import ResetData, WireAction

        try:
            message = parse_frame(frame)
            kind, data = message["type"], message["data"]
            if kind == "close":
                return None, True
            if kind == "state":
                return dumps({"type": "state", "data": self.state}), False
            if kind == "reset":
                try:
                    args = ResetData.model_validate(data)
                except ValidationError as e:
                    raise Rejected("VALIDATION_ERROR",
                                   _validation_message("reset data", e, list(ResetData.model_fields))) from None
                payload = self.reset(**args.model_dump(exclude_unset=True))
            else:
                try:
                    action = WireAction.model_validate(data)
                except ValidationError as e:
                    raise Rejected("VALIDATION_ERROR",
                                   _validation_message("step data", e, list(WireAction.model_fields))) from None
                payload = self.step(action.text, reasoning=action.reasoning, finish_reason=action.finish_reason)
            return dumps({"type": "observation", "data": payload}), False
        except Rejected as e:
            return dumps({"type": "error", "data": {"message": str(e), "code": e.code}}), False
        except Exception as e:  # a fault of ours: say it, keep the session, log it once with its traceback
            log.exception("a %s message failed", _frame_type(frame))
            return dumps({"type": "error", "data": {"message": f"{type(e).__name__}: {e}",
                                                    "code": "EXECUTION_ERROR"}}), False


def _frame_type(frame) -> str:
    try:
        return str(json.loads(frame).get("type"))[:20]
    except Exception:  # noqa: BLE001 - only names the message in a log line
        return "malformed"


def _default_mode(env_id: str) -> str:
    from ..core.registry import entry

    return entry(env_id).modes[0]


def check_settings(env_id: str, env_kwargs: dict | None) -> dict:
    """The kwargs a server passes to ``gym.make``; a bad id or kwarg fails here, before any server starts."""
    from ..core.registry import entry

    kw = dict(env_kwargs or {})
    if kw.get("observation", "text") != "text":
        raise ConfigError("the server sends text observations; drop observation="
                          f"{kw['observation']!r} from the environment kwargs")
    entry(env_id)  # an unknown id, with the registered ones named
    return kw


# --- capacity across processes ----------------------------------------------------------------

class LocalCapacity:
    """The session count of a server in one process."""

    def __init__(self, limit: int):
        self.limit = limit
        self._active = 0

    def claim(self) -> int:
        return 0

    def acquire(self, slot: int) -> bool:
        if self._active >= self.limit:
            return False
        self._active += 1
        return True

    def release(self, slot: int) -> None:
        self._active -= 1

    def active(self) -> int:
        return self._active


class SharedCapacity:
    """The session count of several server processes, in shared memory.

    Each process claims a slot (its pid and its count); a slot whose process is gone is claimed
    again by the replacement, so a worker that dies does not keep its places."""

    def __init__(self, limit: int, processes: int):
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")  # uvicorn starts its workers with spawn
        self.limit = limit
        self._lock = ctx.Lock()
        slots = max(2 * processes, 8)  # room for replacements and SIGTTIN's extra workers
        self._pids = ctx.RawArray("q", slots)
        self._counts = ctx.RawArray("q", slots)

    def claim(self) -> int:
        with self._lock:
            for i, pid in enumerate(self._pids):
                if pid == 0 or not _alive(pid):
                    self._pids[i], self._counts[i] = os.getpid(), 0
                    return i
        raise RuntimeError("no free slot in the shared session count")

    def acquire(self, slot: int) -> bool:
        with self._lock:
            if self._total() >= self.limit:
                return False
            self._counts[slot] += 1
            return True

    def release(self, slot: int) -> None:
        with self._lock:
            self._counts[slot] -= 1

    def _total(self) -> int:
        # a worker that died keeps no places, even before its replacement claims its slot
        return sum(c for p, c in zip(self._pids, self._counts) if p and _alive(p))

    def active(self) -> int:
        with self._lock:
            return self._total()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- the application ----------------------------------------------------------------------------

def _log_close(message: dict, messages: int) -> None:
    """One line for a session that ended abnormally; nothing for a normal close."""
    code = message.get("code", 1000) if message.get("type") == "websocket.disconnect" else 1006
    if code not in NORMAL_CLOSES:
        log.warning("session closed abnormally: %s, after %d messages", describe_close(code, message.get("reason")),
                    messages)


class _Server:
    """The sessions of one server process."""

    def __init__(self, settings: Settings, capacity):
        self.settings = settings
        self.capacity = capacity
        self.slot = 0
        self.executor: ThreadPoolExecutor | None = None
        self.http_session: Session | None = None

    async def startup(self) -> None:
        _configure_logging(self.settings.log_level)
        self.slot = self.capacity.claim()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kumo-gym-env")
        self.http_session = Session(self.settings)
        await self.run(self.http_session.warm)

    async def shutdown(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)

    async def run(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

    async def websocket(self, ws) -> None:
        if not self.capacity.acquire(self.slot):
            await self._refuse(ws)
            return
        try:
            await self._session(ws)
        finally:
            self.capacity.release(self.slot)

    async def _refuse(self, ws) -> None:
        from starlette.responses import JSONResponse

        limit = self.settings.max_sessions
        message = (f"server at capacity: {limit} of {limit} sessions open; retry later, or start the server with a "
                   "higher --max-sessions")
        if "websocket.http.response" in ws.scope.get("extensions", {}):
            await ws.send_denial_response(JSONResponse(
                {"detail": message, "code": "CAPACITY_REACHED", "max_sessions": limit}, status_code=503,
                headers={"Retry-After": str(RETRY_AFTER_S)}))
        else:  # a server without the denial extension: accept, then close with "try again later"
            await ws.accept()
            await ws.close(CLOSE_CAPACITY, f"server at capacity ({limit} sessions); retry later")

    async def _session(self, ws) -> None:
        from starlette.websockets import WebSocketDisconnect

        await ws.accept()
        session = Session(self.settings)
        idle = self.settings.idle_timeout_s or None
        messages = 0
        try:
            while True:
                try:
                    message = await asyncio.wait_for(ws.receive(), idle)
                except asyncio.TimeoutError:
                    log.warning("session closed: idle for more than %g s (code %d), after %d messages",
                                idle, CLOSE_IDLE, messages)
                    await ws.close(CLOSE_IDLE, f"idle for more than {idle:g} s; the session is closed")
                    return
                if message["type"] == "websocket.disconnect":
                    _log_close(message, messages)
                    return
                messages += 1
                frame = message.get("text") if message.get("text") is not None else message.get("bytes")
                reply, close = await self.run(session.handle, frame)
                try:
                    if close:
                        await ws.close(1000)
                        return
                    await ws.send_text(reply)
                except WebSocketDisconnect:  # the connection ended while we answered: how, the client's close says
                    try:
                        message = await asyncio.wait_for(ws.receive(), 5)
                    except Exception:  # noqa: BLE001 - nothing more to read: it dropped
                        message = {"type": "websocket.disconnect", "code": 1006}
                    _log_close(message, messages)
                    return
        finally:
            if session.chat is not None and self.executor is not None:
                self.executor.submit(session.close)

    # -- plain HTTP --

    def health(self) -> dict:
        return {"status": "healthy", "sessions": self.capacity.active(), "max_sessions": self.settings.max_sessions,
                "workers": self.settings.workers, "pid": os.getpid()}

    def metadata(self) -> dict:
        import kumo_gym

        from ..core.registry import entry

        return {"name": self.settings.env_id, "description": entry(self.settings.env_id).summary,
                "readme_content": None, "version": kumo_gym.__version__, "author": "kumo_gym",
                "documentation_url": None}

    async def http_reset(self, body: bytes) -> tuple[int, dict]:
        """``POST /reset``: a fresh episode's opening, no session kept (as OpenEnv's plain HTTP)."""
        from pydantic import ValidationError

        from .wire import ResetData

        def work():
            try:
                payload = json.loads(body) if body.strip() else {}
            except (ValueError, RecursionError) as e:
                return 400, {"detail": f"the body must be a JSON object of reset arguments: {e}"}
            if not isinstance(payload, dict):
                return 400, {"detail": f"the body must be a JSON object of reset arguments; got {_kind(payload)}"}
            try:
                args = ResetData.model_validate(payload)
            except ValidationError as e:
                return 422, {"detail": _validation_message("reset data", e, list(ResetData.model_fields))}
            session = self.http_session
            assert session is not None  # made at startup
            try:
                return 200, session.reset(**args.model_dump(exclude_unset=True))
            except Rejected as e:
                return 422, {"detail": str(e)}
            finally:
                session.state = session._fresh_state()

        return await self.run(work)


_STEP_OVER_HTTP = ("plain HTTP keeps no episode: each request would get a fresh environment, with nothing to step. "
                   "Play episodes over a WebSocket session at /ws (kumo_gym.integrations.openenv.KumoGymEnvClient, "
                   "OpenEnv's GenericEnvClient): send a reset message, then step messages.")


def create_app(env_id: str, env_kwargs: dict | None = None, max_sessions: int = DEFAULT_MAX_SESSIONS, *,
               idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S, log_level: str = "warning", capacity=None,
               workers: int = 1):
    """The ASGI application serving ``env_id``: one environment per WebSocket session at ``/ws``."""
    settings = Settings(env_id=env_id, env_kwargs=check_settings(env_id, env_kwargs), max_sessions=max_sessions,
                        idle_timeout_s=idle_timeout_s, workers=workers, log_level=log_level)
    return AppFactory(settings, capacity or LocalCapacity(max_sessions))()


@dataclass
class AppFactory:
    """Builds a server process's application (uvicorn calls it in each worker process)."""

    settings: Settings
    capacity: Any

    def __call__(self):
        from contextlib import asynccontextmanager

        from starlette.applications import Starlette
        from starlette.responses import Response
        from starlette.routing import Route, WebSocketRoute

        from .wire import WireAction, WireObservation, WireState

        server = _Server(self.settings, self.capacity)

        def reply(payload: Any, status: int = 200) -> Response:
            return Response(dumps(payload), status_code=status, media_type="application/json")

        @asynccontextmanager
        async def lifespan(app):
            await server.startup()
            try:
                yield
            finally:
                await server.shutdown()

        async def health(request):
            return reply(server.health())

        async def metadata(request):
            return reply(server.metadata())

        async def schema(request):
            return reply({"action": WireAction.model_json_schema(), "observation": WireObservation.model_json_schema(),
                          "state": WireState.model_json_schema()})

        async def state(request):
            """A fresh session's state: an episode's state belongs to its WebSocket session."""
            return reply(Session(self.settings).state)

        async def reset(request):
            status, payload = await server.http_reset(await request.body())
            return reply(payload, status)

        async def step(request):
            await request.body()  # read it, so that the keep-alive connection stays usable
            return reply({"detail": _STEP_OVER_HTTP, "code": "NEEDS_WEBSOCKET_SESSION"}, 409)

        async def mcp(request):
            """JSON-RPC as OpenEnv's ``/mcp`` speaks it; this environment offers no MCP tools."""
            try:
                call = json.loads(await request.body())
            except (ValueError, RecursionError):
                return reply({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
            rid = call.get("id") if isinstance(call, dict) else None
            return reply({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": _NO_MCP}})

        async def openapi(request):
            return reply(_openapi(self.settings.env_id))

        return Starlette(lifespan=lifespan, routes=[
            Route("/health", health), Route("/metadata", metadata), Route("/schema", schema),
            Route("/state", state), Route("/reset", reset, methods=["POST"]), Route("/step", step, methods=["POST"]),
            Route("/mcp", mcp, methods=["POST"]), Route("/openapi.json", openapi),
            WebSocketRoute("/ws", server.websocket)])


_NO_MCP = ("this environment offers no MCP tools: play episodes over the WebSocket /ws (reset, step, state "
           "messages)")


def _openapi(env_id: str) -> dict:
    """The HTTP endpoints as OpenAPI 3.1, version 1.0.0 of OpenEnv's HTTP API (its simulation mode:
    /reset, /step, /state), for OpenEnv's ``validate`` and API browsers. The WebSocket /ws, where
    episodes run, is described in ``info.description``."""
    from .wire import ResetData, WireState

    def op(summary: str, status: int = 200, body: dict | None = None) -> dict:
        out = {"summary": summary, "responses": {str(status): {"description": summary}}}
        if body is not None:
            out["requestBody"] = {"content": {"application/json": {"schema": body}}}
        return out

    return {"openapi": "3.1.0",
            "info": {"title": f"kumo_gym {env_id}", "version": "1.0.0",
                     "description": "An OpenEnv environment server. Episodes run over the WebSocket /ws: send "
                                    '{"type": "reset", "data": {"seed": 0}}, then {"type": "step", "data": {"text": '
                                    '...}} messages; {"type": "state"} and {"type": "close"}. GET /schema gives the '
                                    "types."},
            "paths": {"/health": {"get": op("health, open sessions and the session limit")},
                      "/metadata": {"get": op("the environment's name and description")},
                      "/schema": {"get": op("JSON schemas of the action, the observation and the state")},
                      "/state": {"get": op("a fresh session's state (an episode's state is its WebSocket session's)")},
                      "/reset": {"post": op("a fresh episode's opening; no session is kept",
                                            body=ResetData.model_json_schema())},
                      "/step": {"post": op("409: plain HTTP keeps no episode; step over the WebSocket /ws", 409)},
                      "/mcp": {"post": op("JSON-RPC; this environment offers no MCP tools")}},
            "components": {"schemas": {"State": WireState.model_json_schema()}}}


# --- running it -------------------------------------------------------------------------------

class _UvicornNoise(logging.Filter):
    """Two records of uvicorn's that would break the one-line-per-abnormal-close rule: a client's
    invalid UTF-8 text frame, logged with a traceback (the session's own line, code 1007, says it),
    and "returned without completing handshake", which its websockets-sansio protocol logs after
    every denial response (the 503 of a server at capacity), a handshake answered on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        msg = str(record.msg)
        return "Invalid UTF-8" not in msg and "returned without completing handshake" not in msg


def _configure_logging(level: str) -> None:
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s: kumo-gym serve [%(process)d] %(message)s"))
        log.addHandler(handler)
        log.propagate = False
    log.setLevel(level.upper())
    uvicorn_error = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _UvicornNoise) for f in uvicorn_error.filters):
        uvicorn_error.addFilter(_UvicornNoise())


def _raise_fd_limit(needed: int) -> None:
    """One descriptor per session: raise the soft limit toward the hard one where it is short."""
    try:
        import resource
    except ImportError:  # not on this platform
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        if target < needed:
            log.warning("the open-file limit (%d) is below the %d that --max-sessions needs", target, needed)


def serve(env_id: str, env_kwargs: dict | None = None, *, host: str = "127.0.0.1", port: int = 8000,
          workers: int = 1, max_sessions: int = DEFAULT_MAX_SESSIONS, idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
          max_message_mb: float = DEFAULT_MAX_MESSAGE_MB, log_level: str = "warning") -> None:
    """Run the server until interrupted (``kumo-gym serve``)."""
    from . import require

    uvicorn = require("uvicorn", "openenv", "the environment server")
    require("starlette", "openenv", "the environment server")
    settings = Settings(env_id=env_id, env_kwargs=check_settings(env_id, env_kwargs), max_sessions=max_sessions,
                        idle_timeout_s=idle_timeout_s, workers=workers, max_message_mb=max_message_mb,
                        log_level=log_level)
    Session(settings).warm()  # bad kwargs fail here, before the server starts
    _configure_logging(log_level)
    _raise_fd_limit(max_sessions + 256)
    capacity = LocalCapacity(max_sessions) if workers == 1 else SharedCapacity(max_sessions, workers)
    config = uvicorn.Config(AppFactory(settings, capacity), factory=True, host=host, port=port, workers=workers,
                            ws_max_size=int(max_message_mb * 2**20), log_level=log_level, access_log=False,
                            lifespan="on", timeout_graceful_shutdown=5)
    print(f"serving {env_id} on http://{host}:{port} with {workers} worker process{'es' if workers > 1 else ''}, "
          f"up to {max_sessions} sessions (OpenEnv: /ws, /reset, /state, /health, /schema, /metadata)", flush=True)
    if workers == 1:
        uvicorn.Server(config).run()
    else:
        import inspect

        from uvicorn.supervisors import Multiprocess

        sockets = [config.bind_socket()]
        if "target" in inspect.signature(Multiprocess).parameters:  # older uvicorn takes the worker's target too
            Multiprocess(config, target=uvicorn.Server(config).run, sockets=sockets).run()
        else:
            Multiprocess(config, sockets=sockets).run()
