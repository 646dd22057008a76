"""Model backends for the extraction pipeline: record, replay and cache (docs/specs/reasoning_graphs.md §5 "Backends").

The LLM stages talk to any :class:`kumo_gym.core.backend.ChatBackend` (``OpenAIChatBackend`` on
an OpenAI-compatible server, ``TransformersBackend`` for a local model). Three wrappers make
those calls reproducible and cheap:

- :class:`RecordingBackend` forwards every request to a real backend and writes each request
  and reply to a *cassette* (a JSON file);
- :class:`ReplayBackend` answers from a cassette, with no model and no network: the full
  pipeline runs offline and deterministically (tests, CI, re-running an analysis exactly);
- :class:`CachedBackend` keeps replies on disk, keyed by the request, so re-running an
  analysis costs nothing for the requests already made.

A request is keyed by the sha256 of its canonical JSON: the messages and the sampling
parameters (``max_tokens``, ``temperature``, ``n``, ``seed`` and any other keyword). The seed is
part of the key, so the repeated extractions of the stability analysis (different seeds) never
share a cache entry; :func:`uncached` unwraps a cache where a fresh call is wanted.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..core.backend import ChatResult

CASSETTE_FORMAT = "kumo_gym.cassette/v1"


class CassetteMiss(KeyError):
    """A replayed request that the cassette does not hold (the prompts or the trace changed)."""

    def __str__(self) -> str:  # KeyError quotes its argument; this message is meant to be read
        return str(self.args[0]) if self.args else "cassette miss"


def request_of(messages: list[dict], **params: Any) -> dict:
    """The canonical request: messages plus every sampling parameter that was set."""
    params = {k: v for k, v in params.items() if v is not None}
    params.setdefault("n", 1)
    return {"messages": [{"role": str(m.get("role")), "content": m.get("content")} for m in messages],
            "params": params}


def request_key(messages: list[dict], **params: Any) -> str:
    """sha256 (hex) of the canonical JSON of a request (see :func:`request_of`)."""
    blob = json.dumps(request_of(messages, **params), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def _result_json(r: ChatResult) -> dict:
    return {"text": r.text, "reasoning": r.reasoning, "finish_reason": r.finish_reason,
            "prompt_tokens": r.prompt_tokens, "completion_tokens": r.completion_tokens}


def _result(d: dict) -> ChatResult:
    return ChatResult(text=str(d.get("text", "")), reasoning=d.get("reasoning"), finish_reason=d.get("finish_reason"),
                      prompt_tokens=d.get("prompt_tokens"), completion_tokens=d.get("completion_tokens"))


def _preview(request: dict, chars: int = 160) -> dict:
    """What a cassette keeps of a request for a human reader (the key identifies it exactly)."""
    return {"params": request["params"],
            "messages": [{"role": m["role"], "content": str(m["content"])[:chars]} for m in request["messages"]]}


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # an ordinary file, not mkstemp's private 0600
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _model_of(backend: Any) -> str:
    return str(getattr(backend, "model", None) or type(backend).__name__)


class RecordingBackend:
    """Forwards each request to ``backend`` and records it in the cassette at ``path``.

    The cassette is rewritten (atomically) after every call, so an interrupted run keeps what
    it recorded. Recording into an existing cassette adds to it. ``share`` makes this recorder
    write into another recorder's cassette (a separate rule-model backend, for instance).
    """

    def __init__(self, backend: Any, path: str | os.PathLike, share: RecordingBackend | None = None):
        self.backend = backend
        self.path = Path(path)
        self.model = _model_of(backend)
        if share is not None:
            self.path, self._lock, self.interactions = share.path, share._lock, share.interactions
            return
        self._lock = threading.Lock()
        self.interactions: list[dict] = []
        if self.path.exists():
            self.interactions = load_cassette(self.path)["interactions"]

    def chat(self, messages: list[dict], *, max_tokens: int | None = None, temperature: float | None = None,
             n: int = 1, **kwargs: Any) -> list[ChatResult]:
        replies = self.backend.chat(messages, max_tokens=max_tokens, temperature=temperature, n=n, **kwargs)
        params = {"max_tokens": max_tokens, "temperature": temperature, "n": n, **kwargs}
        entry = {"key": request_key(messages, **params), "request": _preview(request_of(messages, **params)),
                 "replies": [_result_json(r) for r in replies]}
        with self._lock:
            self.interactions.append(entry)
            self.save()
        return replies

    def save(self) -> Path:
        doc = {"format": CASSETTE_FORMAT, "model": self.model, "interactions": self.interactions}
        _atomic_write(self.path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        return self.path


def load_cassette(path: str | os.PathLike) -> dict:
    """A cassette file, checked: ``{format, model, interactions: [{key, request, replies}]}``."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"cassette {str(path)!r} cannot be read: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != CASSETTE_FORMAT or not isinstance(doc.get("interactions"), list):
        raise ValueError(f"{str(path)!r} is not a {CASSETTE_FORMAT} cassette")
    for i, entry in enumerate(doc["interactions"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("key"), str) or not isinstance(entry.get("replies"), list):
            raise ValueError(f"cassette {str(path)!r}: interaction {i} is malformed")  # noqa: TRY004
    return doc


class ReplayBackend:
    """Answers every request from a cassette (no model, no network).

    A request seen several times gets its recorded replies in order (the last one again when
    the recording has fewer). A request the cassette lacks raises :class:`CassetteMiss` naming
    the request, or, with ``fallback``, goes to that backend instead (and is not recorded).
    """

    def __init__(self, cassette: str | os.PathLike | dict, fallback: Any = None):
        doc = cassette if isinstance(cassette, dict) else load_cassette(cassette)
        self.model = str(doc.get("model") or "replay")
        self.fallback = fallback
        self._replies: dict[str, list[list[dict]]] = defaultdict(list)
        for entry in doc["interactions"]:
            self._replies[entry["key"]].append(entry["replies"])
        self._used: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()
        self.misses = 0

    def chat(self, messages: list[dict], *, max_tokens: int | None = None, temperature: float | None = None,
             n: int = 1, **kwargs: Any) -> list[ChatResult]:
        key = request_key(messages, max_tokens=max_tokens, temperature=temperature, n=n, **kwargs)
        with self._lock:
            recorded = self._replies.get(key)
            if not recorded:
                self.misses += 1
                if self.fallback is None:
                    system = next((m.get("content", "") for m in messages if m.get("role") == "system"), "")
                    raise CassetteMiss(f"the cassette holds no reply to request {key[:12]} (system prompt "
                                       f"{str(system)[:60]!r}...): re-record it with RecordingBackend")
            else:
                i = self._used[key]
                self._used[key] += 1
                return [_result(d) for d in recorded[min(i, len(recorded) - 1)]]
        return self.fallback.chat(messages, max_tokens=max_tokens, temperature=temperature, n=n, **kwargs)


class CachedBackend:
    """An on-disk cache in front of ``backend``: one JSON file per request key under ``directory``.

    Identical requests (same messages, parameters and seed) are answered from disk. Writes are
    atomic, so concurrent runs can share a directory. ``hits`` and ``misses`` count this
    instance's lookups.
    """

    def __init__(self, backend: Any, directory: str | os.PathLike):
        self.backend = backend
        self.directory = Path(directory)
        self.model = _model_of(backend)
        self.hits = self.misses = 0
        self._lock = threading.Lock()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def chat(self, messages: list[dict], *, max_tokens: int | None = None, temperature: float | None = None,
             n: int = 1, **kwargs: Any) -> list[ChatResult]:
        params = {"max_tokens": max_tokens, "temperature": temperature, "n": n, **kwargs}
        key = request_key(messages, **params)
        path = self._path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            replies = [_result(d) for d in entry["replies"]]
            with self._lock:
                self.hits += 1
            return replies
        except (OSError, ValueError, KeyError, TypeError):
            pass  # not cached (or a damaged entry): ask the backend
        replies = self.backend.chat(messages, max_tokens=max_tokens, temperature=temperature, n=n, **kwargs)
        with self._lock:
            self.misses += 1
        _atomic_write(path, json.dumps({"key": key, "model": self.model, "request": request_of(messages, **params),
                                        "replies": [_result_json(r) for r in replies]}, ensure_ascii=False))
        return replies


def uncached(backend: Any) -> Any:
    """``backend`` without any :class:`CachedBackend` in front of it (for fresh samples)."""
    while isinstance(backend, CachedBackend):
        backend = backend.backend
    return backend
