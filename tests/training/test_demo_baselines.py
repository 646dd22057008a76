"""The demo end to end (quick settings) and the PPO baseline on a structured environment."""
from __future__ import annotations

import pytest


@pytest.mark.slow
def test_demo_ends_with_a_report(reach, tiny, tmp_path):
    from kumo_gym.training.demo import run_demo

    report = run_demo(tmp_path / "demo", n=1, grpo_env=reach, quick=True, model=tiny)
    text = report.read_text()
    for heading in ("## 1. The suite", "## 2. A prompt", "## 3. Oracle and random agents",
                    "## 4. The tiny model learns"):
        assert heading in text
    assert "**SFT warm-up**: 10 steps" in text and "**GRPO with a curriculum**" in text and "levels easy, hard" in text
    assert "puzzle_binary" in text and "frac_reward_zero_std" in text and "spread of rewards" in text
    assert "What it cannot" in text
    assert (tmp_path / "demo" / "eval" / "results.json").exists()
    assert (tmp_path / "demo" / "grpo" / "grpo.png").exists() and (tmp_path / "demo" / "sft" / "model").is_dir()


def test_learning_diagnosis_says_why_nothing_is_learned():
    from kumo_gym.training.demo import learning_diagnosis

    flat = [{"step": i, "reward": 0.0, "frac_reward_zero_std": 1.0} for i in range(1, 5)]
    assert "nothing could be learned" in learning_diagnosis(flat) and "SFT" in learning_diagnosis(flat)
    key = "curriculum/Hanoi/level"
    climbing = [{"step": i, "reward": r, "frac_reward_zero_std": 0.0, key: lvl}
                for i, (r, lvl) in enumerate([(0.2, 0), (0.5, 0), (0.9, 0), (0.1, 1), (0.3, 1), (0.6, 1)], 1)]
    text = learning_diagnosis(climbing)
    assert "level 0 (steps 1-3): 0.20 -> 0.90" in text and "level 1 (steps 4-6): 0.10 -> 0.60" in text


def test_ppo_baseline_rows(reach):
    pytest.importorskip("stable_baselines3")
    from kumo_gym.training.baselines import ppo_baseline

    rows = ppo_baseline(reach, {"difficulty": "easy"}, timesteps=256, n_eval=3, n_envs=1)
    assert [r["agent"] for r in rows] == ["PPO 0.256k", "random (masked)"]
    for r in rows:
        assert r["episodes"] == 3 and 0.0 <= r["success"] <= 1.0 and r["optimal_moves"] > 0
