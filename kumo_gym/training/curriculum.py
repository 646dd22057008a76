"""A difficulty curriculum driven by recent success, as a TRL callback and for ``kumo-gym train``.

Each environment climbs a ladder of levels (difficulty presets or explicit parameters, easiest
first). The scheduler watches the training rollouts' verdicts: when the success rate of an
environment's last ``window`` episodes at its current level reaches ``promote_at``, the
environment moves one level up; when it falls to ``demote_at`` or below (if set), one level
down. A level change empties that environment's window, so each decision rests on at least
``min_episodes`` episodes of the level it judges (``window`` by default). Episodes generated at
an earlier level (in flight when the level changed) are not counted.

Python, with TRL's GRPOTrainer::

    from kumo_gym.training.curriculum import Curriculum

    cur = Curriculum({"kumo_gym/BlocksWorld-v0": ["easy", "medium", "hard"],
                      "kumo_gym/Towers-v0": ["trivial", "easy", "normal"]},
                     window=32, promote_at=0.75, demote_at=0.2)
    trainer = GRPOTrainer(model, reward_funcs=cur.wrap(kumo_gym.reward_function()),
                          train_dataset=cur.dataset(size=5000), callbacks=[cur], args=...)

``cur.dataset`` is a ``datasets.Dataset`` whose rows are made when the trainer reads them, at
each environment's current level (a row's instance is item ``j`` of its environment at that
level, so runs are reproducible); ``cur.wrap`` returns reward functions that score as before and
report each verdict to the scheduler; the callback applies the reports at the end of every
optimizer step (gathered from every process first, so all processes keep the same levels) and
logs ``curriculum/<Env>/level`` (the level of the rows trained on) and
``curriculum/<Env>/success``. A level change takes effect from the next batch the trainer reads
(the data loader reads one batch ahead).

From the command line: ``kumo-gym train grpo --curriculum cur.yaml`` or a ``curriculum:`` key in
the ``--config`` file::

    window: 32          # episodes per environment that the success rate looks at
    promote_at: 0.75    # success rate that moves an environment up a level
    demote_at: 0.2      # ... and down (null: never down)
    envs:
      kumo_gym/BlocksWorld-v0: [easy, medium, hard]
      Towers:
        levels: [trivial, easy, {n: 5, tatham_difficulty: e}]
        promote_at: 0.6              # per-environment thresholds override the global ones
        env_kwargs: {mode: answer}   # fixed options of every level
"""
from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.errors import ConfigError
from ..core.instance import canonical_json
from .callbacks import TrainerCallbackBase
from .data import ENV_ONLY, generation_params

log = logging.getLogger(__name__)


@dataclass
class LevelRule:
    """When an environment changes level (see the module docstring)."""

    window: int = 32
    promote_at: float = 0.75
    demote_at: float | None = None
    min_episodes: int | None = None

    def __post_init__(self):
        from ..core.errors import check_int

        self.window = check_int("window", self.window, 1, 10**6)
        for name in ("promote_at", "demote_at"):
            v = getattr(self, name)
            if v is None and name == "demote_at":
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= float(v) <= 1.0:
                raise ConfigError(f"{name} {v!r} must be a success rate between 0 and 1")
            setattr(self, name, float(v))
        if self.demote_at is not None and self.demote_at >= self.promote_at:
            raise ConfigError(f"demote_at {self.demote_at} must be below promote_at {self.promote_at}")
        if self.min_episodes is None:
            self.min_episodes = self.window
        self.min_episodes = check_int("min_episodes", self.min_episodes, 1, self.window)


@dataclass
class Schedule:
    """One environment's ladder: its levels, the current one and the recent outcomes there."""

    env_id: str
    levels: list[dict]
    names: list[str]
    rule: LevelRule
    level: int = 0
    recent: deque = field(default_factory=deque)

    def __post_init__(self):
        self.recent = deque(maxlen=self.rule.window)

    @property
    def success(self) -> float | None:
        return float(np.mean(self.recent)) if self.recent else None

    def observe(self, level: int, solved: bool) -> str | None:
        """Count one episode played at ``level``; returns ``"promote"``/``"demote"`` on a change."""
        if level != self.level:
            return None  # generated before the last change: it says nothing about this level
        self.recent.append(bool(solved))
        if len(self.recent) < (self.rule.min_episodes or self.rule.window):  # LevelRule sets min_episodes
            return None
        rate = float(np.mean(self.recent))
        if rate >= self.rule.promote_at and self.level < len(self.levels) - 1:
            self.level += 1
            self.recent.clear()
            return "promote"
        if self.rule.demote_at is not None and rate <= self.rule.demote_at and self.level > 0:
            self.level -= 1
            self.recent.clear()
            return "demote"
        return None


