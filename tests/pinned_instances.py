"""Pinned instances: the ``instance_id`` every registered id produces, recorded in a checked-in file.

An environment id is a promise (docs/versioning.md): ``gym.make(id, split=..., difficulty=...)``
reset with the same seed yields the same puzzle in every release. ``tests/data/pinned_instances.json``
records, for every registered id, every preset (and the id's defaults, under ``"(default)"``), the
train and test splits and seeds 0, 1, 2, the ``instance_id`` (a content hash of the puzzle,
:class:`kumo_gym.core.instance.Instance`) of the first episode; ``tests/test_pinned_instances.py``
regenerates them all and compares.

Run as a module to look or to record a deliberate change (a new id, a new preset, or a new version
``-v1`` of an id whose generator changed)::

    python -m tests.pinned_instances                    # compare; exit status 1 on a difference
    python -m tests.pinned_instances --update           # rewrite the whole file
    python -m tests.pinned_instances --update kumo_gym/Tents-v1 Hanoi   # rewrite these ids only

Generation goes through ``gym.make`` and ``reset(seed=...)`` in the id's default mode, the path a
user takes, so the per-item seed derivation (:mod:`kumo_gym.core.seeding`) is pinned with it.
"""
from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import gymnasium as gym

import kumo_gym  # noqa: F401  (registers the environments)
from kumo_gym.core.registry import entries, get_task, resolve_env_id

PINS = Path(__file__).resolve().parent / "data" / "pinned_instances.json"
SEEDS = (0, 1, 2)
SPLITS = ("train", "test")
#: the key of an id's own defaults (``gym.make(id)`` without ``difficulty``)
DEFAULT = "(default)"


def presets(env_id: str) -> list[str]:
    """The keys pinned for ``env_id``: its defaults, then every preset in the task's order."""
    return [DEFAULT, *get_task(env_id).difficulties]


def instance_ids(env_id: str, preset: str, split: str, seeds=SEEDS) -> list[str]:
    """The ``instance_id`` of the first episode of ``gym.make(env_id, split=split, difficulty=preset)``
    reset with each of ``seeds``."""
    kwargs = {"split": split} if preset == DEFAULT else {"split": split, "difficulty": preset}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium's checker on text spaces; not what is pinned here
        env = gym.make(env_id, **kwargs)
        try:
            return [env.reset(seed=s)[1]["instance_id"] for s in seeds]
        finally:
            env.close()


def pins_of(env_id: str) -> dict:
    """``{preset: {split: [instance_id per seed]}}`` of ``env_id`` as the code generates it now."""
    return {p: {split: instance_ids(env_id, p, split) for split in SPLITS} for p in presets(env_id)}


def registered_ids() -> list[str]:
    return [e.id for e in entries()]


def load() -> dict:
    """The recorded pins: ``{env_id: {preset: {split: [instance_id, ...]}}}`` (empty when absent)."""
    if not PINS.exists():
        return {}
    return json.loads(PINS.read_text())


def save(pins: dict) -> None:
    """Write the file: one line per id and preset, so a change reads as a one-line diff."""
    lines = ["{", f' "seeds": {json.dumps(list(SEEDS))},', f' "splits": {json.dumps(list(SPLITS))},', ' "ids": {']
    for i, env_id in enumerate(sorted(pins)):
        lines.append(f"  {json.dumps(env_id)}: {{")
        rows = list(pins[env_id].items())
        for j, (preset, by_split) in enumerate(rows):
            lines.append(f"   {json.dumps(preset)}: {json.dumps(by_split)}" + ("," if j < len(rows) - 1 else ""))
        lines.append("  }" + ("," if i < len(pins) - 1 else ""))
    lines += [" }", "}"]
    PINS.parent.mkdir(parents=True, exist_ok=True)
    PINS.write_text("\n".join(lines) + "\n")


def recorded() -> dict:
    """The ``ids`` table of the file."""
    return load().get("ids", {})


def differences(env_id: str, want: dict, got: dict) -> list[str]:
    """One line per preset, split and seed whose instance differs (or is missing on one side)."""
    out = []
    for p in sorted(set(want) | set(got), key=lambda k: (k != DEFAULT, k)):
        if p not in got:
            out.append(f"{env_id} preset {p!r}: pinned but the task no longer has this preset")
            continue
        if p not in want:
            out.append(f"{env_id} preset {p!r}: not pinned (a new preset: record it with --update {env_id})")
            continue
        for split in SPLITS:
            for seed, a, b in zip(SEEDS, want[p].get(split, []), got[p][split], strict=False):
                if a != b:
                    out.append(f"{env_id} difficulty={p} split={split} seed={seed}: pinned {a}, generated {b}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.pinned_instances", description=__doc__.split("\n\n")[0])
    ap.add_argument("ids", nargs="*", help="ids or names to check or record (default: every registered id)")
    ap.add_argument("--update", action="store_true",
                    help="record what the code generates now (a deliberate change: see docs/versioning.md)")
    args = ap.parse_args(argv)
    ids = [resolve_env_id(i) for i in args.ids] or registered_ids()
    pins = recorded()
    if args.update:
        if not args.ids:
            pins = {}  # a full rewrite
        # ids that are no longer registered (an old version replaced by a new one) leave the file
        pins = {k: v for k, v in pins.items() if k in registered_ids()}
        for env_id in ids:
            pins[env_id] = pins_of(env_id)
            print(f"recorded {env_id}: {len(pins[env_id])} presets x {len(SPLITS)} splits x {len(SEEDS)} seeds")
        save(pins)
        print(f"wrote {PINS}")
        return 0
    bad = []
    for env_id in ids:
        if env_id not in pins:
            bad.append(f"{env_id}: not pinned")
            continue
        bad += differences(env_id, pins[env_id], pins_of(env_id))
    print("\n".join(bad) or f"all {len(ids)} ids generate their pinned instances")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
