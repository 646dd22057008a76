"""Registry-wide: a reply that cannot be read is told what was expected and what was found.

The ``parse_error`` message is what a model reads as the next user turn of a multi-turn episode
(and what a trainer logs): every environment and mode names the expected format (the task's
``expected_answer`` / ``expected_move``, never the generic default) and quotes how the reply began.
"""
from __future__ import annotations

import gymnasium as gym
import pytest

from kumo_gym.core.task import Task, reply_start
from tests.registry_helpers import MODES

#: unreadable replies a small model really wrote (prose, an echoed instruction, a bare letter with a
#: word, nothing at all)
REPLIES = ["The game starts now.", "A Unsolvable", "I think we should look at the first row carefully.", ""]


@pytest.mark.parametrize("env_id,mode", MODES, ids=[f"{e.split('/')[-1]}-{m}" for e, m in MODES])
def test_parse_error_feedback_names_the_expected_format_and_what_was_found(env_id, mode):
    env = gym.make(env_id, mode=mode)
    for reply in REPLIES:
        env.reset(seed=0)
        base = env.unwrapped
        task, inst = base.task, base.instance
        expected = task.expected_answer(inst) if mode == "answer" else task.expected_move(inst)
        assert expected != Task.expected_answer(task, inst), f"{env_id} keeps the generic expected_answer"
        obs, _, _, _, info = env.step(reply)
        v = info["verdict"]
        assert v["status"] == "parse_error", (env_id, mode, reply, v["status"], v["message"])
        msg = v["message"]
        assert f"Expected {expected}" in msg, (env_id, mode, msg)
        found = reply_start(reply) if reply.strip() else "the reply was empty"
        assert found in msg or (reply.strip() and repr(reply.strip()) in msg), (env_id, mode, msg)
        # the feedback the model reads next carries the same lesson
        assert f"Expected {expected}" in (obs if isinstance(obs, str) else obs.get("text", ""))


def test_reply_start_quotes_a_bounded_head():
    assert reply_start("") == "the reply was empty"
    assert reply_start("  a\n\n b ") == "the reply began: 'a b'"
    long = "word " * 10_000
    text = reply_start(long)
    assert text.endswith("...") and len(text) < 120
