"""The registry contract (tests/test_contract.py) for every FineReason puzzle, not only the default.

The registry-wide suite makes each id with default kwargs (puzzle=sudoku); this file repeats its
checks with ``puzzle=`` each of the four puzzles, using the same helpers.
"""
from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import kumo_gym  # noqa: F401  (registers the environments)
from kumo_gym.core import Instance, Verdict
from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task

from ..conftest import hostile_strings
from ..registry_helpers import first_instance

IDS = ["kumo_gym/FineReasonStateChecking-v0", "kumo_gym/FineReasonStateTransition-v0",
       "kumo_gym/FineReasonTreeWalk-v0"]
PUZZLES = ["sudoku", "coloring", "game24", "logicgrid"]
CASES = [(i, p) for i in IDS for p in PUZZLES]


@pytest.mark.parametrize("env_id,puzzle", CASES)
def test_check_env_and_gold(env_id, puzzle):
    env, inst, info = first_instance(env_id, seed=1, puzzle=puzzle)
    check_env(env.unwrapped)  # Gymnasium's defaults: only the render modes that work are advertised
    assert inst.params["puzzle"] == puzzle and info["difficulty"] == "normal"
    task = get_task(env_id)
    gold = task.solve(inst)
    text = task.format_answer(gold)
    assert task.parse(text) == gold
    v = task.score(inst, text)
    assert v.solved and v.reward == 1.0, v.message
    env.reset(options={"instance": inst})
    _, reward, terminated, _, info = env.step(f"<think>[[not this]]</think>So:\n{text}\n")
    assert terminated and reward == 1.0, info["verdict"]
    rng = np.random.default_rng(0)
    bad = task.corrupt_answer(inst, gold, rng)
    vb = task.score(inst, task.format_answer(bad))
    assert not vb.solved and vb.score < 1.0


@pytest.mark.parametrize("env_id,puzzle", CASES)
def test_determinism_and_round_trip(env_id, puzzle):
    _, a, _ = first_instance(env_id, seed=11, puzzle=puzzle)
    _, b, _ = first_instance(env_id, seed=11, puzzle=puzzle)
    assert a == b
    _, c, _ = first_instance(env_id, seed=11, puzzle=puzzle, split="test")
    assert c.seed != a.seed
    again = Instance.from_json(a.to_json())
    assert again == a and again.instance_id == a.instance_id
    task = get_task(env_id)
    v = task.score(a, task.format_answer(task.solve(a)))
    assert Verdict.from_dict(json.loads(json.dumps(v.to_dict()))).to_dict() == v.to_dict()
    env = gym.make(env_id, puzzle=puzzle)
    assert env.reset(options={"instance": a.to_dict()})[0] == env.reset(options={"instance": a.to_json()})[0]


@pytest.mark.parametrize("env_id,puzzle", CASES)
def test_hostile_strings_never_raise(env_id, puzzle):
    _env, inst, _ = first_instance(env_id, seed=0, puzzle=puzzle)
    task = get_task(env_id)
    for s in hostile_strings(40, seed=PUZZLES.index(puzzle)):
        v = task.score(inst, s)
        assert v.status in ("solved", "wrong", "illegal_move", "incomplete", "parse_error", "truncated", "hedge")


@pytest.mark.parametrize("puzzle", PUZZLES)
def test_interactive_golden_rollout(puzzle):
    env_id = "kumo_gym/FineReasonTreeWalk-v0"
    task = get_task(env_id)
    env = gym.make(env_id, mode="interactive", puzzle=puzzle)
    env.reset(seed=6)
    base = env.unwrapped
    total = 0.0
    for move in task.golden_moves(base.instance):
        _, r, terminated, truncated, info = env.step(task.format_move(move))
        total += r
        if terminated or truncated:
            break
    assert terminated and total == 1.0, info.get("verdict")


