"""``kumo-gym generate --format datasets``: a ``datasets`` dataset with its card, loadable as is."""
from __future__ import annotations

import json

import pytest

datasets = pytest.importorskip("datasets", reason="the [train] extra (datasets) is not installed")

import kumo_gym
from kumo_gym.cli import main

ENV = "kumo_gym/Tents-v0"


def test_generate_datasets_round_trip(tmp_path, capsys):
    out = tmp_path / "hanoi"
    rc = main(["generate", ENV, "--size", "6", "--seed", "3", "--golden", "--format", "datasets",
               "--out", str(out), "--quiet", "--difficulty", "trivial"])
    assert rc == 0
    ds = datasets.load_from_disk(str(out))
    assert len(ds) == 6
    # the rows are make_dataset's records, and every golden answer scores as solved
    local = kumo_gym.make_dataset(ENV, 6, seed=3, difficulty="trivial", with_golden=True)
    assert ds["instance_id"] == [r["instance_id"] for r in local]
    for row in ds:
        assert json.loads(row["instance"]) == local[ds["instance_id"].index(row["instance_id"])]["instance"]
        assert kumo_gym.score(row["env_id"], row["instance"], row["golden"]).status == "solved"
    card = (out / "README.md").read_text()
    assert card.startswith("---\nlicense: apache-2.0")
    for fact in (ENV, '"difficulty": "trivial"', "| seed | `3` |", "indices 0 to 5 of 6", "check_trainable", "kumo_gym.score",
                 "Apache-2.0", "--size 6 --split train --seed 3 --env-kwargs difficulty=trivial --golden --format datasets"):
        assert fact in card, fact
    assert not (tmp_path / "hanoi.partial").exists()


def test_generate_datasets_shard_and_split_in_card(tmp_path):
    out = tmp_path / "d"
    assert main(["generate", ENV, "--size", "8", "--shard", "1/2", "--split", "test", "--format", "datasets",
                 "--out", str(out), "--quiet", "--prompt-format", "text", "--difficulty", "trivial"]) == 0
    ds = datasets.load_from_disk(str(out))
    assert len(ds) == 4 and set(ds["split"]) == {"test"} and isinstance(ds[0]["prompt"], str)
    card = (out / "README.md").read_text()
    assert "indices 4 to 7 of 8 (shard 1/2)" in card and "keep it out of training" in card


def test_generate_datasets_refuses_a_used_directory_and_bad_flags(tmp_path, capsys):
    out = tmp_path / "used"
    out.mkdir()
    (out / "x").write_text("mine")
    assert main(["generate", ENV, "--size", "2", "--format", "datasets", "--out", str(out), "--quiet"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert (out / "x").read_text() == "mine"
    with pytest.raises(SystemExit, match="--push-to-hub needs --format datasets"):
        main(["generate", ENV, "--size", "2", "--out", str(tmp_path / "a.jsonl"), "--push-to-hub", "me/x"])
