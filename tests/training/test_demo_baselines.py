"""The demo end to end (quick settings) and the PPO baseline on a structured environment."""
from __future__ import annotations

import pytest


@pytest.mark.slow
def test_demo_ends_with_a_report(reach, tiny, tmp_path):
    from kumo_gym.training.demo import run_demo

    report = run_demo(tmp_path / "demo", n=1, grpo_env=reach, quick=True, model=tiny)
    text = report.read_text()
    for heading in ("## 1. The suite", "## 2. A prompt", "## 3. Oracle and random agents", "## 4. GRPO"):
        assert heading in text
    assert "kumo_binary" in text and "kumo_eval/success" in text
    assert (tmp_path / "demo" / "eval" / "results.json").exists()


def test_ppo_baseline_rows(reach):
    pytest.importorskip("stable_baselines3")
    from kumo_gym.training.baselines import ppo_baseline

    rows = ppo_baseline(reach, {"difficulty": "easy"}, timesteps=256, n_eval=3, n_envs=1)
    assert [r["agent"] for r in rows] == ["PPO 0.256k", "random (masked)"]
    for r in rows:
        assert r["episodes"] == 3 and 0.0 <= r["success"] <= 1.0 and r["optimal_moves"] > 0
