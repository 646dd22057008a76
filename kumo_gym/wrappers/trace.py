"""Trace logging: every episode appended to a JSONL file, atomically.

Each episode is one line. Lines are written with a single ``os.write`` on a descriptor opened
with ``O_APPEND`` and flushed with ``fsync``, under an exclusive ``flock`` so that writers in
several processes never interleave inside a line. A crash can at worst leave one partial *last*
line; the next append removes that fragment (it never was a record) before writing, so a resumed
run leaves no torn line behind, and :func:`read_traces` skips (or, with ``strict``, reports) a
partial last line of a run that has not resumed.

Records store each text once: the answer of a single-answer episode is ``completion`` (its step
has no ``action``), a reply's ``text``/``reasoning`` that equal its step's action/reasoning are
left out, and so is a top-level ``reasoning`` that joins the steps' reasoning.
:func:`read_traces` puts them back, so readers see every field (a 3 MB reply costs 3 MB on disk,
not 9). Text that UTF-8 cannot encode (lone surrogates in a model's output) is kept exactly, as
JSON ``\\u`` escapes.
"""
from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import gymnasium as gym

from ..core.instance import _json_default

try:  # POSIX: serialise writers across processes; elsewhere the O_APPEND write alone
    import fcntl as _fcntl

    fcntl: ModuleType | None = _fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

log = logging.getLogger(__name__)


def encode_line(record: dict) -> bytes:
    """One JSONL line for ``record``: UTF-8 JSON, or ASCII-escaped JSON when the record holds text
    that UTF-8 cannot encode (a lone surrogate such as ``"\\ud800"``), which reads back exactly."""
    try:
        return (json.dumps(record, ensure_ascii=False, default=_json_default) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(record, ensure_ascii=True, default=_json_default) + "\n").encode("ascii")


class TraceWriter:
    """Append-only JSONL writer: ``TraceWriter(path).append({...})``."""

    def __init__(self, path: str | os.PathLike, fsync: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fsync = fsync
        self._lock = threading.Lock()

    def append(self, record: dict) -> None:
        line = encode_line(compact_record(record))
        with self._lock:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                _drop_torn_tail(fd, self.path)
                os.write(fd, line)
                if self.fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)  # releases the flock


def _drop_torn_tail(fd: int, path: Path) -> None:
    """Remove a partial last line that a crashed writer left (under the writers' lock).

    A last line that lacks only its newline but is a whole JSON value (a hand-made file) is kept
    and given its newline.
    """
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return
    start, block = size, 1 << 16
    while start > 0:  # find the last newline, reading backwards
        lo = max(0, start - block)
        chunk = os.pread(fd, start - lo, lo)
        nl = chunk.rfind(b"\n")
        if nl >= 0:
            start = lo + nl + 1
            break
        start = lo
    tail = os.pread(fd, size - start, start)
    try:
        json.loads(tail)
    except ValueError:
        os.ftruncate(fd, start)
        log.warning("%s: removed a partial last line of %d bytes left by an interrupted writer", path, size - start)
    else:
        os.write(fd, b"\n")


def _action_of(step: dict, record: dict, i: int):
    if "action" in step:
        return step["action"]
    return record.get("completion") if i == 0 else None


def _joined_reasoning(steps: list, replies: list | None = None) -> str | None:
    """Each turn's reasoning (its step's, else its reply's) joined by newlines; None when there is none."""
    parts = []
    for i, step in enumerate(steps):
        r = step.get("reasoning") if isinstance(step, dict) else None
        if r is None and isinstance(replies, list) and i < len(replies) and isinstance(replies[i], dict):
            r = replies[i].get("reasoning")
        if isinstance(r, str) and r:
            parts.append(r)
    return "\n".join(parts) or None


def compact_record(record: dict) -> dict:
    """``record`` with each text stored once (see the module docstring); the input is not changed."""
    rec = dict(record)
    steps = [dict(s) if isinstance(s, dict) else s for s in rec.get("steps") or []]
    if not steps:
        return rec
    rec["steps"] = steps
    completion = rec.get("completion")
    if len(steps) == 1 and isinstance(steps[0], dict) and completion is not None and steps[0].get("action") == completion:
        del steps[0]["action"]
    replies = rec.get("replies")
    joined = _joined_reasoning(steps, replies)
    if joined is not None and rec.get("reasoning") == joined:
        del rec["reasoning"]
    if isinstance(replies, list):
        rec["replies"] = replies = [dict(r) if isinstance(r, dict) else r for r in replies]
        for i, (step, reply) in enumerate(zip(steps, replies)):
            if not (isinstance(step, dict) and isinstance(reply, dict)):
                continue
            if "text" in reply and reply["text"] == _action_of(step, rec, i):
                del reply["text"]
            if reply.get("reasoning") is not None and reply["reasoning"] == step.get("reasoning"):
                del reply["reasoning"]
    return rec


