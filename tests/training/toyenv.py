"""Registers the core tests' "reach the target" task as ``kumo_gym/Reach-v0`` for the training tests,
so the harness and the trainers are tested without depending on which families have landed."""
from __future__ import annotations

from kumo_gym.core.registry import EnvEntry, add_entry

ENV_ID = "kumo_gym/Reach-v0"
ENTRY = EnvEntry(name="Reach", task="tests.core.toy:ReachTask", family="reach",
                 summary="test-only: reach a target with steps of 1, 2 or 3", modes=("answer", "interactive"))


def install() -> str:
    """Add the entry to the catalogue and register it with Gymnasium (idempotent)."""
    return add_entry(ENTRY)
