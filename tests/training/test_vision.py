"""Image observations for vision-language training: the environment, the chat form, TRL's VLM
GRPO and SFT on a tiny vision-language model built from a config, and OpenAI vision requests."""
from __future__ import annotations

import base64
import io

import gymnasium as gym
import numpy as np
import pytest

import kumo_gym
from kumo_gym.core.capabilities import ImageRendering
from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import entries, get_task
from kumo_gym.wrappers import ChatEnv

DRAWN = [e.id for e in entries() if isinstance(get_task(e.id), ImageRendering)]
SPARC = "kumo_gym/SPaRC-v0"


@pytest.mark.parametrize("env_id", DRAWN)
def test_image_text_observations_in_every_mode(env_id):
    for mode in next(e for e in entries() if e.id == env_id).modes:
        env = gym.make(env_id, mode=mode, observation="image+text", image_size=96)
        obs, info = env.reset(seed=0)
        assert set(obs) == {"text", "image"} and obs["image"].shape == (96, 96, 3)
        assert env.observation_space.contains(obs)
        text_env = gym.make(env_id, mode=mode)
        text_obs, text_info = text_env.reset(seed=0)
        assert obs["text"] == text_obs and info["instance_id"] == text_info["instance_id"]  # same puzzle, same text
        assert obs["image"].std() > 0  # a drawing, not a blank canvas
        obs2, *_ = env.step("not an answer")
        assert isinstance(obs2, dict) and env.observation_space.contains(obs2)


def test_image_observation_passes_the_env_checker():
    from gymnasium.utils.env_checker import check_env

    check_env(gym.make(SPARC, observation="image+text", image_size=64).unwrapped)


def test_image_observation_is_refused_where_nothing_is_drawn():
    plain = next(e.id for e in entries() if e.id not in DRAWN)
    with pytest.raises(ConfigError, match="image"):
        gym.make(plain, observation="image+text")
    with pytest.raises(ConfigError, match="observation 'pixels'"):
        gym.make(SPARC, observation="pixels")


def test_chat_form_is_one_user_message_with_an_image_part_and_the_text():
    from PIL import Image

    chat = ChatEnv(gym.make(SPARC, observation="image+text", difficulty="1"))
    messages, _ = chat.reset(seed=0)
    user = messages[-1]
    assert user["role"] == "user" and [p["type"] for p in user["content"]] == ["image", "text"]
    assert isinstance(user["content"][0]["image"], Image.Image)
    plain, _ = ChatEnv(gym.make(SPARC, difficulty="1")).reset(seed=0)
    assert user["content"][1]["text"] == plain[-1]["content"]
    inter = ChatEnv(gym.make("kumo_gym/Hanoi-v0", n=2, mode="interactive", observation="image+text"))
    messages, _ = inter.reset(seed=0)
    messages, *_ = inter.step("[1, 0, 1]")
    assert [p["type"] for p in messages[-1]["content"]] == ["image", "text"]  # each observation has its picture


def test_records_follow_trl_vision_layout():
    recs = kumo_gym.make_dataset(SPARC, 2, env_kwargs={"difficulty": "1", "observation": "image+text",
                                                       "image_size": 64}, with_golden=True)
    content = recs[0]["prompt"][-1]["content"]
    assert content[0] == {"type": "image"} and content[1]["type"] == "text"  # a placeholder TRL fills
    assert len(recs[0]["images"]) == 1 and recs[0]["images"][0].size == (64, 64)
    text = kumo_gym.make_dataset(SPARC, 1, env_kwargs={"difficulty": "1", "observation": "image+text"},
                                 prompt_format="text")[0]
    assert isinstance(text["prompt"], str) and text["images"]
    plain = kumo_gym.make_dataset(SPARC, 2, env_kwargs={"difficulty": "1"})
    assert [r["instance_id"] for r in recs] == [r["instance_id"] for r in plain]  # the option never changes the draw


def test_openai_requests_carry_the_image_as_a_data_url():
    from PIL import Image

    from kumo_gym.core.backend import ChatResult
    from kumo_gym.training.backends import OpenAIChatBackend, serve_openai

    seen = []

    class Recorder:
        def chat(self, messages, **kw):
            seen.append(messages)
            return [ChatResult(text="#### (0, 0)", finish_reason="stop", prompt_tokens=1, completion_tokens=1)]

    server = serve_openai(Recorder())
    try:
        chat = ChatEnv(gym.make(SPARC, observation="image+text", difficulty="1", image_size=80))
        messages, _ = chat.reset(seed=0)
        reply = OpenAIChatBackend(server.url, model="vision", max_retries=0).chat(messages)[0]
        chat.step(reply.text)
    finally:
        server.shutdown()
        server.server_close()
    parts = seen[0][-1]["content"]
    assert [p["type"] for p in parts] == ["image_url", "text"]
    url = parts[0]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    img = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert img.size == (80, 80)


@pytest.mark.slow
def test_trl_vlm_grpo_and_sft_on_image_records(tmp_path):
    """TRL's vision-language GRPO and SFT train a tiny LLaVA-style model (built from a config,
    nothing downloaded) on make_dataset's image records; the vision tower sees every image."""
    from transformers import AutoProcessor
    from trl import GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer

    from kumo_gym.training.vision import tiny_vlm

    path = tiny_vlm(tmp_path / "vlm")
    processor = AutoProcessor.from_pretrained(path)
    ds = kumo_gym.make_dataset(SPARC, 4, env_kwargs={"difficulty": "1", "observation": "image+text",
                                                     "image_size": 64}, with_golden=True, format="datasets")
    common = {"use_cpu": True, "report_to": "none", "logging_steps": 1, "save_strategy": "no", "max_steps": 1}

    def count_images(trainer):
        calls = []
        tower = next(m for name, m in trainer.model.named_modules() if name.endswith("vision_tower"))
        tower.register_forward_hook(lambda m, args, out: calls.append(args[0].shape[0] if args else 1))
        return calls

    grpo = GRPOTrainer(model=path, reward_funcs=kumo_gym.reward_function(), train_dataset=ds,
                       processing_class=processor,
                       args=GRPOConfig(output_dir=str(tmp_path / "g"), per_device_train_batch_size=4,
                                       num_generations=2, max_completion_length=8, **common))
    calls = count_images(grpo)
    grpo.train()
    assert sum(calls) >= 4 and "rewards/puzzle_binary/mean" in grpo.state.log_history[0]
    sft = SFTTrainer(model=path, train_dataset=ds, processing_class=processor,
                     args=SFTConfig(output_dir=str(tmp_path / "s"), per_device_train_batch_size=2, max_length=None,
                                    **common))
    calls = count_images(sft)
    sft.train()
    assert sum(calls) >= 2 and np.isfinite(sft.state.log_history[0]["loss"])


def test_generate_refuses_image_observations_clearly(tmp_path, capsys):
    from kumo_gym.cli import main

    assert main(["generate", SPARC, "--size", "1", "--env-kwargs", "observation=image+text",
                 "--out", str(tmp_path / "x.jsonl"), "--quiet"]) == 2
    assert "make_dataset" in capsys.readouterr().err and not (tmp_path / "x.jsonl").exists()
