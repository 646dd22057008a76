"""What a training run trains on: prompt rows and golden records built with leakage guards, or the
curriculum (and mixture) that makes them while training."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import ConfigError, ContaminationError
from ..core.instance import canonical_json
from ..core.registry import get_task
from .data import ENV_ONLY
from .evaluate import EvalSpec


def opening_messages(spec: EvalSpec, instance) -> list[dict]:
    """The messages a model sees first for ``instance`` in ``spec``'s mode (as the evaluation does)."""
    import gymnasium as gym

    import kumo_gym  # noqa: F401

    from ..wrappers.chat import ChatEnv

    env = ChatEnv(gym.make(spec.env_id, split=instance.split or "train", **spec.kwargs))
    messages, _ = env.reset(options={"instance": instance})
    env.close()
    return messages


def guarded_instances(specs: list[EvalSpec], n, split: str = "train", seed: int = 0, shard: str | None = None,
                      exclude_ids: set[str] | None = None):
    """``(spec, task, instance)`` for the first ``n`` instances of every spec (``n``: one count for
    all, or one per spec), refusing leakage.

    ``split="train"`` runs each family's ``check_trainable`` (held-out KUMO domains are refused);
    any instance whose id is in ``exclude_ids`` (an evaluation set) raises ContaminationError.
    """
    from .data import generate_instances

    counts = [n] * len(specs) if isinstance(n, int) else list(n)
    if len(counts) != len(specs):
        raise ConfigError(f"{len(counts)} counts for {len(specs)} environment specs")
    for spec, count in zip(specs, counts):
        if not count:
            continue
        task = get_task(spec.env_id)
        for inst in generate_instances(spec.env_id, count, split=split, seed=seed, shard=shard,
                                       env_kwargs=spec.generation_params()):
            if split == "train":
                task.check_trainable(inst)
            check_not_heldout(inst, spec.env_id, exclude_ids)
            yield spec, task, inst


def check_not_heldout(inst, env_id: str, exclude_ids: set[str] | None) -> None:
    if exclude_ids and inst.instance_id in exclude_ids:
        raise ContaminationError(f"training instance {inst.instance_id} of {env_id} is in the held-out "
                                 "evaluation set")


def build_records(specs: list[EvalSpec], n, split: str = "train", seed: int = 0, shard: str | None = None,
                  exclude_ids: set[str] | None = None) -> list[dict]:
    """Prompt rows for every spec (``n`` each, or ``n[i]`` for spec ``i``), shuffled together
    deterministically.

    Each row: ``prompt`` (chat messages), ``env_id``, ``instance`` (JSON text), ``instance_id``,
    ``family``, ``difficulty``, ``mode`` and ``spec`` (the kwargs as JSON). Leakage is refused as
    in :func:`guarded_instances`.
    """
    rows = []
    for spec, task, inst in guarded_instances(specs, n, split, seed, shard, exclude_ids):
        rows.append({
            "prompt": opening_messages(spec, inst),
            "env_id": spec.env_id,
            "instance": inst.to_json(),
            "instance_id": inst.instance_id,
            "family": inst.family,
            "difficulty": str(task.difficulty_of(inst) or ""),
            "mode": spec.mode,
            "spec": canonical_json(spec.kwargs),
        })
    order = np.random.default_rng(seed).permutation(len(rows))
    return [rows[i] for i in order]


@dataclass
class TrainingData:
    """What a run trains on: fixed ``rows``, or a ``curriculum`` (with its ``mixture``) that makes
    them while training; ``eval_specs`` for the held-out callback."""

    rows: list[dict] | None
    eval_specs: list[EvalSpec]
    multi_turn: bool
    mixture: Any = None
    curriculum: Any = None


def training_data(specs: list[EvalSpec], n: int, seed: int, shard: str | None, exclude_ids, mixture=None,
                  curriculum=None, builder=None) -> TrainingData:
    """The rows (or the curriculum) of a run from ``envs`` specs, a mixture and a curriculum.

    ``builder(specs, counts)`` makes fixed rows (default :func:`build_records`; SFT passes its
    golden records).
    """
    from .mixture import Mixture, MixtureEntry

    for s in specs:
        if s.kwargs.get("observation", "text") != "text":
            raise ConfigError(f"{s.env_id}: observation={s.kwargs['observation']!r} is for vision-language models, "
                              "which kumo-gym train does not load; build the data with kumo_gym.make_dataset(..., "
                              "env_kwargs={'observation': 'image+text'}) and give it to TRL's GRPOTrainer or "
                              "SFTTrainer with the model's processor (docs/training.md, vision-language training)")
    builder = builder or (lambda sp, counts: build_records(sp, counts, "train", seed, shard, exclude_ids))
    mix = None
    if mixture is not None:
        mix = Mixture.from_config(mixture)
        if specs:
            mix = Mixture([*mix.entries, *(MixtureEntry(s.env_id, 1.0, dict(s.kwargs)) for s in specs)])
    elif specs and curriculum is not None:
        mix = Mixture([MixtureEntry(s.env_id, 1.0, dict(s.kwargs)) for s in specs])
    if curriculum is not None:
        from .curriculum import Curriculum

        cur = Curriculum.from_config(curriculum)
        if mix is not None:
            missing = set(cur.schedules) - {e.env_id for e in mix.entries}
            if missing:
                mix = Mixture([*mix.entries, *(MixtureEntry(e, 1.0, dict(cur.env_kwargs[e])) for e in sorted(missing))])
        entries = mix.entries if mix is not None else [MixtureEntry(e, 1.0, dict(cur.env_kwargs[e]))
                                                      for e in cur.schedules]
        eval_specs = []
        for e in entries:
            kw = e.env_kwargs
            if e.env_id in cur.schedules:  # held-out evaluation at the ladder's top: the target
                kw = {**{k: v for k, v in kw.items() if k in ENV_ONLY}, **cur.final_kwargs(e.env_id)}
            eval_specs.append(EvalSpec(e.env_id, kw))
        multi = any(s.mode != "answer" for s in eval_specs)
        return TrainingData(None, eval_specs, multi, mix, cur)
    counts: int | list[int]
    if mix is not None:
        specs = [EvalSpec(e.env_id, dict(e.env_kwargs)) for e in mix.entries]
        counts = mix.counts(n, "train", seed)
    else:
        counts = n
    return TrainingData(builder(specs, counts), specs, any(s.mode != "answer" for s in specs), mix)
