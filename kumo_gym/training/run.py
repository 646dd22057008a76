"""A whole training run from a :class:`~kumo_gym.training.config.TrainSetup` (``kumo-gym train``
and scripts): the held-out guard, the written configuration, then GRPO or SFT."""
from __future__ import annotations

from pathlib import Path

from .config import write_config
from .data import check_seed


def heldout_ids(paths: list[str] | None) -> set[str] | None:
    """Instance ids from evaluation trace or record files (JSONL with ``instance_id``)."""
    if not paths:
        return None
    from ..wrappers.trace import read_traces

    ids = set()
    for p in paths:
        # a typo must not turn the contamination guard off: every file must exist and hold ids
        if not Path(p).is_file():
            raise SystemExit(f"error: --heldout {p}: no such file")
        found = {r["instance_id"] for r in read_traces(p) if isinstance(r, dict) and r.get("instance_id")}
        if not found:
            raise SystemExit(f"error: --heldout {p} holds no records with an instance_id (give evaluation "
                             "traces or dataset records)")
        ids |= found
    return ids


def run_training(setup):
    """Train as ``setup`` says; returns the trainer (``kumo-gym train`` and scripts)."""
    kumo = dict(setup.kumo)
    envs = kumo.pop("envs", None) or []
    heldout = kumo.pop("heldout", None)
    if isinstance(heldout, str):
        heldout = [heldout]
    check_seed(setup.trainer.get("seed", 0))  # before anything is written
    kwargs = dict(model=kumo.pop("model"), size=kumo.pop("size"), output_dir=kumo.pop("output_dir"),
                  exclude_ids=heldout_ids(heldout), trainer_args=setup.trainer, model_args=setup.model, **kumo)
    write_config(setup, f"{kwargs['output_dir']}/train_config.yaml")
    if setup.algo == "grpo":
        from . import grpo

        return grpo.train_grpo(envs, **kwargs)
    from . import sft

    return sft.train_sft(envs, **kwargs)
