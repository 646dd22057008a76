"""Fixtures of the SPaRC tests: the official reference sample (evaluation data, never copied here)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.fixture(scope="session")
def ref_lines(reference):
    path = reference / "sparc" / "sparc_dev_50.jsonl"
    if not path.is_file():
        pytest.skip(f"SPaRC reference sample not found at {path}")
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="session")
def ref_records(ref_lines):
    return [json.loads(line) for line in ref_lines]


def fresh_reset(seed: int, timeout: int, **env_kwargs) -> str:
    """Make ``kumo_gym/SPaRC-v0`` with ``env_kwargs`` and reset it with ``seed`` in a fresh Python
    process: the puzzle's level and whether numba was imported, e.g. ``"5 False"``."""
    code = ("import sys, gymnasium as gym, kumo_gym\n"
            f"env = gym.make('kumo_gym/SPaRC-v0', **{env_kwargs!r})\n"
            f"env.reset(seed={seed})\n"
            "print(env.unwrapped.instance.data['difficulty_level'], 'numba' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=timeout)
    return out.stdout.strip().splitlines()[-1]


def stored_paths(record) -> list[list[tuple[int, int]]]:
    return [[(d["x"], d["y"]) for d in s["path"]] for s in record["solutions"]]


@pytest.fixture(scope="session")
def maybe_ref_records():
    """The reference records, or [] when absent (for tests that also run on generated puzzles)."""
    from ..conftest import reference_dir

    root = reference_dir()
    path = None if root is None else root / "sparc" / "sparc_dev_50.jsonl"
    if path is None or not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
