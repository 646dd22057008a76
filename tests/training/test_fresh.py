"""Held-out evaluation on content-fresh puzzles (kumo_gym.training.fresh) and the short prompts it
trains with."""
from __future__ import annotations

import json

import pytest

from kumo_gym.core.registry import get_task
from kumo_gym.training.evaluate import EvalSpec
from tests.registry_helpers import FAMILY, IDS, first_instance

GRID_IDS = [i for i in IDS if FAMILY[i] == "grid"]


@pytest.mark.parametrize("env_id", GRID_IDS)
def test_grid_prompt_template_fields_carry_the_instance(env_id):
    """A short prompt of a grid puzzle holds the same instance: ``{state}`` is the state JSON of the
    full prompt (the same keys and values), ``{rows}``/``{cols}`` its shape."""
    template = "{rows}x{cols} | {state} | {answer_format}"
    env, inst, _ = first_instance(env_id, prompt_template=template)
    obs = env.unwrapped._prompt_text(inst)
    task = get_task(env_id)
    shape, state, answer = obs.split(" | ", 2)
    H, W = task.dims(inst)
    assert shape == f"{H}x{W}" and answer == task.answer_text(inst)
    assert json.loads(state) == json.loads(task.state_json(inst))
    assert "\n" not in state


def test_fresh_split_holds_out_by_content():
    """Mosaic's trivial preset draws repeats: no test instance of the split is a training one, none
    twice, and the split says how many items it scanned."""
    from kumo_gym.training.data import generate_instances
    from kumo_gym.training.fresh import fresh_split

    spec = EvalSpec("kumo_gym/Mosaic-v0", {"difficulty": "trivial"})
    split = fresh_split(spec, 300, 40, seed=0)
    train_ids = {i.instance_id for i in generate_instances(spec.env_id, 300, split="train", env_kwargs=spec.kwargs)}
    test_ids = [i.instance_id for i in split.test]
    assert len(test_ids) == 40 == len(set(test_ids)) and not set(test_ids) & train_ids
    assert split.train_ids == train_ids and len(split.train) < 300  # repeats kept once
    scanned = [i.instance_id for i in generate_instances(spec.env_id, split.test_seeds, split="test",
                                                          env_kwargs=spec.kwargs)]
    assert any(i in train_ids for i in scanned)  # the preset does repeat training puzzles in the test split


def test_paired_bootstrap_interval():
    from kumo_gym.training.fresh import compare, paired_bootstrap

    same = paired_bootstrap([0, 1, 0, 1] * 25, [0, 1, 0, 1] * 25)
    assert same["diff"] == 0 and same["lo"] == same["hi"] == 0 and not same["excludes_zero"]
    up = paired_bootstrap([0] * 100, [1] * 30 + [0] * 70)
    assert up["diff"] == pytest.approx(0.3) and 0.2 < up["lo"] < 0.3 < up["hi"] < 0.4 and up["excludes_zero"]
    mixed = paired_bootstrap([1, 0] * 50, [0, 1] * 50)
    assert mixed["lo"] < 0 < mixed["hi"]
    with pytest.raises(ValueError):
        paired_bootstrap([1, 0], [1])
    before = [{"instance_id": str(i), "solved": 0, "score": 0.0, "answer_found": 0} for i in range(4)]
    after = [{"instance_id": str(i), "solved": 1, "score": 0.5, "answer_found": 1} for i in (3, 2, 1, 0)]
    c = compare(before, after)
    assert c["solved"]["diff"] == 1 and c["score"]["diff"] == 0.5 and c["solved"]["n"] == 4


def test_greedy_eval_scores_with_the_verifier(reach, tiny):
    """Records of a greedy batch evaluation agree with the verifier on the decoded replies."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from kumo_gym.training.data import generate_instances
    from kumo_gym.training.fresh import greedy_eval, rates

    tok, model = AutoTokenizer.from_pretrained(tiny), AutoModelForCausalLM.from_pretrained(tiny)
    spec = EvalSpec(reach, {"difficulty": "easy"})
    insts = list(generate_instances(reach, 5, split="test", env_kwargs=spec.kwargs))
    seen = []
    recs = greedy_eval(model, tok, spec, insts, max_new_tokens=12, batch_size=2, progress=seen.append)
    assert seen == [2, 2, 1] and [r["instance_id"] for r in recs] == [i.instance_id for i in insts]
    task = get_task(reach)
    for inst, r in zip(insts, recs):
        cut = r["tokens"] == 12  # no end-of-text token within the budget: the reply was cut off
        v = task.score(inst, r["text"], finish_reason="length" if cut else "stop", n_output_tokens=r["tokens"],
                       max_new_tokens=12)
        assert (r["status"], r["score"], r["solved"]) == (v.status, v.score, int(v.status == "solved"))
        assert 0 < r["tokens"] <= 12
    assert rates(recs)["episodes"] == 5


def test_smollm2_example_configs_match_the_benchmark_and_build():
    """examples/sft_smollm2.yaml and grpo_smollm2.yaml build their trainer configs as written, train
    on the benchmark's environments with its short prompts, and GRPO starts from the SFT output."""
    from pathlib import Path

    from kumo_gym.training.config import load_config_file, make_config
    from kumo_gym.training.fresh import FRESH_ENVS
    from kumo_gym.training.grpo import grpo_trainer_args

    root = Path(__file__).resolve().parents[2] / "examples"
    sft = load_config_file(root / "sft_smollm2.yaml", "sft")
    grpo = load_config_file(root / "grpo_smollm2.yaml", "grpo")
    bench = [{k: v for k, v in e.items() if k != "max_new_tokens"} for e in FRESH_ENVS]
    assert sft.kumo["envs"] == grpo.kumo["envs"] == bench
    assert sft.kumo["model"] == "smollm2" and grpo.kumo["model"] == sft.kumo["output_dir"] + "/model"
    make_config("sft", {**sft.trainer, "use_cpu": True, "bf16": False})
    config = make_config("grpo", {**grpo_trainer_args(dict(grpo.trainer), num_generations=4,
                                                      prompts_per_step=grpo.kumo["prompts_per_step"]),
                                  "use_cpu": True, "bf16": False})
    assert config.per_device_train_batch_size == 16 and config.max_completion_length == 64
    for e in bench:  # each short prompt is filled from the instance's own fields
        import gymnasium as gym

        env = gym.make(e["id"], **{k: v for k, v in e.items() if k != "id"})
        obs, _ = env.reset(seed=0)
        assert json.dumps(env.unwrapped.instance.data["state"]["grid"]) in obs and "{" + "state}" not in obs
