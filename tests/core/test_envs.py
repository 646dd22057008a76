"""The generic environments, registry, wrappers, datasets and CLI, on a small real Task."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import kumo_gym  # noqa: F401
from kumo_gym.core import ConfigError
from kumo_gym.envs.answer import AnswerEnv
from kumo_gym.envs.interactive import InteractiveEnv
from kumo_gym.wrappers import ChatEnv, StructuredWrapper, TraceWrapper, TraceWriter, read_traces

from .toy import ReachTask


def answer_env(**kw):
    return AnswerEnv(ReachTask(), "toy/Reach-v0", **kw)


def interactive_env(**kw):
    return InteractiveEnv(ReachTask(), "toy/Reach-v0", **kw)


def test_answer_env_episode_and_checker():
    env = answer_env()
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert "Reach" in obs and info["optimal_steps"] >= 1
    task = env.task
    gold = task.format_answer(task.solve(env.instance))
    _, r, term, trunc, info = env.step("I think... " + gold)
    assert (r, term, trunc) == (1.0, True, False) and info["verdict"]["status"] == "solved"
    env.reset(options={"instance": env.instance})
    _, r, term, _, info = env.step("<think>[3]</think> nothing here")
    assert r == 0.0 and term and info["verdict"]["status"] == "parse_error"
    env.reset(options={"instance": env.instance})
    _, r, _, _, info = env.step({"completion": "<think> still going", "finish_reason": "length"})
    assert info["verdict"]["status"] == "truncated"


def test_partial_reward_and_bad_kwargs():
    env = answer_env(reward="partial")
    env.reset(seed=1)
    _, r, _, _, info = env.step("[1]")
    assert r == info["verdict"]["score"] == 0.5
    with pytest.raises(ConfigError, match="reward 'dense' is not one of: binary, partial"):
        answer_env(reward="dense")
    with pytest.raises(ConfigError, match="difficulty 'x' is not one of: easy, hard"):
        answer_env(difficulty="x")
    with pytest.raises(ConfigError, match="parameter 'size' is not one of"):
        answer_env(size=3)
    with pytest.raises(ConfigError, match="split 'dev'"):
        answer_env(split="dev")


def test_prompt_template():
    env = answer_env(prompt_template="Solve this: {prompt} (range {lo}-{hi})")
    obs, _ = env.reset(seed=0)
    assert obs.startswith("Solve this: Reach") and "(range 3-9)" in obs
    with pytest.raises(ConfigError, match="prompt_template field"):
        answer_env(prompt_template="{nope}").reset(seed=0)


def test_interactive_env_rules():
    env = interactive_env()
    check_env(env, skip_render_check=True)
    env.reset(seed=0)
    for m in env.task.golden_moves(env.instance):
        _, r, term, _trunc, info = env.step(f"I add {m}")
    assert r == 1.0 and term and info["verdict"]["status"] == "solved"
    # after the end: reward 0, status ended, still terminated
    _, r, term, _, info = env.step("1")
    assert r == 0.0 and term and info["verdict"]["status"] == "ended"


def test_invalid_moves_have_no_effect_and_three_in_a_row_truncate():
    env = interactive_env()
    env.reset(seed=0)
    _, r, term, trunc, info = env.step("add 7")
    assert (r, term, trunc) == (0.0, False, False) and env.state == 0
    assert info["status"] == "invalid" and info["verdict"]["status"] == "illegal_move"
    assert info["verdict"]["details"]["rule"] == "bad_step" and info["verdict"]["first_error"] == 1
    obs, _, _, _, info = env.step("1")  # a legal move resets the count and carries a verdict too
    assert env.state == 1 and info["verdict"]["status"] == "incomplete" and info["status"] == "continue"
    obs, _, term, trunc, info = env.step("nothing")
    assert info["verdict"]["status"] == "parse_error" and "Could not read a move" in obs and not (term or trunc)
    env.step("add 9")
    _, r, term, trunc, info = env.step("add 8")
    assert trunc and not term and r == 0.0 and info["verdict"]["details"]["reason"] == "too_many_invalid"
    assert env.state == 1
    env = interactive_env(max_invalid=1)
    env.reset(seed=0)
    _, _, term, trunc, info = env.step("add 7")
    assert trunc and info["verdict"]["status"] == "illegal_move"
    env = interactive_env(max_steps=1)
    env.reset(seed=0)
    _, r, term, trunc, info = env.step("1")
    assert trunc and not term and info["verdict"]["status"] == "incomplete"
    env.reset(seed=0)  # the last step unreadable: its verdict is kept in the final one, and says so
    obs, _, term, trunc, info = env.step("nothing")
    assert trunc and info["verdict"]["status"] == "incomplete" and info["verdict"]["details"]["last_move"] == \
        "parse_error" and "Could not read a move" in info["verdict"]["message"] and "Out of steps" in obs


def test_old_illegal_action_spelling_still_works_with_a_warning():
    with pytest.warns(DeprecationWarning, match="max_invalid"):
        env = interactive_env(illegal_action="reject", max_illegal=2)
    assert env.max_invalid == 2


def test_reset_seed_sequence_is_reproducible_and_varied():
    env = answer_env(difficulty="hard")
    ids = [env.reset(seed=9)[1]["instance_id"]] + [env.reset()[1]["instance_id"] for _ in range(5)]
    env2 = answer_env(difficulty="hard")
    ids2 = [env2.reset(seed=9)[1]["instance_id"]] + [env2.reset()[1]["instance_id"] for _ in range(5)]
    assert ids == ids2 and len(set(ids)) > 1


def test_trace_wrapper_appends_complete_lines_and_survives_partial_line(tmp_path):
    path = tmp_path / "t.jsonl"
    env = TraceWrapper(answer_env(), path, model="toy")
    for seed in range(3):
        env.reset(seed=seed)
        env.step("[1, 1]")
    with open(path, "ab") as f:
        f.write(b'{"partial": ')  # a crash in the middle of a write
    assert len(read_traces(path)) == 3
    with pytest.raises(ValueError, match="not a complete JSON record"):
        read_traces(path, strict=True)
    env.reset(seed=5)
    env.step("[3]")  # the resumed run drops the torn fragment before appending
    recs = read_traces(path, strict=True)
    assert len(recs) == 4 and recs[0]["model"] == "toy" and recs[0]["instance"]["family"] == "reach"
    assert recs[-1]["verdict"]["status"] in ("solved", "wrong", "incomplete")
    TraceWriter(tmp_path / "sub" / "x.jsonl").append({"a": np.int64(1)})
    assert read_traces(tmp_path / "sub" / "x.jsonl") == [{"a": 1}]


def test_chat_env_messages_and_tokens():
    class WordTok:
        def encode(self, text, add_special_tokens=False):
            return text.split()

    chat = ChatEnv(answer_env(), tokenizer=WordTok())
    messages, info = chat.reset(seed=0)
    assert messages[-1]["role"] == "user" and info["tokens"]["prompt"] > 0
    messages, _r, term, _, info = chat.step("[1, 1, 1]", reasoning="count up to it")
    assert term and messages[-1] == {"role": "assistant", "content": "[1, 1, 1]", "reasoning": "count up to it"}
    assert info["tokens"]["completion"] == 3 and info["tokens"]["reasoning"] == 4
    chat = ChatEnv(interactive_env())
    messages, _ = chat.reset(seed=0)
    messages, _, term, _, _ = chat.step("1")
    assert not term and [m["role"] for m in messages] == ["user", "assistant", "user"]


def test_structured_wrapper_with_sb3_checker():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = StructuredWrapper(interactive_env())
    sb3_check_env(env, warn=False)
    obs, info = env.reset(seed=0)
    assert obs.shape == (2,) and info["action_mask"].tolist() == [True, True, True]
    target = env.unwrapped.instance.data["target"]
    done = False
    while not done:
        a = 2 if target - env.unwrapped.state >= 3 else target - env.unwrapped.state - 1
        obs, r, done, _trunc, info = env.step(a)
    assert r == 1.0


def test_vector_envs_with_text_spaces():
    gym.register("toy/Reach-v0", entry_point=lambda **kw: answer_env(**kw)) if "toy/Reach-v0" not in gym.registry else None
    for mode in ("sync", "async"):
        envs = gym.make_vec("toy/Reach-v0", num_envs=4, vectorization_mode=mode)
        obs, _info = envs.reset(seed=3)
        assert len(obs) == 4 and all(o.startswith("Reach") for o in obs)
        _, rew, term, _, _ = envs.step(["[3]"] * 4)
        assert term.all() and rew.shape == (4,)
        envs.close()


def test_numeric_kwargs_given_as_text_must_be_ascii():
    """int('\u0661\u0660') is 10 and float('\u0661.\u0665') 1.5: a size written in another script is refused
    by name rather than read as a number; ASCII text is still read."""
    import gymnasium as gym

    from kumo_gym.core.errors import check_int
    from kumo_gym.core.params import _convert

    assert gym.make("kumo_gym/Tents-v0", W="7").unwrapped.params["W"] == 7
    with pytest.raises(ConfigError, match="W '\u0661\u0660' is not an integer"):
        gym.make("kumo_gym/Tents-v0", W="\u0661\u0660")
    assert _convert("x", " 1.5", float, None) == 1.5 and check_int("n", "12") == 12
    with pytest.raises(ConfigError, match="is not an integer"):
        check_int("n", "\u0661\u0662")
    with pytest.raises(ConfigError, match="is not a finite number"):
        _convert("x", "\u0661.\u0665", float, None)