def _level(env_id: str, obj) -> tuple[dict, str]:
    """A level's env kwargs and its name: a preset name, or a mapping of parameters."""
    from ..core.registry import get_task

    task = get_task(env_id)
    if isinstance(obj, (str, int)) and not isinstance(obj, bool):
        kw = {"difficulty": obj}
        name = str(obj)
    elif isinstance(obj, dict):
        kw = dict(obj)
        name = ",".join(f"{k}={v}" for k, v in sorted(kw.items()))
    else:
        raise ConfigError(f"curriculum level {obj!r} of {env_id} is not a difficulty name or a mapping of parameters")
    bad = set(kw) & set(ENV_ONLY)
    if bad:
        raise ConfigError(f"curriculum level {name} of {env_id} sets {sorted(bad)}: put options shared by every "
                          "level in env_kwargs")
    task.resolve_params(**kw)  # a bad level fails now, not mid-run
    return kw, name


class Curriculum(TrainerCallbackBase):
    """Success-driven difficulty schedules for several environments (see the module docstring).

    ``envs``: environment id (or short name) -> list of levels, or a mapping with ``levels`` and
    optional ``window``/``promote_at``/``demote_at``/``min_episodes``/``start``/``env_kwargs``.
    The keyword arguments are the defaults of every environment's :class:`LevelRule`.
    """

    def __init__(self, envs: dict, *, window: int = 32, promote_at: float = 0.75, demote_at: float | None = None,
                 min_episodes: int | None = None):
        from ..core.registry import resolve_env_id

        if not isinstance(envs, dict) or not envs:
            raise ConfigError("a curriculum needs envs: a mapping of environment ids to their levels")
        defaults = {"window": window, "promote_at": promote_at, "demote_at": demote_at, "min_episodes": min_episodes}
        self.schedules: dict[str, Schedule] = {}
        self.env_kwargs: dict[str, dict] = {}
        for name, spec in envs.items():
            env_id = resolve_env_id(name)
            if env_id in self.schedules:
                raise ConfigError(f"{env_id} appears twice in the curriculum")
            spec = {"levels": spec} if isinstance(spec, (list, tuple)) else dict(spec or {})
            levels = spec.pop("levels", None)
            if not levels:
                raise ConfigError(f"curriculum of {env_id} needs a non-empty list of levels")
            fixed = dict(spec.pop("env_kwargs", None) or {})
            bad = set(generation_params(fixed))
            if bad:
                raise ConfigError(f"env_kwargs of {env_id} in the curriculum may hold only {', '.join(ENV_ONLY)}, not "
                                  f"{sorted(bad)} (parameters belong to the levels)")
            start = spec.pop("start", 0)
            rule: dict[str, Any] = dict(defaults)
            for key in list(spec):
                if key not in rule:
                    raise ConfigError(f"curriculum option {key!r} of {env_id} is not one of: levels, start, "
                                      f"env_kwargs, {', '.join(rule)}")
                rule[key] = spec.pop(key)
            parsed = [_level(env_id, x) for x in levels]
            names = [n for _, n in parsed]
            if isinstance(start, str):
                if start not in names:
                    raise ConfigError(f"start {start!r} of {env_id} is not one of its levels: {', '.join(names)}")
                start = names.index(start)
            if not isinstance(start, int) or not 0 <= start < len(parsed):
                raise ConfigError(f"start {start!r} of {env_id} is not a level index 0..{len(parsed) - 1}")
            self.schedules[env_id] = Schedule(env_id, [kw for kw, _ in parsed], names, LevelRule(**rule), start)
            self.env_kwargs[env_id] = fixed
        self.history: list[dict] = []
        self._pending: list[tuple[str, int, bool]] = []

    @classmethod
    def from_config(cls, obj) -> Curriculum:
        """From a YAML path or a mapping with ``envs`` and the global rule keys."""
        if isinstance(obj, Curriculum):
            return obj
        if isinstance(obj, str):
            from .mixture import load_yaml

            obj = load_yaml(obj)
        if not isinstance(obj, dict):
            raise ConfigError(f"a curriculum is a YAML file or a mapping with 'envs', not {type(obj).__name__}")
        data = dict(obj)
        envs = data.pop("envs", None)
        unknown = set(data) - {"window", "promote_at", "demote_at", "min_episodes"}
        if unknown:
            raise ConfigError(f"curriculum key(s) {sorted(unknown)} are not one of: envs, window, promote_at, "
                              "demote_at, min_episodes")
        return cls(envs, **data)

    # ---- levels -----------------------------------------------------------------------------
    def level(self, env_id: str) -> int:
        return self.schedules[env_id].level

    def level_kwargs(self, env_id: str, level: int | None = None) -> dict:
        """The env kwargs of ``env_id`` at ``level`` (default: its current level)."""
        s = self.schedules[env_id]
        return {**self.env_kwargs[env_id], **s.levels[s.level if level is None else level]}

    def final_kwargs(self, env_id: str) -> dict:
        return self.level_kwargs(env_id, len(self.schedules[env_id].levels) - 1)

    def summary(self) -> dict[str, dict]:
        return {e: {"level": s.level, "name": s.names[s.level], "success": s.success, "episodes": len(s.recent)}
                for e, s in self.schedules.items()}

    # ---- observing rollouts -----------------------------------------------------------------
    def report(self, env_id: str, level: int, solved: bool) -> None:
        """One training episode's outcome (applied at the end of the optimizer step)."""
        if env_id in self.schedules and level is not None and level >= 0:
            self._pending.append((env_id, int(level), bool(solved)))

    def apply(self, step: int | None = None) -> list[dict]:
        """Apply the pending reports (from every process when distributed); returns the changes."""
        pending, self._pending = self._pending, []
        pending = _gather(pending)
        events = []
        for env_id, level, solved in pending:
            s = self.schedules[env_id]
            old = s.level
            event = s.observe(level, solved)
            if event:
                ev = {"step": step, "env_id": env_id, "event": event, "from": s.names[old], "to": s.names[s.level],
                      "level": s.level}
                events.append(ev)
                self.history.append(ev)
                log.info("curriculum: %s %s from %s to %s at step %s", env_id, event, ev["from"], ev["to"], step)
        return events

    def wrap(self, reward_funcs):
        """Reward functions that score as ``reward_funcs`` do and report each row's verdict here.

        The report reads the binary outcome (solved or not) of the row, whatever the function's
        kind; verdicts are shared with the kumo reward functions' cache, so nothing is scored
        twice. Accepts one function or a list and returns the same shape.
        """
        single = callable(reward_funcs)
        funcs = [reward_funcs] if single else list(reward_funcs)
        wrapped = [self._wrap_one(f, first=(i == 0)) for i, f in enumerate(funcs)]
        return wrapped[0] if single else wrapped

    def _wrap_one(self, func, first: bool):
        from ..core.registry import entry
        from .rewards import score_row

        cur = self

        def reward(prompts=None, completions=None, **columns):
            out = func(prompts=prompts, completions=completions, **columns)
            levels = columns.get("curriculum_level")
            if first and levels is not None:
                env_ids, instances = columns.get("env_id"), columns.get("instance")
                if env_ids is None or instances is None:
                    raise ConfigError("curriculum rows need the env_id and instance columns (build them with "
                                      "kumo_gym.training.trainset)")
                played = columns.get("kumo_verdict")
                for i, comp in enumerate(completions or []):
                    if levels[i] is None or levels[i] < 0:
                        continue
                    v = score_row(env_ids[i], instances[i], comp, None if played is None else played[i])
                    cur.report(env_ids[i], levels[i], v.solved)
                log_metric = columns.get("log_metric")
                if callable(log_metric):
                    for env_id, s in cur.schedules.items():
                        name = entry(env_id).name
                        # the level of the rows trained on in this batch (a change shows when they do)
                        seen = [lv for e, lv in zip(env_ids, levels) if e == env_id and lv is not None and lv >= 0]
                        log_metric(f"curriculum/{name}/level", float(np.mean(seen)) if seen else float(s.level))
                        if s.success is not None:
                            log_metric(f"curriculum/{name}/success", float(s.success))
            return out

        reward.__name__ = getattr(func, "__name__", "reward")
        return reward

    # ---- TrainerCallback hooks --------------------------------------------------------------
    def on_step_end(self, args, state, control, **kwargs):
        self.apply(state.global_step)
        return control

    def on_train_end(self, args, state, control, **kwargs):
        self.apply(state.global_step)
        return control

    # ---- data -------------------------------------------------------------------------------
    def dataset(self, size: int, split: str = "train", seed: int = 0, mixture=None,
                prompt_format: str = "conversational", on_rows=None):
        """A ``datasets.Dataset`` of ``size`` rows made at read time at the current levels.

        Rows are drawn from ``mixture`` (a :class:`~kumo_gym.training.mixture.Mixture`, whose
        entries for curriculum environments take their parameters from the current level and
        keep their other options), or from the curriculum's environments with equal weights.
        ``on_rows(rows)`` is called with every batch of rows made (multi-turn rollouts register
        their instances through it).
        """
        return CurriculumStream(self, size, split, seed, mixture, prompt_format, on_rows).dataset()


