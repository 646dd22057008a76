"""The demo end to end (quick settings) and the PPO baseline on a structured environment."""
from __future__ import annotations

import pytest


@pytest.mark.slow
def test_demo_ends_with_a_report(reach, tiny, tmp_path, capsys):
    import json

    from kumo_gym.training.demo import run_demo

    report = run_demo(tmp_path / "demo", n=1, grpo_env=reach, quick=True, model=tiny)
    text = report.read_text()
    for heading in ("## 1. The suite", "## 2. A prompt", "## 3. Oracle and random agents", "learns on fresh puzzles"):
        assert heading in text
    for phase in ("before (base model)", "after the SFT warm-up", "after GRPO"):
        assert phase in text
    assert "95% paired bootstrap interval" in text and "frac_reward_zero_std" in text
    learn = tmp_path / "demo" / "learn"
    result = json.loads((learn / "result.json").read_text())
    split = result["splits"][0]
    records = json.loads((learn / "records.json").read_text())
    # held out means content-fresh: no held-out instance id is a training id, and every phase
    # answered the same held-out puzzles
    from kumo_gym.training.data import generate_instances

    train_ids = {i.instance_id for i in generate_instances(reach, split["train_items"], split="train")}
    held = [r["instance_id"] for r in records["base"][reach]]
    assert held and not set(held) & train_ids
    assert [r["instance_id"] for r in records["grpo"][reach]] == held == [r["instance_id"] for r in records["sft"][reach]]
    # the trainers' log dictionaries are in the run directory, not on the terminal
    logs = [json.loads(x) for x in (learn / "grpo" / "log.jsonl").read_text().splitlines()]
    assert any("reward" in x and "env/share" in x for x in logs)
    assert (learn / "sft" / "log.jsonl").read_text().strip()
    out = capsys.readouterr().out
    assert "'loss':" not in out and "'reward':" not in out and "before (base model)" in out
    assert (tmp_path / "demo" / "eval" / "results.json").exists() and (learn / "learning.png").exists()


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
