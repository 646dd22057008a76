"""What AnswerEnv and InteractiveEnv share: text spaces, seeding, instance choice, rendering."""
from __future__ import annotations

import copy
import re
import string
from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import read_from_shared_memory

from ..core.capabilities import ImageRendering
from ..core.errors import ConfigError, check_choice, check_int
from ..core.instance import Instance
from ..core.seeding import check_split, item_seed
from ..core.task import Task
from ..core.verdict import MAX_ANSWER_CHARS

#: Characters an observation may hold. Prompts are written with these only, so every observation
#: is inside ``observation_space`` (Gymnasium's env checker tests that).
TEXT_CHARSET = frozenset(string.printable) | frozenset(
    "\u00b7\u2022\u2014\u2013\u2026\u2190\u2191\u2192\u2193\u2500\u2502\u250c\u2510\u2514\u2518"
    "\u251c\u2524\u252c\u2534\u253c\u2588\u2591\u2592\u2713\u2717\u00d7")
MAX_TEXT = 1 << 18
REWARD_MODES = ("binary", "partial")
RENDER_MODES = ("ansi", "rgb_array")
#: what an observation holds: the text, or (tasks that draw, ``ImageRendering``) a picture of the
#: puzzle beside the text, for vision-language models
OBSERVATIONS = ("text", "image+text")


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


#: the ASCII characters outside TEXT_CHARSET (string.printable holds the rest of ASCII)
_ASCII_OUTSIDE = re.compile("[\x00-\x08\x0e-\x1f\x7f]")


def to_charset(text: str) -> str:
    """Replace characters outside TEXT_CHARSET (defensive; prompts should not need it)."""
    # this runs on every observation: ASCII text (the usual case) is checked by one regex scan
    if text.isascii() and _ASCII_OUTSIDE.search(text) is None:
        return text
    if TEXT_CHARSET.issuperset(text):
        return text
    return "".join(c if c in TEXT_CHARSET else "?" for c in text)


def _with_origin(inst: Instance, seed: int, split: str | None) -> Instance:
    """``dataclasses.replace(inst, seed=seed, split=split)`` without normalising the (already
    plain) data and params again: a reset builds one per episode."""
    out = copy.copy(inst)
    object.__setattr__(out, "seed", int(seed))
    object.__setattr__(out, "split", split)
    return out


def render_modes(task: Task) -> list[str]:
    """The render modes an environment over ``task`` supports: ``ansi``, plus ``rgb_array``
    where the task draws images."""
    return ["ansi", "rgb_array"] if isinstance(task, ImageRendering) else ["ansi"]


#: the keys ``reset(options=...)`` understands
RESET_OPTIONS = ("instance",)


def check_prompt_template(template: Any, fields, what: str = "prompt_template", specs: bool = True) -> str | None:
    """``template`` if it is a ``str.format`` template over plain ``fields``; else ConfigError
    naming ``what`` (the option). The template is user text: formatted, never evaluated.

    Attribute access and indexing (``{prompt.__class__}``, ``{x[0]}``), nested fields in format
    specs (any format spec unless ``specs``) and unknown names are refused when the option is
    given, not at the first use.
    """
    if template is None:
        return None
    if not isinstance(template, str):
        raise ConfigError(f"{what} must be a string with {{fields}}, not {type(template).__name__} "
                          f"{str(template)[:40]!r}")
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as e:
        raise ConfigError(f"{what} is not a valid format string: {e}") from None
    for _, name, spec, _ in parsed:
        if name is None:
            continue
        if not name.isidentifier():
            raise ConfigError(f"{what} field {{{name}}} is not allowed: use plain names only "
                              f"(one of: {', '.join(sorted(fields))})")
        if name not in fields:
            raise ConfigError(f"{what} field {name!r} is not one of: {', '.join(sorted(fields))}")
        if spec and not specs:
            raise ConfigError(f"{what} field {{{name}:{spec}}} has a format spec; give plain {{name}} fields")
        if spec and ("{" in spec or "}" in spec):
            raise ConfigError(f"{what} field {{{name}:{spec}}} has a nested field in its format spec")
    return template


