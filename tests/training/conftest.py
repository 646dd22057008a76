"""Fixtures of the training tests: the test-only Reach environment and a tiny model built for it."""
from __future__ import annotations

import os

import pytest

from .toyenv import ENTRY, install


@pytest.fixture(scope="session")
def reach():
    """``kumo_gym/Reach-v0`` registered for the session (removed from the catalogue afterwards)."""
    from kumo_gym.core.registry import remove_entry

    env_id = install()
    yield env_id
    remove_entry(ENTRY.name)


@pytest.fixture(scope="session")
def tiny(reach, tmp_path_factory):
    """Directory of a tiny model whose tokenizer is trained on Reach prompts only (seconds to build).

    Under pytest-xdist the workers share one build (in the run's common temporary directory;
    ``tiny_model`` locks it, so one worker builds and the others wait for it)."""
    from kumo_gym.training.backends import tiny_model

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    return tiny_model(root / "tiny-reach" / "model", env_ids=[reach])


@pytest.fixture
def trainer_calls(monkeypatch):
    """The keyword arguments (and ``envs``) of the last GRPO or SFT training call, which does nothing."""
    from kumo_gym.training import grpo, sft

    seen: dict = {}

    def fake(envs, **kw):
        seen.update(kw, envs=envs)

        class T:
            class state:
                global_step = 0
        return T()

    monkeypatch.setattr(grpo, "train_grpo", fake)
    monkeypatch.setattr(sft, "train_sft", fake)
    return seen
