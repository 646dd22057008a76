"""Every registered id still generates the instances recorded in tests/data/pinned_instances.json.

A failure here means an id now produces other puzzles for the same preset, split and seed. If that
was not meant, the change broke reproducibility; if it was, the id needs a new version (``-v1``)
and the old behaviour kept or described in its version history: docs/versioning.md says how, and
``python -m tests.pinned_instances --update <id>`` records the new id's instances.
"""
from __future__ import annotations

import pytest

from kumo_gym.core.registry import entry

from . import pinned_instances as pinned
from .registry_helpers import IDS

PINS = pinned.recorded()
POLICY = ("an id must keep generating the same instances; a deliberate change is a new version of the id "
          "(docs/versioning.md), recorded with `python -m tests.pinned_instances --update <id>`")


def test_the_file_pins_every_registered_id_and_nothing_else():
    assert pinned.load().get("seeds") == list(pinned.SEEDS)
    assert pinned.load().get("splits") == list(pinned.SPLITS)
    missing = sorted(set(IDS) - set(PINS))
    stale = sorted(set(PINS) - set(IDS))
    assert not missing, f"ids without pinned instances: {missing}; {POLICY}"
    assert not stale, f"pinned ids that are no longer registered: {stale}; {POLICY}"


@pytest.mark.parametrize("env_id", IDS)
def test_id_generates_its_pinned_instances(env_id):
    if env_id not in PINS:
        pytest.fail(f"{env_id} is not pinned; {POLICY}")
    diff = pinned.differences(env_id, PINS[env_id], pinned.pins_of(env_id))
    assert not diff, "\n".join([*diff, POLICY])


@pytest.mark.parametrize("env_id", [i for i in IDS if len(entry(i).modes) > 1])
def test_every_mode_generates_the_pinned_instances(env_id):
    """The pins are taken in the default mode; the other modes draw the same puzzles."""
    import warnings

    import gymnasium as gym

    want = PINS[env_id][pinned.DEFAULT]["train"]
    for mode in entry(env_id).modes[1:]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env = gym.make(env_id, mode=mode)
            got = [env.reset(seed=s)[1]["instance_id"] for s in pinned.SEEDS]
            env.close()
        assert got == want, f"{env_id} in mode {mode!r} draws {got}, the default mode {want}"


def test_a_changed_generator_is_reported(monkeypatch):
    """The comparison bites: a generator that draws one number more is caught, preset by preset."""
    from kumo_gym.core.registry import get_task

    env_id = "kumo_gym/Tents-v0"
    task = get_task(env_id)
    original = type(task).generate

    def shifted(self, rng, **params):
        rng.integers(0, 2)  # one extra draw: every later choice moves
        return original(self, rng, **params)

    monkeypatch.setattr(type(task), "generate", shifted)
    diff = pinned.differences(env_id, PINS[env_id], pinned.pins_of(env_id))
    # small presets hold few puzzles, so a shifted draw may land on the same one now and then
    assert len(diff) > len(PINS[env_id]) * len(pinned.SPLITS) * len(pinned.SEEDS) // 2, diff
    assert all(line.startswith(f"{env_id} difficulty=") for line in diff), diff


def test_a_new_version_is_a_new_id_and_the_old_one_says_where_it_went():
    """``version`` on a catalogue row is the ``-vN`` of its id; asking for another version names the new id."""
    import gymnasium as gym

    from kumo_gym.core.entry import EnvEntry
    from kumo_gym.core.errors import ConfigError
    from kumo_gym.core.registry import add_entry, remove_entry, resolve_env_id

    row = EnvEntry(name="PinnedHanoiCopy", task="kumo_gym.envs.planning.hanoi:HanoiTask", family="planning",
                   summary="a second Hanoi row, to test versioned ids", modes=("answer",), version=1)
    try:
        assert add_entry(row) == "kumo_gym/PinnedHanoiCopy-v1"
        assert resolve_env_id("PinnedHanoiCopy-v1") == row.id
        gym.make(row.id).close()
        with pytest.raises(ConfigError, match="this release has kumo_gym/PinnedHanoiCopy-v1"):
            entry("kumo_gym/PinnedHanoiCopy-v0")
    finally:
        remove_entry("PinnedHanoiCopy")