class PuzzleEnv(gym.Env):
    """Base of the generic environments. See AnswerEnv and InteractiveEnv for the manuals."""

    metadata: ClassVar[dict] = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def __init__(self, task: Task, env_id: str, *, split: str = "train", reward: str = "binary",
                 render_mode: str | None = None, prompt_template: str | None = None,
                 difficulty: str | None = None, observation: str = "text", image_size: int = 448,
                 max_answer_chars: int = MAX_ANSWER_CHARS, **params: Any):
        self.task = task
        self.env_id = env_id
        self.split = check_split(split)
        check_choice("reward", reward, REWARD_MODES)
        self.reward_mode = reward
        # the class attribute lists every mode the generic envs know; an instance lists its task's
        self.metadata = {**type(self).metadata, "render_modes": render_modes(task)}
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.params = task.resolve_params(difficulty=difficulty, **params)
        self.prompt_template = check_prompt_template(
            prompt_template, ["prompt", *sorted(set(self.params) | set(task.template_field_names))])
        check_choice("observation", observation, OBSERVATIONS)
        if observation == "image+text" and not isinstance(task, ImageRendering):
            raise ConfigError(f"observation 'image+text' needs a puzzle that draws images; {env_id} does not (the "
                              "puzzles with images implement ImageRendering.render_rgb, e.g. SPaRC)")
        self.observation = observation
        self.image_size = check_int("image_size", image_size, 32, 4096)
        # the longest action read (docs/security.md); longer ones are refused unread as too_long
        self.max_answer_chars = check_int("max_answer_chars", max_answer_chars, 1, 1_000_000_000)
        self.observation_space = text_space() if observation == "text" else spaces.Dict({
            "text": text_space(),
            "image": spaces.Box(0, 255, (self.image_size, self.image_size, 3), np.uint8)})
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
        if not isinstance(options, dict):
            raise ConfigError(f"reset options must be a dict such as {{'instance': ...}}, not {type(options).__name__}")
        for key in options:
            check_choice("reset option", key, RESET_OPTIONS)
        if options.get("instance") is not None:
            inst = self.task.load_instance(options["instance"])
        else:
            s = item_seed(self.env_id, self.task.seed_params(self.params), self.split, self._base_seed, self._episode)
            inst = self.task.generate(np.random.default_rng(s), **self.params)
            inst = _with_origin(inst, s, self.split)
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

    def _prompt_text(self, inst: Instance, prompt: str | None = None) -> str:
        """The first observation: the task's prompt (or ``prompt``), through ``prompt_template``."""
        text = self.task.prompt(inst) if prompt is None else prompt
        if self.prompt_template is None:
            return text
        fields = {**self.params, **inst.params, **self.task.template_fields(inst), "prompt": text}
        try:
            return self.prompt_template.format_map(_Strict(fields))
        except (KeyError, ValueError, IndexError, TypeError) as e:
            raise ConfigError(f"prompt_template could not be filled ({type(e).__name__}: {e}); fields: "
                              f"{', '.join(sorted(fields))}") from None

    def _obs(self, text: str):
        """The observation for ``text``: the text, or with ``observation="image+text"`` a dict of the
        text and a picture of the puzzle in its current state (``image_size`` square, RGB uint8)."""
        text = to_charset(text)
        if self.observation == "text":
            return text
        return {"text": text, "image": fit_image(self.task.render_rgb(self.instance, self._render_state()),
                                                 self.image_size)}

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
        return self.task.render_rgb(self.instance, self._render_state())


def fit_image(rgb: np.ndarray, size: int) -> np.ndarray:
    """``rgb`` scaled to fit a white ``size`` x ``size`` canvas, centred, aspect ratio kept (a fixed
    shape, so image observations live in one Box space whatever the puzzle's dimensions)."""
    from PIL import Image

    img = Image.fromarray(np.asarray(rgb, dtype=np.uint8)[..., :3])
    scale = min(size / img.width, size / img.height)
    img = img.resize((max(1, round(img.width * scale)), max(1, round(img.height * scale))), Image.LANCZOS)
    canvas = Image.new("RGB", (size, size), (255, 255, 255))
    canvas.paste(img, ((size - img.width) // 2, (size - img.height) // 2))
    return np.asarray(canvas, dtype=np.uint8)


class _Strict(dict):
    def __missing__(self, key):
        raise KeyError(key)