def test_interactive_backward_move_and_illegal_move():
    env_id = "kumo_gym/FineReasonTreeWalk-v0"
    task = get_task(env_id)
    env = gym.make(env_id, mode="interactive", puzzle="game24")
    env.reset(seed=2)
    base = env.unwrapped
    root = base.state["path"][0]
    first = task.golden_moves(base.instance)[0]
    env.step(task.format_move(first))
    assert len(base.state["path"]) == 2
    env.step(task.format_move(root))  # back to the parent
    assert base.state["path"] == [root]
    _, _, terminated, _, info = env.step("Next state: ['(1 + 1)']")
    assert not terminated and info["status"] == "invalid" and info["verdict"]["status"] == "illegal_move"


def test_bad_kwargs_name_the_choices():
    with pytest.raises(ConfigError, match="puzzle 'chess' is not one of: sudoku, coloring, game24, logicgrid"):
        gym.make("kumo_gym/FineReasonStateChecking-v0", puzzle="chess")
    with pytest.raises(ConfigError, match="does not apply to puzzle 'game24'"):
        gym.make("kumo_gym/FineReasonStateChecking-v0", puzzle="game24", empty_cells=40)
    with pytest.raises(ConfigError, match="label"):
        gym.make("kumo_gym/FineReasonStateTransition-v0", label="maybe")


@pytest.mark.parametrize("puzzle", PUZZLES)
def test_label_parameter_and_depth_bounds(puzzle):
    task = get_task("kumo_gym/FineReasonStateChecking-v0")
    for label, want in (("solvable", "Solvable"), ("unsolvable", "Unsolvable")):
        params = task.resolve_params(puzzle=puzzle, label=label, difficulty="easy")
        inst = task.generate(np.random.default_rng(5), **params)
        item = inst.data
        assert item["label"] == want
        assert item["depth"] >= (2 if puzzle in ("sudoku", "coloring") else 1)
        assert item["explored"] is not None  # require_explored_child is the default
        assert item["history"][-1]["depth"] == item["depth"] - 1


def test_unsolvable_sudoku_items_leave_the_solvable_path_at_the_last_step():
    task = get_task("kumo_gym/FineReasonStateTransition-v0")
    params = task.resolve_params(puzzle="sudoku", label="unsolvable", difficulty="easy")
    for seed in range(3):
        item = task.generate(np.random.default_rng(seed), **params).data
        assert item["history"][-1]["label"] == "Solvable"  # first_wrong_step: the parent is solvable


def test_faithful_labels_prompt_marks_every_ancestor_solvable():
    task = get_task("kumo_gym/FineReasonStateTransition-v0")
    params = task.resolve_params(puzzle="coloring", label="unsolvable", unsolvable_mode="any", difficulty="easy")
    for seed in range(20):
        inst = task.generate(np.random.default_rng(seed), **params)
        if any(h["label"] == "Unsolvable" for h in inst.data["history"]):
            break
    true_prompt = task.prompt(inst)
    faithful = Instance(inst.family, inst.data, params={**inst.params, "faithful_labels": True})
    head = task.prompt(faithful).split("History:")[1].split(f"S({inst.data['depth']}) =")[0]
    assert "Uncolorable" not in head and "Uncolorable" in true_prompt.split("History:")[1]


def test_determinism_across_processes_for_every_puzzle():
    import os
    import subprocess
    import sys

    code = ("import json, gymnasium as gym, kumo_gym\n"
            f"cases = {CASES!r}\n"
            "print(json.dumps([gym.make(i, puzzle=p).reset(seed=123)[1]['instance_id'] for i, p in cases]))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False,
                         env={**os.environ, "PYTHONHASHSEED": "999"})
    assert res.returncode == 0, res.stderr[-2000:]
    theirs = json.loads(res.stdout.strip().splitlines()[-1])
    ours = [first_instance(i, seed=123, puzzle=p)[2]["instance_id"] for i, p in CASES]
    assert theirs == ours