def expand_record(record: dict) -> dict:
    """Put back the texts :func:`compact_record` left out (in place; returns ``record``)."""
    steps = record.get("steps")
    if not isinstance(steps, list) or not steps:
        return record
    if len(steps) == 1 and isinstance(steps[0], dict) and "action" not in steps[0] and record.get("completion") is not None:
        steps[0]["action"] = record["completion"]
    replies = record.get("replies")
    if isinstance(replies, list):
        for step, reply in zip(steps, replies):
            if isinstance(step, dict) and isinstance(reply, dict):
                if "text" not in reply and "action" in step:
                    reply["text"] = step["action"]
                if "reasoning" not in reply and step.get("reasoning") is not None:
                    reply["reasoning"] = step["reasoning"]
    if "reasoning" not in record:
        joined = _joined_reasoning(steps, replies)
        if joined is not None:
            record["reasoning"] = joined
    return record


def read_traces(path: str | os.PathLike, strict: bool = False) -> list[dict]:
    """Every complete episode record in ``path`` (a missing file gives ``[]``), texts expanded.

    A line that is not valid JSON can only be the partial last line of a writer that crashed and
    was not resumed: it is skipped, or raises ``ValueError`` naming its line number when
    ``strict``.
    """
    path = Path(path)
    if not path.exists():
        return []
    out = []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError:  # JSONDecodeError, or bytes that are not UTF-8
                if strict:
                    raise ValueError(f"{path}:{no} is not a complete JSON record") from None
                continue
            out.append(expand_record(rec) if isinstance(rec, dict) else rec)
    return out


class TraceWrapper(gym.Wrapper):
    """Records every episode of a kumo_gym environment to a JSONL file.

    A record holds ``env_id``, ``instance`` (the Instance dict), ``instance_id``, ``difficulty``,
    ``split``, the list of ``steps`` (``action``, ``observation``, ``reward``, ``status``), the
    prompt, the final ``verdict`` and ``reward``, ``n_steps`` and wall time. For single-answer
    environments ``completion`` is the answer text. ``meta`` passed to :meth:`annotate` (model
    name, sample index, reasoning trace, token counts) is merged into the record.
    """

    def __init__(self, env: gym.Env, path: str | os.PathLike, **static_meta: Any):
        super().__init__(env)
        self.writer = TraceWriter(path)
        self.static_meta = static_meta
        self._record: dict | None = None

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        base: Any = self.env.unwrapped  # one of ours: its instance is recorded
        self._record = {
            "env_id": info.get("env_id"),
            "instance": base.instance.to_dict(),
            "instance_id": info.get("instance_id"),
            "family": info.get("family"),
            "difficulty": info.get("difficulty"),
            "split": info.get("split"),
            "optimal_steps": info.get("optimal_steps"),
            "prompt": obs["text"] if isinstance(obs, dict) else obs,  # image observations: their text
            "steps": [],
            "started": time.time(),
            **self.static_meta,
        }
        return obs, info

    def annotate(self, **meta: Any) -> None:
        """Attach extra fields (e.g. ``reasoning``, ``tokens``, ``sample``) to the current episode."""
        if self._record is not None:
            self._record.update(meta)

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        rec = self._record
        if rec is not None:
            reasoning = None
            if isinstance(action, dict) and isinstance(action.get("completion"), str):
                # ChatEnv's form {"completion", "reasoning", "finish_reason", ...}: the text is the action,
                # the separate reasoning channel is kept beside it, where the analysis package reads it
                text = action["completion"]
                if action.get("reasoning") is not None:
                    reasoning = str(action["reasoning"])
            else:
                text = action if isinstance(action, str) else json.dumps(action, default=str)
            seen = obs["text"] if isinstance(obs, dict) else obs  # an image observation is recorded by its text
            step = {"action": text, "observation": seen, "reward": float(reward),
                    "status": info.get("status", (info.get("verdict") or {}).get("status"))}
            if reasoning is not None:
                step["reasoning"] = reasoning
            rec["steps"].append(step)
            if terminated or truncated:
                self._finish(rec, info, terminated, truncated)
        return obs, reward, terminated, truncated, info

    def _finish(self, rec: dict, info: dict, terminated: bool, truncated: bool) -> None:
        steps = rec["steps"]
        rec["completion"] = steps[0]["action"] if len(steps) == 1 else None
        joined = _joined_reasoning(steps)
        if joined is not None:
            rec["reasoning"] = joined
        rec["verdict"] = info.get("verdict")
        rec["reward"] = float(sum(s["reward"] for s in steps))
        rec["n_steps"] = len(steps)
        rec["terminated"], rec["truncated"] = bool(terminated), bool(truncated)
        rec["seconds"] = round(time.time() - rec.pop("started"), 6)
        self.writer.append(rec)
        self._record = None
