"""Registers the core tests' "reach the target" task as ``kumo_gym/Reach-v0`` for the training tests,
so the harness and the trainers are tested without depending on which families have landed."""
from __future__ import annotations

from kumo_gym.core.registry import EnvEntry, register_all

ENV_ID = "kumo_gym/Reach-v0"
ENTRY = EnvEntry(name="Reach", task="tests.core.toy:ReachTask", family="reach",
                 summary="test-only: reach a target with steps of 1, 2 or 3", modes=("answer", "interactive"))


def install() -> str:
    """Add the entry to the catalogue and register it with Gymnasium (idempotent)."""
    from kumo_gym.envs import catalog

    if all(e.name != ENTRY.name for e in catalog.ENVIRONMENTS):
        catalog.ENVIRONMENTS.append(ENTRY)
    register_all()
    return ENV_ID
