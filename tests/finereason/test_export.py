"""Training data export (docs/specs/finereason.md §8): mixed SC/ST rows whose golden answers score 1."""
from __future__ import annotations

import json

import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.finereason.export import export_training, mix_with, sample_items
from kumo_gym.training.rewards import make_reward_function


def test_export_rows_score_one_with_their_golden_answer(tmp_path):
    rows = export_training(12, sc_fraction=0.5, puzzles=("sudoku", "coloring", "game24", "logicgrid"), seed=1,
                           difficulty="easy")
    assert len(rows) == 12
    assert sorted(r["task"] for r in rows).count("sc") == 6
    assert {r["puzzle"] for r in rows} == {"sudoku", "coloring", "game24", "logicgrid"}
    reward = make_reward_function(kind="binary")
    scores = reward(prompts=[r["prompt"] for r in rows], completions=[r["answer"] for r in rows],
                    instance=[r["instance"] for r in rows], env_id=[r["env_id"] for r in rows])
    assert scores == [1.0] * 12
    again = export_training(12, sc_fraction=0.5, puzzles=("sudoku", "coloring", "game24", "logicgrid"), seed=1,
                            difficulty="easy")
    assert [r["instance"] for r in again] == [r["instance"] for r in rows]
    path = export_training(4, sc_fraction=1.0, puzzles=("game24",), seed=2, format="jsonl",
                           path=tmp_path / "fr.jsonl")
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert len(lines) == 4 and all(r["task"] == "sc" for r in lines)


def test_export_refuses_reference_items_unless_allowed():
    items = sample_items("game24", 2, seed=0)
    items[0]["source"] = "reference"
    with pytest.raises(ConfigError, match="allow_reference"):
        export_training(items=items)
    assert len(export_training(items=items, allow_reference=True)) == 2


def test_mix_with_is_reproducible_and_keeps_the_ratio():
    math = [{"prompt": f"m{i}"} for i in range(9000)]
    fr = [{"prompt": f"f{i}"} for i in range(3000)]
    a = mix_with(math, fr, math_ratio=0.8, total=10_000, seed=0)
    b = mix_with(math, fr, math_ratio=0.8, total=10_000, seed=0)
    assert a == b and len(a) == 10_000
    assert sum(r["prompt"].startswith("m") for r in a) == 8000
    with pytest.raises(ConfigError):
        mix_with(math, fr, math_ratio=1.5)
