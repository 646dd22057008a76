"""Per-item seeds derived by hashing, with disjoint split key-spaces (docs/architecture.md §5).

An item's generator is seeded from a SHA-256 digest of ``(env id, canonical params, split, seed,
index)``. Neighbouring seeds and indices therefore share nothing, unlike ``seed + index``, and
the split name is part of the key, so train/validation/test draw from independent streams.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np

from .errors import ConfigError, ContaminationError, check_choice
from .instance import canonical_json

SPLITS = ("train", "validation", "test")


def check_split(split: str) -> str:
    check_choice("split", split, SPLITS)
    return split


def derive_entropy(*key) -> list[int]:
    """Four 32-bit words of entropy from the canonical JSON of ``key``."""
    digest = hashlib.sha256(canonical_json(list(key)).encode("utf-8")).digest()
    return [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]


def derive_seed(*key) -> int:
    """A 63-bit integer seed for ``key`` (stable across processes and platforms)."""
    digest = hashlib.sha256(canonical_json(list(key)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def item_rng(env_id: str, params: dict, split: str, seed: int, index: int) -> np.random.Generator:
    """The generator for item ``index`` of ``(env_id, params, split, seed)``."""
    check_split(split)
    return np.random.default_rng(np.random.SeedSequence(derive_entropy(env_id, params, split, int(seed), int(index))))


def item_seed(env_id: str, params: dict, split: str, seed: int, index: int) -> int:
    return derive_seed(env_id, params, split, int(seed), int(index))


def shard_range(n: int, shard: str | None) -> range:
    """Indices of shard ``"i/k"`` (0-based i) of ``range(n)``: contiguous, disjoint, covering."""
    if shard is None:
        return range(n)
    try:
        i, k = (int(p) for p in str(shard).split("/"))
    except ValueError:
        raise ConfigError(f"shard {shard!r} is not of the form i/n, e.g. 0/4") from None
    if not (k >= 1 and 0 <= i < k):
        raise ConfigError(f"shard {shard!r} needs 0 <= i < n")
    lo, hi = n * i // k, n * (i + 1) // k
    return range(lo, hi)


class SplitGuard:
    """Rejects instances whose ``instance_id`` belongs to another split.

    >>> guard = SplitGuard({"test": ["abc"]})
    >>> guard.check("abc", split="train")
    Traceback (most recent call last):
    ...
    kumo_gym.core.errors.ContaminationError: instance abc of split 'train' also appears in split 'test'
    """

    def __init__(self, ids_by_split: dict[str, Iterable[str]] | None = None):
        self._owner: dict[str, str] = {}
        for split, ids in (ids_by_split or {}).items():
            self.add(split, ids)

    def add(self, split: str, ids: Iterable[str]) -> None:
        for i in ids:
            self._owner.setdefault(i, split)

    def check(self, instance_id: str, split: str) -> None:
        owner = self._owner.get(instance_id)
        if owner is not None and owner != split:
            raise ContaminationError(
                f"instance {instance_id} of split {split!r} also appears in split {owner!r}")
