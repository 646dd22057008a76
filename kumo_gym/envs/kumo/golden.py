"""Golden trajectories of the oracle as chat data for SFT (``docs/specs/kumo.md`` §10).

Each record is one instance played by the optimal search: a system message (game, lists and the
book, ``symbolic`` by default as in KUMO's SFT set), the first user turn, then alternating
assistant moves (``<ANSWER> name </ANSWER>``) and user observations. Only assistant turns are
trained on: the records are plain TRL conversational ``messages``, which TRL's
``assistant_only_loss=True`` masks correctly (and ``train_on`` lists the trained indices).
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from ...core.errors import ContaminationError
from ...core.instance import Instance
from ...core.seeding import check_split, item_seed
from .game import KumoTask
from .generate import instance_key

ENV_ID = "kumo_gym/KUMO-v0"


def golden_record(task: KumoTask, inst: Instance, rationale: bool = False, memo_limit: int | None = None) -> dict:
    """The chat record of the oracle's play on ``inst`` (full search up to ``memo_limit``)."""
    from .search import DEFAULT_MEMO_LIMIT

    traj = task.oracle(inst, DEFAULT_MEMO_LIMIT if memo_limit is None else memo_limit)
    msgs = task.messages(inst)
    d = inst.data
    truth = d.get("truth_noun") or "truth"
    for i, a in enumerate(traj.actions):
        text = task.format_move(a)
        if rationale:
            text = (f"Still possible: {', '.join(traj.alive[i])}. Running {a}; the search expects "
                    f"{traj.expected[i] - 1:.3f} further tests after it.\n" + text)
        msgs.append({"role": "assistant", "content": text})
        msgs.append({"role": "user", "content": task.observation_text(inst, a)})
    final = task.format_move(traj.predicted)
    if rationale:
        final = f"Only {traj.predicted} can still be the valid {truth}.\n" + final
    msgs.append({"role": "assistant", "content": final})
    return {"messages": msgs, "train_on": [i for i, m in enumerate(msgs) if m["role"] == "assistant"],
            "instance_id": inst.instance_id, "domain": d.get("domain"), "n_truths": d["n_truths"],
            "n_actions": d["n_actions"], "oracle_expected": float(traj.root_expected),
            "oracle_tests": traj.tests, "oracle_optimal": bool(traj.optimal), "solved": traj.predicted == d["valid_truth"]}


def export_golden(instances: Iterable[Instance], path: str | Path | None = None, *, book_format: str = "symbolic",
                  rationale: bool = False, for_training: bool = True, memo_limit: int | None = None) -> list[dict]:
    """Golden records for ``instances`` (deduplicated); with ``path`` also written as JSONL.

    ``for_training`` refuses held-out domains (ContaminationError), as every training builder must.
    """
    task = KumoTask()
    seen, out = set(), []
    for inst in instances:
        if book_format != inst.params.get("book_format", "template"):
            inst = dataclasses.replace(inst, params={**inst.params, "book_format": book_format})
        if for_training:
            task.check_trainable(inst)
        key = instance_key(inst.data)
        if key in seen:
            continue
        seen.add(key)
        out.append(golden_record(task, inst, rationale, memo_limit))
    if path is not None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(rec, ensure_ascii=False) + "\n" for rec in out)
    return out


def iter_instances(n: int, seed: int = 0, split: str = "train", env_id: str = ENV_ID, **kwargs) -> Iterator[Instance]:
    """Unique instances ``0..n-1`` of the KUMO env with ``kwargs`` (same item seeds as the env)."""
    check_split(split)
    task = KumoTask()
    params = task.resolve_params(**kwargs)
    seen: set = set()
    i = 0
    produced = 0
    while produced < n:
        s = item_seed(env_id, params, split, seed, i)
        i += 1
        inst = task.generate(np.random.default_rng(s), **params)
        key = instance_key(inst.data)
        if key in seen:
            continue
        seen.add(key)
        produced += 1
        yield dataclasses.replace(inst, seed=s, split=split)
        if i > 50 * n + 1000:
            raise ContaminationError(f"could not draw {n} distinct instances for {params}")


def golden_conversations(n: int, seed: int = 0, split: str = "train", *, book_format: str = "symbolic",
                         rationale: bool = False, path: str | Path | None = None, memo_limit: int | None = None,
                         **env_kwargs) -> list[dict]:
    """``n`` golden SFT records of ``kumo_gym/KUMO-v0`` with ``env_kwargs`` (``domain``,
    ``difficulty`` or ``n_truths``/``n_actions``, ``heldout_domains`` ...). ``split="train"``
    refuses held-out domains."""
    return export_golden(iter_instances(n, seed, split, **env_kwargs), path, book_format=book_format,
                         rationale=rationale, for_training=split == "train", memo_limit=memo_limit)
