"""Multi-turn GRPO rollouts: token sequences built from the sampled ids, environment turns masked,
and generation through TRL's vLLM integration (a stand-in with its interface: vLLM itself needs a GPU)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from kumo_gym.training.rollout import EpisodeRollout, env_turn_text, render
from kumo_gym.training.trainset import build_records


def test_env_turn_text_follows_the_template(tiny):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny)
    msgs = [{"role": "user", "content": "Reach 5."}, {"role": "assistant", "content": "3"},
            {"role": "user", "content": "At 3, target 5."}]
    assert env_turn_text(tok, msgs, hit_eos=True) == "\n<|im_start|>user\nAt 3, target 5.<|im_end|>\n" \
                                                       "<|im_start|>assistant\n"
    # a turn cut by the token limit has no end-of-turn token of its own: the template's is added
    assert env_turn_text(tok, msgs, hit_eos=False).startswith("<|im_end|>\n<|im_start|>user\nAt 3")
    # sampled text + environment text == the template's rendering of the whole conversation
    assert render(tok, msgs[:1], True) + "3<|im_end|>" + env_turn_text(tok, msgs, True) == render(tok, msgs, True)
    # a template that rewrites earlier assistant turns still gives the frame of a new turn
    tok.chat_template = tok.chat_template.replace("message['content'] + '<|im_end|>'",
                                                  "(message['content'] if loop.last else '...') + '<|im_end|>'")
    assert env_turn_text(tok, msgs, hit_eos=True) == "\n<|im_start|>user\nAt 3, target 5.<|im_end|>\n" \
                                                       "<|im_start|>assistant\n"


class FakeVLLM:
    """TRL's ``VLLMGeneration.generate`` interface, answering from a script of turns."""

    def __init__(self, tok, turns: list[str], mode: str = "colocate"):
        self.tok, self.turns, self.mode = tok, list(turns), mode
        self.tensor_parallel_size = 1
        self.max_completion_length = 999
        self.calls = []

    def generate(self, prompts, images, num_generations):
        assert images is None and num_generations == 1
        self.calls.append((len(prompts), self.max_completion_length, [list(p) for p in prompts]))
        text = self.turns.pop(0)
        ids = self.tok(text, add_special_tokens=False)["input_ids"] + [self.tok.eos_token_id]
        ids = ids[: self.max_completion_length]
        return prompts, [list(ids) for _ in prompts], [[[-0.5]] * len(ids) for _ in prompts], None


def _trainer(tok, vllm=None, budget=2000):
    import torch

    model = torch.nn.Linear(1, 1)
    acc = SimpleNamespace(unwrap_model=lambda m: m, num_processes=1)
    return SimpleNamespace(processing_class=tok, args=SimpleNamespace(max_completion_length=budget),
                           use_vllm=vllm is not None, vllm_generation=vllm, accelerator=acc, model=model)


def test_multi_turn_through_vllm_uses_the_sampled_tokens(reach, tiny):
    import json

    from transformers import AutoTokenizer

    from kumo_gym.training.evaluate import make_specs

    tok = AutoTokenizer.from_pretrained(tiny)
    rows = build_records(make_specs([reach], {"difficulty": "easy"}, mode="interactive"), 1)
    target = json.loads(rows[0]["instance"])["data"]["target"]
    moves = [3] * (target // 3) + ([target % 3] if target % 3 else [])
    script = ["9"] + [str(m) for m in moves]  # an illegal move first: feedback, then the solution
    vllm = FakeVLLM(tok, script)
    rollout = EpisodeRollout(rows, max_turn_tokens=8)
    out = rollout([rows[0]["prompt"]], _trainer(tok, vllm))
    assert out["kumo_verdict"][0]["status"] == "solved"
    ids, mask, lps = out["completion_ids"][0], out["env_mask"][0], out["logprobs"][0]
    assert len(ids) == len(mask) == len(lps)
    # the model's tokens are exactly the sampled ones, with their logprobs; environment tokens are masked
    sampled = [t for t, m in zip(ids, mask) if m]
    expected = [t for s in script for t in tok(s, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]]
    assert sampled == expected
    assert all(lp == -0.5 for lp, m in zip(lps, mask) if m) and all(lp == 0.0 for lp, m in zip(lps, mask) if not m)
    # each turn was generated from the exact sequence trained on, one turn's worth of tokens at a time
    full = out["prompt_ids"][0] + ids
    for n, limit, contexts in vllm.calls:
        assert n == 1 and limit == 8 and full[:len(contexts[0])] == contexts[0]
    assert vllm.max_completion_length == 999  # restored
    env_text = tok.decode([t for t, m in zip(ids, mask) if not m])
    assert "The state is unchanged." in env_text  # the illegal first move came back as feedback


def test_budget_ends_the_episode_as_truncated(reach, tiny):
    from transformers import AutoTokenizer

    from kumo_gym.training.evaluate import make_specs

    tok = AutoTokenizer.from_pretrained(tiny)
    rows = build_records(make_specs([reach], {"difficulty": "hard"}, mode="interactive"), 1)
    vllm = FakeVLLM(tok, ["1"] * 50)
    out = EpisodeRollout(rows, max_turn_tokens=4)([rows[0]["prompt"]], _trainer(tok, vllm, budget=30))
    assert out["kumo_verdict"][0]["status"] == "truncated" and len(out["completion_ids"][0]) == 30


@pytest.mark.slow
def test_use_vllm_is_never_dropped_for_multi_turn(reach, tiny, tmp_path):
    """Without vLLM installed the run refuses loudly (it used to train without it, silently)."""
    pytest.importorskip("trl")
    try:
        import vllm  # noqa: F401
        pytest.skip("vLLM is installed: the refusal cannot be shown")
    except ImportError:
        pass
    from kumo_gym.training.grpo import train_grpo

    with pytest.raises(ImportError, match="(?i)vllm"):
        train_grpo([f"{reach}:mode=interactive"], model=str(tiny), size=2, output_dir=str(tmp_path), max_steps=1,
                   num_generations=2, prompts_per_step=1, max_completion_length=16, use_vllm=True, save=False)
