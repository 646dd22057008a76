"""Datasets from environments: the records behind ``kumo_gym.make_dataset``.

Imports nothing heavy; ``datasets`` is imported only when a Hugging Face Dataset is asked for.
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator

import numpy as np

from ..core.errors import check_choice
from ..core.instance import Instance
from ..core.registry import entry, get_task
from ..core.seeding import check_split, item_seed, shard_range
from ..core.verdict import Verdict

FORMATS = ("records", "datasets")


def generate_instances(env_id: str, n: int, split: str = "train", seed: int = 0, shard: str | None = None,
                       **kwargs) -> Iterator[Instance]:
    """The instances ``0..n-1`` of ``(env_id, kwargs, split, seed)``, or those of one shard.

    Item i is exactly the first instance an environment made with the same id and kwargs
    gives after ``reset(seed=...)`` with the matching item seed, so datasets and environments
    agree.
    """
    check_split(split)
    task = get_task(env_id)
    params = task.resolve_params(**kwargs)
    for i in shard_range(n, shard):
        s = item_seed(env_id, task.seed_params(params), split, seed, i)
        inst = task.generate(np.random.default_rng(s), **params)
        yield dataclasses.replace(inst, seed=s, split=split)


def make_record(env_id: str, inst: Instance, with_golden: bool = False) -> dict:
    task = get_task(env_id)
    rec = {
        "env_id": env_id,
        "family": entry(env_id).family,
        "instance_id": inst.instance_id,
        "difficulty": task.difficulty_of(inst),
        "split": inst.split,
        "prompt": task.prompt(inst),
        "messages": task.messages(inst),
        "instance": inst.to_dict(),
        "optimal_steps": task.optimal_steps(inst),
        **task.record_fields(inst),
    }
    if with_golden:
        rec["golden"] = task.format_answer(task.solve(inst))
    return rec


def make_dataset(env_id: str, n: int, split: str = "train", seed: int = 0, *, shard: str | None = None,
                 with_golden: bool = False, format: str = "records", **kwargs):
    """``n`` prompt records of ``env_id`` (see :func:`make_record` for the fields).

    ``split="train"`` refuses evaluation-only or held-out data (ContaminationError).
    ``format="datasets"`` returns a ``datasets.Dataset`` whose ``instance`` column holds the
    instance as JSON text (Arrow needs one schema across puzzles).
    """
    check_choice("format", format, FORMATS)
    task = get_task(env_id)
    records = []
    for inst in generate_instances(env_id, n, split=split, seed=seed, shard=shard, **kwargs):
        if split == "train":
            task.check_trainable(inst)
        records.append(make_record(env_id, inst, with_golden))
    return to_hf_dataset(records) if format == "datasets" else records


def to_hf_dataset(records: list[dict]):
    """A ``datasets.Dataset`` from records (instances and messages kept as JSON text)."""
    import datasets

    rows = []
    for r in records:
        row = dict(r)
        row["instance"] = json.dumps(r["instance"], sort_keys=True)
        row["optimal_steps"] = -1 if r.get("optimal_steps") is None else int(r["optimal_steps"])
        row["difficulty"] = "" if r.get("difficulty") is None else str(r["difficulty"])
        rows.append(row)
    return datasets.Dataset.from_list(rows)


def load_instance(env_id: str, instance) -> Instance:
    """An Instance of ``env_id`` from an Instance, its dict, its JSON text or a family format."""
    if isinstance(instance, str) and instance.lstrip().startswith("{"):
        instance = json.loads(instance)
    return get_task(env_id).load(instance)


def score(env_id: str, instance, completion: str, **meta) -> Verdict:
    """Verify ``completion`` for ``instance`` of ``env_id``. Never raises on the completion."""
    return get_task(env_id).score(load_instance(env_id, instance), completion, **meta)
