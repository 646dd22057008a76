"""Parameters declared once, the manual, single inheritance.

Each task has one frozen Params dataclass; ``puzzle`` chooses the tree and each puzzle's size
parameters are refused for the others with an error naming the ones that apply; the presets are
data on the puzzle's rules class; the manual (``help(gym.make(id).unwrapped)``) is derived from
the task docstring, the rule codes and the Params fields.
"""
from __future__ import annotations

import inspect

import gymnasium as gym
import pytest

import kumo_gym  # noqa: F401
from kumo_gym.core.errors import ConfigError
from kumo_gym.core.extract import LiteralReader
from kumo_gym.core.params import Params
from kumo_gym.core.registry import get_task
from kumo_gym.envs.finereason import coloring, game24, items, logicgrid, params, sudoku, tasks, text, tree

IDS = ["kumo_gym/FineReasonStateChecking-v0", "kumo_gym/FineReasonStateTransition-v0",
       "kumo_gym/FineReasonTreeWalk-v0"]


@pytest.mark.parametrize("env_id", IDS)
def test_each_task_declares_one_params_dataclass(env_id):
    task = get_task(env_id)
    assert issubclass(task.Params, Params) and task.param_names == ()
    names = task.Params.names()
    assert {"puzzle", "empty_cells", "n_vertices", "slack", "max_number", "n_rows", "n_categories"} <= set(names)
    for spec in task.Params.specs():
        assert spec.doc, spec.name


@pytest.mark.parametrize("kwargs,message", [
    ({"puzzle": "chess"}, "puzzle 'chess' is not one of: sudoku, coloring, game24, logicgrid"),
    ({"puzzle": "game24", "empty_cells": 40},
     "'empty_cells' does not apply to puzzle 'game24'; its own parameters are: max_number"),
    ({"puzzle": "sudoku", "n_rows": 4}, "its own parameters are: empty_cells"),
    ({"puzzle": "coloring", "grid_semantics": "finereason"}, "'grid_semantics' does not apply to puzzle 'coloring'"),
    ({"puzzle": "logicgrid", "n_rows": 9}, "n_rows 9 is outside the valid range 3..6"),
    ({"puzzle": "logicgrid", "grid_semantics": "loose"}, "grid_semantics 'loose' is not one of: canonical, finereason"),
    ({"label": "maybe"}, "label 'maybe' is not one of: any, solvable, unsolvable"),
    ({"transition_reward": "harsh"}, "transition_reward 'harsh' is not one of: lenient, strict"),
    ({"puzzle": "game24", "depth": 3}, "depth 3 is outside the valid range 1..2 for puzzle 'game24'"),
    ({"puzzle": "sudoku", "depth": 1}, "depth 1 is outside the valid range 2..46"),
    ({"colour": 3}, "parameter 'colour' is not one of:"),
    ({"difficulty": "insane"}, "difficulty 'insane' is not one of: easy, normal, hard"),
])
def test_bad_parameters_are_refused_naming_what_applies(kwargs, message):
    with pytest.raises(ConfigError) as e:
        gym.make("kumo_gym/FineReasonStateTransition-v0", **kwargs)
    assert message in str(e.value)


def test_scoring_options_belong_to_the_tasks_that_score_with_them():
    with pytest.raises(ConfigError, match="transition_reward"):
        gym.make("kumo_gym/FineReasonStateChecking-v0", transition_reward="strict")
    with pytest.raises(ConfigError, match="label"):
        gym.make("kumo_gym/FineReasonTreeWalk-v0", label="solvable")


@pytest.mark.parametrize("rules", [sudoku.RULES, coloring.RULES, game24.RULES, logicgrid.RULES])
def test_presets_are_data_on_each_puzzle(rules):
    task = get_task("kumo_gym/FineReasonStateChecking-v0")
    assert set(rules.presets) == {"easy", "normal", "hard"}
    for difficulty, sizes in rules.presets.items():
        resolved = task.resolve_params(puzzle=rules.name, difficulty=difficulty)
        assert {k: resolved[k] for k in sizes} == sizes and resolved["difficulty"] == difficulty
    name, value = next(iter(rules.presets["easy"].items()))
    override = value + 1
    assert task.resolve_params(puzzle=rules.name, difficulty="easy", **{name: override})[name] == override


@pytest.mark.parametrize("env_id", IDS)
def test_the_env_class_is_the_manual(env_id):
    env = gym.make(env_id)
    doc = inspect.getdoc(type(env.unwrapped))
    task = get_task(env_id)
    for piece in ["## Description", "## Arguments", "## Rewards", "## Presets", "puzzle", "empty_cells",
                  "grid_semantics", *task.rule_codes, task.partial_credit.split(":")[0]]:
        assert piece in doc, piece
    if "Transition" in env_id:
        assert "transition_reward" in doc and "strict" in doc and "avoid_dead_child" in doc


def test_no_multiple_inheritance_and_one_literal_reader():
    for module in (tasks, tree, sudoku, coloring, game24, logicgrid, params, items):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                assert len(cls.__bases__) == 1, cls
    assert not issubclass(tasks.TreeWalkTask, tasks.FineReasonTask)
    assert isinstance(text.READER, LiteralReader)  # the core bounded reader, not a copy of it
