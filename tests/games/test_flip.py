"""Flip's worked example: the prompt shows one that does not answer the drawn board, also on the
boards that the first example solves (the 3x3 easy preset draws one about every 400 seeds; its
reset raised before there was a second example)."""
from __future__ import annotations

import gymnasium as gym
import pytest

from kumo_gym.core.registry import get_task

TASK = get_task("kumo_gym/Flip-v0")


@pytest.mark.parametrize("seed", [872, 1020, 1132])
def test_boards_the_first_example_solves_get_another_example(seed):
    env = gym.make("kumo_gym/Flip-v0", difficulty="easy")
    prompt, _ = env.reset(seed=seed)
    inst = env.unwrapped.instance
    assert TASK.example_answers(inst, TASK.example()[1])  # the first example is this board's answer
    desc, sol = TASK.example_for(inst)
    assert desc in prompt and not TASK.example_answers(inst, sol)
    assert TASK.verify(inst, TASK.parse(TASK.format_answer(TASK.solve(inst)))).solved


def test_no_board_is_answered_by_every_example():
    """Every 3x3 crosses board with a light on (Tatham game IDs, all 511): example_for finds an example
    that does not answer it, since each example answers only the sum of its presses' effects."""
    matrix = "d074191345d1644c17058"  # the crosses press matrix of a 3x3 board
    for lights in range(1, 512):  # cell 0 is the highest of the nine bits, three padding bits after them
        inst = TASK.load(f"3x3:{matrix},{lights << 3:03x}")
        assert not TASK.is_goal(inst, TASK.initial_state(inst))
        assert not TASK.example_answers(inst, TASK.example_for(inst)[1]), inst.data["game_id"]
