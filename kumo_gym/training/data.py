"""Datasets from environments: the records behind ``kumo_gym.make_dataset``.

One calling convention everywhere (docs/architecture.md §3): the number of items is
``size`` and the environment's parameters travel whole as ``env_kwargs``, so a count never
shares a namespace with a size parameter (Hanoi's ``n``)::

    kumo_gym.make_dataset("kumo_gym/Hanoi-v0", 100, env_kwargs={"n": 4})
    kumo_gym.make_dataset("kumo_gym/Hanoi-v0", size=100, difficulty="easy")

The old spelling (``n=`` for the count, environment parameters as loose keywords) still works
with a ``DeprecationWarning``; when both a count and ``n=`` are given, ``n`` is the
environment's parameter.

Records are TRL-native: ``prompt`` is the conversation the environment opens with (TRL's
conversational format, so trainers apply the chat template), or the plain prompt text with
``prompt_format="text"``; ``with_golden=True`` adds ``completion`` (the golden answer in the same
format), so ``SFTTrainer`` reads the records as prompt/completion pairs. Imports nothing heavy;
``datasets`` is imported only when a Hugging Face Dataset is asked for.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import operator
import warnings
from collections.abc import Iterator

import numpy as np

from ..core.errors import ConfigError, check_choice, check_int
from ..core.instance import Instance
from ..core.registry import entry, get_task
from ..core.seeding import check_split, item_seed, shard_range
from ..core.verdict import Verdict

log = logging.getLogger(__name__)

FORMATS = ("records", "datasets")
PROMPT_FORMATS = ("conversational", "text")

#: environment kwargs that shape the episode (mode, reward, prompt text ...) but not which instance
#: is drawn; everything else in ``env_kwargs`` is a generation parameter of the Task
ENV_ONLY = ("mode", "reward", "render_mode", "prompt_template", "max_steps", "max_invalid", "illegal_action",
            "max_illegal", "observation", "image_size")

#: the most items one request may ask for (a typo such as 10**12 fails at once, not after hours)
MAX_SIZE = 10**9


def resolve_call(func: str, size, env_kwargs: dict | None, difficulty=None, legacy: dict | None = None,
                 stacklevel: int = 3) -> tuple[int, dict]:
    """``(size, env_kwargs)`` of a call to one of the many-item functions, old spellings included.

    ``legacy`` holds the loose keyword arguments of the old API: ``n`` is the deprecated count
    when ``size`` is not given, and anything else (``n`` too when ``size`` is given) is an
    environment parameter. Both warn (DeprecationWarning) and name the new spelling.
    """
    if env_kwargs is not None and not isinstance(env_kwargs, dict):
        raise ConfigError(f"env_kwargs must be a dict of environment parameters, not {type(env_kwargs).__name__}")
    kw = dict(env_kwargs or {})
    legacy = dict(legacy or {})
    if size is None and "n" in legacy:
        size = legacy.pop("n")
        warnings.warn(f"{func}(n=...) for the number of items is deprecated: use size= (n is Hanoi's and the "
                      "other planning puzzles' size parameter; pass it in env_kwargs)", DeprecationWarning,
                      stacklevel=stacklevel)
    if legacy:
        names = sorted(legacy)
        warnings.warn(f"{func}(..., {', '.join(f'{k}=' for k in names)}) passes environment parameters as loose "
                      f"keywords, which is deprecated: use env_kwargs={{{', '.join(repr(k) for k in names)}: ...}}",
                      DeprecationWarning, stacklevel=stacklevel)
        for k, v in legacy.items():
            if k in kw and kw[k] != v:
                raise ConfigError(f"environment parameter {k!r} is given twice ({kw[k]!r} in env_kwargs, {v!r} "
                                  "as a keyword)")
            kw[k] = v
    if difficulty is not None:
        if "difficulty" in kw and kw["difficulty"] != difficulty:
            raise ConfigError(f"difficulty is given twice ({kw['difficulty']!r} in env_kwargs, {difficulty!r})")
        kw["difficulty"] = difficulty
    if "split" in kw:
        raise ConfigError(f"give the split as {func}(split=...), not inside env_kwargs")
    if size is None:
        raise ConfigError(f"{func} needs size= (the number of items)")
    return check_int("size", size, 1, MAX_SIZE), kw


def count_arg(func: str, size, n, default: int) -> int:
    """The item count of a function that used to call it ``n``: ``size``, else the deprecated ``n``."""
    if n is not None:
        if size is not None and size != n:
            raise ConfigError(f"{func}: size={size} and the deprecated n={n} disagree; give size only")
        warnings.warn(f"{func}(n=...) is deprecated: the number of items is size=", DeprecationWarning, stacklevel=3)
        size = n
    return check_int("size", default if size is None else size, 1, MAX_SIZE)


def generation_params(env_kwargs: dict) -> dict:
    """The part of ``env_kwargs`` that the Task generates from (``ENV_ONLY`` keys removed)."""
    return {k: v for k, v in env_kwargs.items() if k not in ENV_ONLY}


def check_seed(seed) -> int:
    """``seed`` as a non-negative int (Gymnasium's ``reset(seed=...)`` accepts nothing else), or a
    ConfigError naming it; every many-item function and command checks its seed the same way."""
    try:
        value = operator.index(seed)  # int and numpy integers, not floats or strings
    except TypeError:
        value = -1
    if isinstance(seed, bool) or value < 0:
        raise ConfigError(f"seed {seed!r} is not a valid seed (an integer >= 0)")
    return value


def generate_instances(env_id: str, size: int | None = None, split: str = "train", seed: int = 0, *,
                       env_kwargs: dict | None = None, difficulty=None, shard: str | None = None,
                       start: int = 0, **legacy) -> Iterator[Instance]:
    """The instances ``0..size-1`` of ``(env_id, env_kwargs, split, seed)``, or those of one shard.

    Item i is exactly the first instance an environment made with the same id and kwargs
    gives after ``reset(seed=...)`` with the matching item seed, so datasets and environments
    agree. ``difficulty`` is short for ``env_kwargs={"difficulty": ...}``. ``start`` skips that
    many items without generating them (resuming a run).
    """
    size, kw = resolve_call("generate_instances", size, env_kwargs, difficulty, legacy)
    return _instances(env_id, size, split, seed, kw, shard, check_int("start", start, 0))


def _instances(env_id: str, size: int, split: str, seed: int, env_kwargs: dict, shard: str | None,
               start: int = 0):
    check_split(split)
    check_seed(seed)
    task = get_task(env_id)
    params = task.resolve_params(**generation_params(env_kwargs))
    rows = shard_range(size, shard)[start:]

    def gen():
        for i in rows:
            yield nth_instance(env_id, i, split, seed, params=params)

    return gen()


def nth_instance(env_id: str, index: int, split: str = "train", seed: int = 0, env_kwargs: dict | None = None,
                 params: dict | None = None) -> Instance:
    """Item ``index`` of ``(env_id, env_kwargs, split, seed)`` alone (what
    ``generate_instances(...)`` yields at that position); ``params`` skips resolving them again."""
    task = get_task(env_id)
    if params is None:
        params = task.resolve_params(**generation_params(env_kwargs or {}))
    s = item_seed(env_id, task.seed_params(params), split, seed, index)
    inst = task.generate(np.random.default_rng(s), **params)
    return dataclasses.replace(inst, seed=s, split=split)


class DistinctCounter:
    """Counts distinct instance ids while items are produced, and says so when a request asked for
    more items than the parameters produce (``kumo-gym generate kumo_gym/Hanoi-v0 --size 1000``:
    every Hanoi instance of one ``n`` is the same puzzle)."""

    def __init__(self, env_id: str, env_kwargs: dict):
        self.env_id, self.env_kwargs = env_id, env_kwargs
        self.ids: set[str] = set()
        self.total = 0

    def add(self, instance_id: str) -> None:
        self.ids.add(instance_id)
        self.total += 1

    def message(self) -> str | None:
        if self.total <= 1 or len(self.ids) == self.total:
            return None
        params = ", ".join(f"{k}={v!r}" for k, v in sorted(self.env_kwargs.items())) or "the defaults"
        return (f"{self.env_id} with {params} produced only {len(self.ids)} distinct instance(s) among the "
                f"{self.total} requested; the rest are repeats (the parameters define few puzzles: widen them, "
                f"e.g. a difficulty preset with a size range, or ask for fewer items)")

    def warn(self, stacklevel: int = 3) -> str | None:
        msg = self.message()
        if msg:
            warnings.warn(msg, UserWarning, stacklevel=stacklevel)
        return msg


# ---------------------------------------------------------------------------------------------
# records
# ---------------------------------------------------------------------------------------------
class RecordMaker:
    """Turns instances of one environment configuration into dataset records.

    The opening messages come from the environment itself (``ChatEnv.reset`` on the instance),
    so the ``mode``, ``prompt_template`` and prompt options in ``env_kwargs`` shape the records
    exactly as they shape an episode.
    """

    def __init__(self, env_id: str, env_kwargs: dict | None = None, split: str = "train",
                 prompt_format: str = "conversational", with_golden: bool = False):
        import gymnasium as gym

        from ..wrappers.chat import ChatEnv

        check_choice("prompt_format", prompt_format, PROMPT_FORMATS)
        self.env_id = env_id
        self.task = get_task(env_id)
        self.env_kwargs = self.task.plain_kwargs(dict(env_kwargs or {}))  # recorded in every row
        self.family = entry(env_id).family
        self.prompt_format = prompt_format
        self.with_golden = with_golden
        self.mode = self.env_kwargs.get("mode") or entry(env_id).modes[0]
        self.chat = ChatEnv(gym.make(env_id, split=split, **self.env_kwargs))

    def opening(self, inst: Instance) -> tuple[list[dict], list]:
        """The messages the environment opens with for ``inst``, and their images.

        With ``observation="image+text"`` the user message is TRL's multimodal form: an image
        placeholder ``{"type": "image"}`` and the text part; the images (PIL) are returned apart,
        for the dataset's ``images`` column, which TRL's vision-language trainers put in place.
        """
        messages, _ = self.chat.reset(options={"instance": inst})
        images, out = [], []
        for m in messages:
            content = m["content"]
            if isinstance(content, list):
                parts = []
                for part in content:
                    if part.get("type") == "image":
                        images.append(part["image"])
                        parts.append({"type": "image"})
                    else:
                        parts.append(dict(part))
                content = parts
            out.append({"role": m["role"], "content": content})
        return out, images

    def record(self, inst: Instance) -> dict:
        task = self.task
        messages, images = self.opening(inst)
        rec = {
            "prompt": messages if self.prompt_format == "conversational" else _as_text(messages),
            "env_id": self.env_id,
            "family": self.family,
            "instance_id": inst.instance_id,
            "difficulty": task.difficulty_of(inst),
            "split": inst.split,
            "mode": self.mode,
            "env_kwargs": dict(self.env_kwargs),
            "instance": inst.to_dict(),
            "optimal_steps": task.optimal_steps(inst),
            **task.record_fields(inst),
        }
        if images:
            rec["images"] = images
        if self.with_golden:
            golden = task.format_answer(task.solve(inst))
            rec["golden"] = golden
            rec["completion"] = ([{"role": "assistant", "content": golden}] if self.prompt_format == "conversational"
                                 else golden)
        return rec

    def close(self) -> None:
        self.chat.close()


def _as_text(messages: list[dict]) -> str:
    """The plain-text prompt: the user's message, after the system part when there is one."""
    from ..wrappers.chat import message_text

    return "\n\n".join(message_text(m["content"]) for m in messages if m["role"] in ("system", "user"))


def make_record(env_id: str, inst: Instance, with_golden: bool = False, *, env_kwargs: dict | None = None,
                prompt_format: str = "conversational") -> dict:
    """One dataset record for ``inst`` (see :func:`make_dataset` for the fields)."""
    maker = RecordMaker(env_id, env_kwargs, inst.split or "train", prompt_format, with_golden)
    try:
        return maker.record(inst)
    finally:
        maker.close()


def make_dataset(env_id: str, size: int | None = None, split: str = "train", seed: int = 0, *,
                 env_kwargs: dict | None = None, difficulty=None, shard: str | None = None,
                 with_golden: bool = False, format: str = "records", prompt_format: str = "conversational",
                 **legacy):
    """``size`` prompt records of ``env_id`` with ``env_kwargs`` (a list, or a ``datasets.Dataset``).

    Fields: ``prompt`` (TRL's conversational format: the messages the environment opens with;
    ``prompt_format="text"``: the plain prompt text), ``images`` (with
    ``env_kwargs={"observation": "image+text"}``: the puzzle's picture, PIL, which TRL's
    vision-language GRPO/SFT put in the prompt's image placeholder), ``env_id``, ``family``, ``instance_id``,
    ``difficulty``, ``split``, ``mode``, ``env_kwargs``, ``instance``, ``optimal_steps`` and the
    family's own fields; ``with_golden=True`` adds ``golden`` (the solver's answer text) and
    ``completion`` (the same as an assistant message, or text), which makes the records an SFT
    prompt/completion dataset. ``prompt``, ``env_id`` and ``instance`` are what
    :func:`kumo_gym.reward_function` reads, so ``GRPOTrainer`` and ``SFTTrainer`` take the output
    as it is.

    ``split="train"`` refuses evaluation-only or held-out data (ContaminationError). A request
    for more items than the parameters can produce distinct ones warns (UserWarning).
    ``format="datasets"`` returns a ``datasets.Dataset`` whose ``instance`` and ``env_kwargs``
    columns hold JSON text (Arrow needs one schema across puzzles).
    """
    check_choice("format", format, FORMATS)
    check_choice("prompt_format", prompt_format, PROMPT_FORMATS)
    size, kw = resolve_call("make_dataset", size, env_kwargs, difficulty, legacy)
    task = get_task(env_id)
    maker = RecordMaker(env_id, kw, split, prompt_format, with_golden)
    counter = DistinctCounter(env_id, kw)
    records = []
    try:
        for inst in _instances(env_id, size, split, seed, kw, shard):
            if split == "train":
                task.check_trainable(inst)
            counter.add(inst.instance_id)
            records.append(maker.record(inst))
    finally:
        maker.close()
    counter.warn()
    return to_hf_dataset(records) if format == "datasets" else records


def to_hf_dataset(records: list[dict]):
    """A ``datasets.Dataset`` from records (instances and env kwargs kept as JSON text)."""
    import datasets

    rows = []
    for r in records:
        row = dict(r)
        row["instance"] = json.dumps(r["instance"], sort_keys=True)
        if "env_kwargs" in r:
            row["env_kwargs"] = json.dumps(r["env_kwargs"], sort_keys=True)
        row["optimal_steps"] = -1 if r.get("optimal_steps") is None else int(r["optimal_steps"])
        row["difficulty"] = "" if r.get("difficulty") is None else str(r["difficulty"])
        rows.append(row)
    return datasets.Dataset.from_list(rows)


def load_instance(env_id: str, instance) -> Instance:
    """An Instance of ``env_id`` from an Instance, its dict, its JSON text or a family format."""
    if isinstance(instance, str) and instance.lstrip().startswith("{"):
        instance = json.loads(instance)
    return get_task(env_id).load(instance)


def score(env_id: str, instance, completion: str, *, reasoning: str | None = None,
          finish_reason: str | None = None, n_output_tokens: int | None = None,
          max_new_tokens: int | None = None) -> Verdict:
    """Verify ``completion`` for ``instance`` of ``env_id``. Never raises on the completion.

    The instance carries its own parameters; the keywords describe the generation (a separate
    ``reasoning`` channel, the ``finish_reason`` and token counts that tell a cut-off output).
    """
    return get_task(env_id).score(load_instance(env_id, instance), completion, reasoning=reasoning,
                                  finish_reason=finish_reason, n_output_tokens=n_output_tokens,
                                  max_new_tokens=max_new_tokens)
