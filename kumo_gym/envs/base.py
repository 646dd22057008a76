"""What AnswerEnv and InteractiveEnv share: text spaces, seeding, instance choice, rendering."""
from __future__ import annotations

import dataclasses
import string
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import read_from_shared_memory

from ..core.errors import ConfigError, check_choice
from ..core.instance import Instance
from ..core.seeding import check_split, item_seed
from ..core.task import Task

#: Characters an observation may hold. Prompts are written with these only, so every observation
#: is inside ``observation_space`` (Gymnasium's env checker tests that).
TEXT_CHARSET = frozenset(string.printable) | frozenset(
    "\u00b7\u2022\u2014\u2013\u2026\u2190\u2191\u2192\u2193\u2500\u2502\u250c\u2510\u2514\u2518"
    "\u251c\u2524\u252c\u2534\u253c\u2588\u2591\u2592\u2713\u2717\u00d7")
MAX_TEXT = 1 << 18
REWARD_MODES = ("binary", "partial")
RENDER_MODES = ("ansi", "rgb_array")


class PromptText(spaces.Text):
    """``Text`` whose batches stay live in AsyncVectorEnv's shared memory.

    Gymnasium reads a shared-memory batch once, when the vector env is built; for ``Box`` that
    is a live numpy view, but for ``Text`` it is a tuple of strings frozen at construction, so
    ``make_vec(..., vectorization_mode="async")`` would return stale observations. Our space
    registers a reader that decodes the buffer on access instead.
    """


class LiveTextBatch(Sequence):
    """The strings of a shared-memory Text batch, decoded when read."""

    def __init__(self, space: spaces.Text, shared, n: int):
        self._space, self._n = space, n
        self._data = np.frombuffer(shared.get_obj(), dtype=np.int32).reshape((n, space.max_length))
        self._chars = np.array(space.character_list + ("",), dtype=object)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(self._n)))
        row = self._data[i]
        pad = len(self._space.character_set)
        end = int(np.argmax(row == pad)) if (row == pad).any() else len(row)
        return "".join(self._chars[row[:end]])

    def __deepcopy__(self, memo):
        return tuple(self)

    def __repr__(self):
        return repr(tuple(self))


@read_from_shared_memory.register(PromptText)
def _read_live_text(space: PromptText, shared_memory, n: int = 1):
    return LiveTextBatch(space, shared_memory, n)


def text_space(max_length: int = MAX_TEXT) -> spaces.Text:
    return PromptText(max_length=max_length, min_length=0, charset="".join(sorted(TEXT_CHARSET)))


def to_charset(text: str) -> str:
    """Replace characters outside TEXT_CHARSET (defensive; prompts should not need it)."""
    if all(c in TEXT_CHARSET for c in text):
        return text
    return "".join(c if c in TEXT_CHARSET else "?" for c in text)


class PuzzleEnv(gym.Env):
    """Base of the generic environments. See AnswerEnv and InteractiveEnv for the manuals."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def __init__(self, task: Task, env_id: str, *, split: str = "train", reward: str = "binary",
                 render_mode: str | None = None, prompt_template: str | None = None,
                 difficulty: str | None = None, **params: Any):
        self.task = task
        self.env_id = env_id
        self.split = check_split(split)
        check_choice("reward", reward, REWARD_MODES)
        self.reward_mode = reward
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        self.render_mode = render_mode
        self.prompt_template = prompt_template
        self.params = task.resolve_params(difficulty=difficulty, **params)
        self.observation_space = text_space()
        self.action_space = text_space()
        self.instance: Instance | None = None
        self._base_seed: int | None = None
        self._episode = 0

    # ---- instances --------------------------------------------------------------------------
    def _next_instance(self, seed: int | None, options: dict | None) -> Instance:
        if seed is not None:
            self._base_seed, self._episode = int(seed), 0
        elif self._base_seed is None:
            self._base_seed, self._episode = int(self.np_random.integers(0, 2**62)), 0
        options = options or {}
        if options.get("instance") is not None:
            inst = self.task.load(options["instance"])
        else:
            s = item_seed(self.env_id, self.params, self.split, self._base_seed, self._episode)
            inst = self.task.generate(np.random.default_rng(s), **self.params)
            inst = dataclasses.replace(inst, seed=s, split=self.split)
        self._episode += 1
        self.instance = inst
        return inst

    def _info(self) -> dict:
        inst = self.instance
        return {
            "env_id": self.env_id,
            "instance_id": inst.instance_id,
            "family": inst.family,
            "difficulty": self.task.difficulty_of(inst),
            "split": inst.split,
            "optimal_steps": self.task.optimal_steps(inst),
        }

    def _prompt_text(self, inst: Instance) -> str:
        if self.prompt_template is None:
            return self.task.prompt(inst)
        fields = {"prompt": self.task.prompt(inst), **inst.params}
        try:
            return self.prompt_template.format_map(_Strict(fields))
        except (KeyError, ValueError, IndexError) as e:
            raise ConfigError(f"prompt_template field {e} is not one of: {', '.join(sorted(fields))}") from None

    def _reward(self, verdict) -> float:
        return float(verdict.reward if self.reward_mode == "binary" else verdict.score)

    # ---- rendering --------------------------------------------------------------------------
    def _render_state(self):
        return None

    def render(self):
        if self.instance is None or self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return self.task.render(self.instance, self._render_state())
        img = self.task.render_rgb(self.instance, self._render_state())
        if img is None:
            raise ConfigError(f"{self.env_id} has no image rendering; use render_mode='ansi'")
        return img


class _Strict(dict):
    def __missing__(self, key):
        raise KeyError(key)
