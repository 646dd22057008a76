"""GRPO and SFT runs of a few steps on the tiny model, the callback, token masks and the held-out guard."""
from __future__ import annotations

import json

import pytest

from kumo_gym.core.errors import ContaminationError
from kumo_gym.training.evaluate import make_specs


def _keys(history: list[dict]) -> set[str]:
    return {k for h in history for k in h}


def test_grpo_single_turn_logs_reward_components_and_callback(reach, tiny, tmp_path):
    from kumo_gym.training.grpo import train_grpo

    trainer = train_grpo([f"{reach}:difficulty=easy"], model=tiny, size=6, output_dir=str(tmp_path), max_steps=2,
                         num_generations=2, prompts_per_step=2, max_completion_length=12, callback_every=2,
                         callback_n=2, callback_max_tokens=8, save=False)
    keys = _keys(trainer.state.log_history)
    for kind in ("binary", "partial", "format"):
        assert f"rewards/puzzle_{kind}/mean" in keys
    # TRL's log_metric hook carries the count of failed scorings (none here)
    assert [h["rewards/scoring_errors"] for h in trainer.state.log_history if "rewards/scoring_errors" in h] == [0.0, 0.0]
    assert {"kumo_eval/success", "kumo_eval/parse_error", "kumo_eval/truncated", "kumo_eval/tokens"} <= keys
    assert trainer.state.global_step == 2
    saved = json.loads((tmp_path / "log_history.json").read_text())
    assert any("kumo_eval/success" in h for h in saved)
    assert (tmp_path / "callback" / "step-2" / "traces.jsonl").exists()


def test_grpo_multi_turn_rollouts(reach, tiny, tmp_path):
    from kumo_gym.training.grpo import train_grpo

    trainer = train_grpo([f"{reach}:mode=interactive"], model=tiny, size=4, output_dir=str(tmp_path), max_steps=2,
                         num_generations=2, prompts_per_step=1, max_completion_length=24, max_turn_tokens=6,
                         save=False)
    keys = _keys(trainer.state.log_history)
    assert "rewards/puzzle_binary/mean" in keys and trainer.state.global_step == 2


def test_sft_on_golden_trajectories_with_assistant_only_loss(reach, tiny, tmp_path):
    from kumo_gym.training.sft import golden_records, train_sft

    rows = golden_records(make_specs([reach], mode="interactive"), 2)
    assert all(r["messages"][-1]["role"] == "assistant" for r in rows)
    trainer = train_sft([reach, f"{reach}:mode=interactive"], model=tiny, size=4, output_dir=str(tmp_path),
                        max_steps=2, batch_size=2, callback_every=2, callback_n=1, callback_max_tokens=8, save=True)
    keys = _keys(trainer.state.log_history)
    assert "loss" in keys and "kumo_eval/success" in keys
    for row in trainer.train_dataset:
        trained = [t for t, label in zip(row["input_ids"], row["labels"]) if label != -100]
        assert 0 < len(trained) < len(row["input_ids"])  # loss on assistant tokens only, never on the prompt
        assert trained[-1] == trainer.processing_class.eos_token_id  # the model learns to end its turn
    assert (tmp_path / "model" / "config.json").exists()


def test_heldout_guard_refuses_leakage(reach, tmp_path):
    from kumo_gym.training.data import generate_instances
    from kumo_gym.training.sft import golden_records, train_sft
    from kumo_gym.training.trainset import build_records

    specs = make_specs([reach])
    leaked = next(generate_instances(reach, 1, split="train", seed=0)).instance_id
    with pytest.raises(ContaminationError, match=leaked):
        golden_records(specs, 3, exclude_ids={leaked})
    with pytest.raises(ContaminationError, match=leaked):
        build_records(specs, 3, exclude_ids={leaked})
    with pytest.raises(ContaminationError):
        train_sft([reach], rows=[{"messages": [], "instance_id": leaked}], exclude_ids={leaked},
                  output_dir=str(tmp_path))
    # families mark data as evaluation-only through check_trainable; the builders call it for train data
    from kumo_gym.core.registry import get_task

    task = get_task(reach)

    def refuse(instance):
        raise ContaminationError(f"instance {instance.instance_id} is held out")

    task.check_trainable = refuse
    try:
        with pytest.raises(ContaminationError, match="held out"):
            golden_records(specs, 1)
        with pytest.raises(ContaminationError, match="held out"):
            build_records(specs, 1)
        golden_records(specs, 1, split="validation")  # evaluation data may still be built
    finally:
        del task.check_trainable
