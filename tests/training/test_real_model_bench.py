"""The real-model baseline's answer-found rule (``benchmarks/real_model.py``): a reply counts as an answer
found only when an answer was read from it, also when it was cut off at the token limit."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import gymnasium as gym
import pytest

import kumo_gym  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("real_model_bench", ROOT / "benchmarks" / "real_model.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _verdict(env, text: str, cut: bool) -> dict:
    return env.unwrapped.score_completion(text, finish_reason="length" if cut else "stop").to_dict()


def test_a_cut_off_reply_counts_only_when_what_was_read_is_an_answer(bench):
    env = gym.make("kumo_gym/Tents-v0", difficulty="trivial")
    env.reset(seed=0)
    task, inst = env.unwrapped.task, env.unwrapped.instance
    gold = task.format_answer(task.solve(inst))
    wrong_shape = '[["T"]]'
    # complete replies: the gold answer is found, a grid of the wrong shape is not
    assert bench._found(_verdict(env, gold, cut=False))
    assert not bench._found(_verdict(env, wrong_shape, cut=False))
    # cut off: a readable complete answer before the cut is found; a wrong-shape grid or prose is not
    cut_wrong = _verdict(env, wrong_shape + "\nThe grid repeats", cut=True)
    assert cut_wrong["status"] == "truncated" and cut_wrong["details"]["read_as"] == "parse_error"
    assert not bench._found(cut_wrong)
    assert not bench._found(_verdict(env, "Let me think about the tents and", cut=True))
    # (a solved answer before the cut stays solved; a wrong one is read, so it counts as found)
    assert bench._found(_verdict(env, gold + "\nAnd now I will check it again", cut=True))
    wrong = gold.replace('"T"', '"."', 1)
    assert wrong != gold
    cut_answer = _verdict(env, wrong + "\nAnd now I will check it again", cut=True)
    assert cut_answer["status"] == "truncated" and cut_answer["details"]["read_as"] not in bench.NO_ANSWER
    assert bench._found(cut_answer)
