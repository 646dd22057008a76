"""`kumo-gym train`: every GRPOConfig/SFTConfig and ModelConfig field from the command line or a
YAML file, LoRA through peft, gradient accumulation and bf16 switches."""
from __future__ import annotations

import json

import pytest

from kumo_gym.cli import build_parser, main
from kumo_gym.core.errors import ConfigError
from kumo_gym.training.config import load_config_file, parse_trainer_cli, split_options


def _setup(argv):
    from kumo_gym.cli.train import train_setup

    args, extra = build_parser().parse_known_args(argv)
    return train_setup(args, extra)


def test_options_sort_into_ours_trainer_and_model_fields():
    s = split_options("grpo", {"envs": ["Hanoi"], "size": 8, "gradient-accumulation-steps": 4, "bf16": True,
                               "use_peft": True, "lora_r": 8, "out": "runs/x", "batch_size": 2})
    assert s.kumo == {"envs": ["Hanoi"], "size": 8, "output_dir": "runs/x"}
    assert s.trainer == {"gradient_accumulation_steps": 4, "bf16": True, "per_device_train_batch_size": 2}
    assert s.model == {"use_peft": True, "lora_r": 8}
    with pytest.raises(ConfigError, match="did you mean learning_rate"):
        split_options("grpo", {"learning_rat": 1e-5})
    with pytest.raises(ConfigError, match="num_generations"):  # a GRPO field is not an SFT one
        split_options("sft", {"num_generations": 4})


def test_yaml_file_is_data_only_and_checked(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("- just\n- a list\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config_file(bad, "grpo")
    bad.write_text("learning_rate: !!python/object/apply:os.system ['true']\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config_file(bad, "grpo")
    with pytest.raises(ConfigError, match="does not exist"):
        load_config_file(tmp_path / "nope.yaml", "grpo")


def test_command_line_overrides_file_overrides_defaults(tmp_path):
    cfg = tmp_path / "run.yaml"
    cfg.write_text("envs: [Hanoi:difficulty=easy]\nsize: 8\nlearning_rate: 3.0e-6\nmax_steps: 7\nuse_peft: true\n"
                   "gradient_accumulation_steps: 4\n")
    s = _setup(["train", "grpo", "--config", str(cfg), "--max-steps", "9", "--bf16", "false", "--lora_r", "4",
                "--size", "5", "--num_generations", "8"])
    assert s.kumo["envs"] == ["Hanoi:difficulty=easy"] and s.kumo["size"] == 5 and s.kumo["model"] == "tiny"
    assert s.trainer == {"learning_rate": 3e-6, "max_steps": 9, "gradient_accumulation_steps": 4, "bf16": False,
                         "num_generations": 8}
    assert s.model == {"use_peft": True, "lora_r": 4}
    assert s.kumo["output_dir"] == "runs/grpo"
    # only the fields named on the command line are taken (TRL's defaults never override ours)
    assert parse_trainer_cli("sft", ["--max_length", "128"]).trainer == {"max_length": 128}
    with pytest.raises(ConfigError, match="no-such-field. is not a kumo-gym option"):
        parse_trainer_cli("grpo", ["--no-such-field", "1"])
    with pytest.raises(SystemExit, match="environments"):
        _setup(["train", "sft", "--size", "3"])


def test_grpo_defaults_and_trainer_fields_meet_in_the_config():
    from kumo_gym.training.config import make_config
    from kumo_gym.training.grpo import grpo_trainer_args

    args = grpo_trainer_args({"gradient_accumulation_steps": 2}, num_generations=4, prompts_per_step=3,
                             output_dir="x", max_steps=5)
    assert args["per_device_train_batch_size"] == 12 and args["gradient_accumulation_steps"] == 2
    config = make_config("grpo", args)
    assert config.gradient_accumulation_steps == 2 and config.max_steps == 5
    with pytest.raises(ConfigError, match="GRPOConfig"):
        make_config("grpo", {**args, "per_device_train_batch_size": 3})  # not a multiple of num_generations


@pytest.mark.slow
def test_yaml_lora_run_end_to_end_then_eval(reach, tiny, tmp_path):
    cfg = tmp_path / "run.yaml"
    cfg.write_text(f"""
envs:
  - id: {reach}
    difficulty: easy
size: 4
max_steps: 1
num_generations: 2
prompts_per_step: 2
max_completion_length: 8
gradient_accumulation_steps: 2
use_peft: true
lora_r: 4
lora_alpha: 8
""")
    out = tmp_path / "run"
    assert main(["train", "grpo", "--config", str(cfg), "--model", str(tiny), "--out", str(out), "--lora-r", "2",
                 "--bf16", "false", "--learning_rate", "1e-4"]) == 0
    ran = json.loads((out / "trainer_args.json").read_text())
    assert ran["gradient_accumulation_steps"] == 2 and ran["bf16"] is False and ran["learning_rate"] == 1e-4
    assert ran["per_device_train_batch_size"] == 4 and ran["num_generations"] == 2
    adapter = json.loads((out / "adapter" / "adapter_config.json").read_text())
    assert adapter["r"] == 2 and adapter["lora_alpha"] == 8  # command line over file
    assert (out / "train_config.yaml").read_text().count("lora_r: 2") == 1
    # the merged model is a plain model: evaluation loads it like any other
    run = tmp_path / "eval"
    assert main(["eval", "--env", reach, "--model", str(out / "model"), "--size", "1", "--max-tokens", "4",
                 "--out", str(run), "--quiet", "--no-plots"]) == 0
    assert (run / "results.json").exists()


def test_mixture_and_curriculum_reach_the_trainer(tmp_path, trainer_calls):
    from kumo_gym.training.run import run_training

    seen = trainer_calls
    cfg = tmp_path / "run.yaml"
    cfg.write_text("mixture:\n  envs:\n    - {id: Hanoi, weight: 2, difficulty: easy}\n    - {id: Towers}\n"
                   "curriculum:\n  envs:\n    Hanoi: [easy, medium]\nsize: 10\n")
    run_training(_setup(["train", "grpo", "--config", str(cfg), "--out", str(tmp_path / "o")]))
    assert seen["mixture"]["envs"][0]["weight"] == 2 and seen["curriculum"]["envs"] == {"Hanoi": ["easy", "medium"]}
    assert seen["envs"] == [] and seen["size"] == 10
    run_training(_setup(["train", "sft", "--mixture", "m.yaml", "--out", str(tmp_path / "o")]))
    assert seen["mixture"] == "m.yaml"


def test_training_data_from_a_mixture_counts_rows_per_entry():
    from kumo_gym.training.trainset import training_data

    data = training_data([], 12, 0, None, None, mixture={"envs": [{"id": "Hanoi", "weight": 1, "difficulty": "easy"},
                                                                 {"id": "Towers", "difficulty": "trivial"}]})
    assert len(data.rows) == 12 and {r["env_id"] for r in data.rows} == {"kumo_gym/Hanoi-v0", "kumo_gym/Towers-v0"}
    assert [s.env_id for s in data.eval_specs] == ["kumo_gym/Hanoi-v0", "kumo_gym/Towers-v0"]
    cur = training_data([], 12, 0, None, None, curriculum={"envs": {"Hanoi": ["easy", "hard"]}})
    assert cur.rows is None and cur.eval_specs[0].kwargs == {"difficulty": "hard"}  # judged at the top level