def _gather(items: list) -> list:
    """``items`` of every process, in process order (the list itself when not distributed)."""
    try:
        import torch.distributed as dist
    except ImportError:  # pragma: no cover
        return items
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return items
    from accelerate.utils import gather_object

    return list(gather_object(items))


class CurriculumStream:
    """The rows of a curriculum dataset, made when read (see :meth:`Curriculum.dataset`)."""

    COLUMNS = ("prompt", "env_id", "instance", "instance_id", "family", "difficulty", "mode", "spec",
               "curriculum_level")

    def __init__(self, curriculum: Curriculum, size: int, split: str, seed: int, mixture, prompt_format: str,
                 on_rows=None):
        from ..core.errors import check_int
        from ..core.seeding import check_split
        from .mixture import Mixture, MixtureEntry

        self.cur = curriculum
        self.size = check_int("size", size, 1, 10**9)
        self.split = check_split(split)
        self.seed = int(seed)
        self.prompt_format = prompt_format
        self.on_rows = on_rows
        if mixture is None:
            mixture = Mixture([MixtureEntry(e, 1.0, dict(curriculum.env_kwargs[e])) for e in curriculum.schedules])
        self.mix = Mixture.from_config(mixture)
        self.assignment = self.mix.assignment(self.size, self.split, self.seed)
        self._makers: dict = {}
        self._params: dict = {}

    def entry_kwargs(self, k: int) -> tuple[dict, int]:
        """Env kwargs of mixture entry ``k`` now, and its curriculum level (-1: not in the curriculum)."""
        e = self.mix.entries[k]
        if e.env_id not in self.cur.schedules:
            return dict(e.env_kwargs), -1
        fixed = {x: v for x, v in e.env_kwargs.items() if x in ENV_ONLY}
        return {**fixed, **self.cur.level_kwargs(e.env_id)}, self.cur.level(e.env_id)

    def row(self, index: int) -> dict:
        from ..core.registry import get_task
        from .data import RecordMaker, nth_instance

        k, j = self.assignment[index]
        env_id = self.mix.entries[k].env_id
        kwargs, level = self.entry_kwargs(k)
        key = (k, canonical_json(kwargs))
        if key not in self._makers:
            self._makers[key] = RecordMaker(env_id, kwargs, self.split, self.prompt_format)
            self._params[key] = get_task(env_id).resolve_params(**generation_params(kwargs))
        inst = nth_instance(env_id, j, self.split, self.seed, params=self._params[key])
        if self.split == "train":
            get_task(env_id).check_trainable(inst)
        rec = self._makers[key].record(inst)
        return {"prompt": rec["prompt"], "env_id": env_id, "instance": inst.to_json(), "instance_id": inst.instance_id,
                "family": rec["family"], "difficulty": str(rec["difficulty"] or ""), "mode": rec["mode"],
                "spec": canonical_json(kwargs), "curriculum_level": level}

    def transform(self, batch: dict) -> dict:
        rows = [self.row(int(i)) for i in batch["row"]]
        if self.on_rows is not None:
            self.on_rows(rows)
        return {c: [r[c] for r in rows] for c in self.COLUMNS}

    def dataset(self):
        import datasets

        ds = datasets.Dataset.from_dict({"row": list(range(self.size))})
        ds.set_transform(self.transform)
        return ds
