"""`make_dataset` output goes straight into TRL's GRPOTrainer and SFTTrainer, with no glue code."""
from __future__ import annotations

import json

import pytest

import kumo_gym


def test_records_are_conversational_by_default_and_text_on_request(reach):
    from trl.data_utils import is_conversational

    conv = kumo_gym.make_dataset(reach, 2, difficulty="easy", with_golden=True)
    text = kumo_gym.make_dataset(reach, 2, difficulty="easy", with_golden=True, prompt_format="text")
    assert is_conversational(conv[0]) and not is_conversational(text[0])
    assert conv[0]["prompt"][-1] == {"role": "user", "content": text[0]["prompt"]}
    assert conv[0]["completion"] == [{"role": "assistant", "content": conv[0]["golden"]}]
    assert text[0]["completion"] == text[0]["golden"]
    # the records score themselves: the golden completion is solved by the reward function
    reward = kumo_gym.reward_function()
    assert reward(prompts=[r["prompt"] for r in conv], completions=[r["completion"] for r in conv],
                  instance=[r["instance"] for r in conv], env_id=[r["env_id"] for r in conv]) == [1.0, 1.0]


def test_prompt_options_and_mode_shape_the_records(reach):
    tpl = kumo_gym.make_dataset(reach, 1, env_kwargs={"prompt_template": "Puzzle:\n{prompt}\nGo."})[0]
    assert tpl["prompt"][-1]["content"].startswith("Puzzle:\n") and tpl["prompt"][-1]["content"].endswith("Go.")
    inter = kumo_gym.make_dataset(reach, 1, env_kwargs={"mode": "interactive"})[0]
    plain = kumo_gym.make_dataset(reach, 1)[0]
    assert inter["mode"] == "interactive" and plain["mode"] == "answer"
    assert inter["instance_id"] == plain["instance_id"] and inter["prompt"] != plain["prompt"]


@pytest.mark.slow
def test_grpo_and_sft_trainers_take_make_dataset_output(reach, tiny, tmp_path):
    from trl import GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer

    ds = kumo_gym.make_dataset(reach, 4, difficulty="easy", with_golden=True, format="datasets")
    seen = []
    reward = kumo_gym.reward_function()

    def watched(prompts, completions, **columns):  # records what TRL hands the reward function
        seen.append((prompts, completions, columns))
        return reward(prompts=prompts, completions=completions, **columns)

    common = {"use_cpu": True, "report_to": "none", "logging_steps": 1, "save_strategy": "no", "max_steps": 1}
    grpo = GRPOTrainer(model=str(tiny), reward_funcs=[watched], train_dataset=ds,
                       args=GRPOConfig(output_dir=str(tmp_path / "g"), per_device_train_batch_size=4,
                                       num_generations=2, max_completion_length=6, **common))
    grpo.train()
    prompts, completions, columns = seen[0]
    assert isinstance(prompts[0], list) and prompts[0][-1]["role"] == "user"  # conversational: chat template applied
    assert isinstance(completions[0], list) and completions[0][0]["role"] == "assistant"
    assert json.loads(columns["instance"][0])["family"] == "reach" and columns["env_id"][0] == reach
    assert "rewards/watched/mean" in grpo.state.log_history[0]

    sft = SFTTrainer(model=str(tiny), train_dataset=ds,
                     args=SFTConfig(output_dir=str(tmp_path / "s"), per_device_train_batch_size=2, **common))
    sft.train()
    tok = sft.processing_class
    for row, rec in zip(sft.train_dataset, ds):
        trained = [t for t, label in zip(row["input_ids"], row["labels"]) if label != -100]
        # the loss is on the golden completion (and its end of turn), never on the prompt
        assert tok.decode(trained).startswith(rec["golden"])
