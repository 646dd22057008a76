"""Trace logging: every episode appended to a JSONL file, atomically.

Each episode is one line. Lines are written with a single ``os.write`` on a descriptor opened
with ``O_APPEND`` and flushed with ``fsync``, so concurrent writers never interleave inside a
line and a crash can at worst leave one partial *last* line, which :func:`read_traces` skips
(and reports) instead of failing on the earlier, complete ones.
"""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

from ..core.instance import _json_default


class TraceWriter:
    """Append-only JSONL writer: ``TraceWriter(path).append({...})``."""

    def __init__(self, path: str | os.PathLike, fsync: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fsync = fsync
        self._lock = threading.Lock()

    def append(self, record: dict) -> None:
        line = (json.dumps(record, ensure_ascii=False, default=_json_default) + "\n").encode("utf-8")
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                # a previous crash may have left a partial line: start ours on a fresh line
                if os.fstat(fd).st_size > 0 and not _ends_with_newline(self.path):
                    line = b"\n" + line
                os.write(fd, line)
                if self.fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


def read_traces(path: str | os.PathLike, strict: bool = False) -> list[dict]:
    """Every complete episode record in ``path`` (a missing file gives ``[]``).

    A line that is not valid JSON (only possible as the partial last line of a crashed run) is
    skipped, or raises ``ValueError`` naming its line number when ``strict``.
    """
    path = Path(path)
    if not path.exists():
        return []
    out = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                if strict:
                    raise ValueError(f"{path}:{no} is not a complete JSON record") from None
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
        base = self.env.unwrapped
        self._record = {
            "env_id": info.get("env_id"),
            "instance": base.instance.to_dict(),
            "instance_id": info.get("instance_id"),
            "family": info.get("family"),
            "difficulty": info.get("difficulty"),
            "split": info.get("split"),
            "optimal_steps": info.get("optimal_steps"),
            "prompt": obs,
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
            if isinstance(action, dict) and isinstance(action.get("completion"), str):
                # ChatEnv's form {"completion", "reasoning", "finish_reason", ...}: keep the text as the
                # action and the separate reasoning channel, where the analysis package reads them
                text = action["completion"]
                if action.get("reasoning") is not None:
                    rec["reasoning"] = "\n".join(filter(None, (rec.get("reasoning"), str(action["reasoning"]))))
            else:
                text = action if isinstance(action, str) else json.dumps(action, default=str)
            rec["steps"].append({"action": text, "observation": obs, "reward": float(reward),
                                 "status": info.get("status", info.get("verdict", {}).get("status"))})
            if terminated or truncated:
                rec["completion"] = text if len(rec["steps"]) == 1 else None
                rec["verdict"] = info.get("verdict")
                rec["reward"] = float(sum(s["reward"] for s in rec["steps"]))
                rec["n_steps"] = len(rec["steps"])
                rec["terminated"], rec["truncated"] = bool(terminated), bool(truncated)
                rec["seconds"] = round(time.time() - rec.pop("started"), 6)
                self.writer.append(rec)
                self._record = None
        return obs, reward, terminated, truncated, info
