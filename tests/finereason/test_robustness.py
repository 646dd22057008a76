"""Hostile answers and malformed instances never hurt a FineReason run.

* The state-checking parser is linear: the answer marker is followed a bounded number of
  characters, so runs of blanks after ``Answer`` cost nothing (they used to take seconds).
* Parsers raise only ParseError and ``step()`` never raises: over-long 24 expressions, non-finite
  numbers in grid cells, fuzzed literals.
* Instances are checked when loaded: a malformed one fails at ``reset`` with a ConfigError that
  names the field, never later in ``step()``.
"""
from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kumo_gym  # noqa: F401
from kumo_gym.core.errors import ConfigError, ParseError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.finereason import game24, logicgrid
from kumo_gym.envs.finereason.tasks import StateCheckingTask

SC, ST, WALK = ("kumo_gym/FineReasonStateChecking-v0", "kumo_gym/FineReasonStateTransition-v0",
                "kumo_gym/FineReasonTreeWalk-v0")
STATUSES = ("solved", "wrong", "illegal_move", "incomplete", "parse_error", "truncated", "too_long", "hedge")


def env_at(env_id, puzzle, mode=None, seed=0):
    env = gym.make(env_id, puzzle=puzzle, difficulty="easy", **({"mode": mode} if mode else {}))
    env.reset(seed=seed)
    return env


class CountingPattern:
    """A compiled pattern whose calls are counted, so work is measured in calls, not seconds."""

    def __init__(self, pattern):
        self.pattern, self.calls, self.scanned = pattern, 0, 0

    def __getattr__(self, name):
        attr = getattr(self.pattern, name)

        def counted(text, *args, **kw):
            self.calls += 1
            end = args[1] if len(args) > 1 else len(text)
            start = args[0] if args else 0
            self.scanned += max(0, min(end, len(text)) - start)
            return attr(text, *args, **kw)
        return counted


@pytest.mark.timeout(120)
@pytest.mark.parametrize("n", [800, 20_000, 200_000])
def test_answer_marker_followed_by_blanks_is_read_in_linear_time(n, monkeypatch):
    task = StateCheckingTask()
    counter = CountingPattern(StateCheckingTask._AFTER)
    monkeypatch.setattr(StateCheckingTask, "_AFTER", counter)
    for text in ("Answer" + " " * n + "x", "Answer:" * (n // 7), "answer" + "\t" * n + "(A"):
        with pytest.raises(ParseError):
            task.parse(text)
    # each marker is matched once, over a bounded window: work grows with the markers, not n^2
    assert counter.scanned <= 61 * (counter.calls + 1)
    assert counter.calls <= 2 + n // 7
    assert task.parse("Answer:" + " " * 10 + "(B)") == "B"
    assert task.parse("Answer" + " " * n + "(B)") == "B"  # too far for the marker; read as the bare option


LONG_SUM = "Next state: ['" + "+".join(["1"] * 120) + "', '2']"


@pytest.mark.parametrize("env_id,mode", [(ST, None), (WALK, "answer"), (WALK, "interactive"), (SC, None)])
def test_over_long_24_expressions_never_raise_from_step(env_id, mode):
    env = env_at(env_id, "game24", mode)
    _, reward, _, _, info = env.step(LONG_SUM)
    assert reward == 0.0 and info["verdict"]["status"] in ("parse_error", "illegal_move", "wrong")


def test_24_states_that_cannot_be_written_back_are_refused_at_normalize():
    with pytest.raises(ValueError, match="more than the four numbers"):
        game24.RULES.normalize({"numbers": ["1", "2", "3", "4"]}, ["+".join(["1"] * 120), "2"])
    for parent, cand in ((["1", "2", "3", "4"], ["((1 + 2) + ((3 + 4) * (1 - 1)))"]),):
        game24.RULES.check_forward({"numbers": ["1", "2", "3", "4"]}, parent, cand)  # never raises


@pytest.mark.parametrize("cell", ["inf", "Infinity", "-inf", "nan", "NaN", "1e999", "'inf'", "1e308"])
@pytest.mark.parametrize("env_id,mode", [(ST, None), (WALK, "answer"), (WALK, "interactive")])
def test_non_finite_numbers_in_grid_cells_never_raise(cell, env_id, mode):
    env = env_at(env_id, "logicgrid", mode)
    inst = env.unwrapped.instance
    table = inst.data["current"]["table"] if "current" in inst.data else inst.data["puzzle_data"]["initial"]
    rows = [list(r) for r in table]
    rows[1][1] = "@@"
    text = "Next state: " + repr(rows).replace("'@@'", cell)
    _, reward, _, _, info = env.step(text)
    assert reward == 0.0 and info["verdict"]["status"] in STATUSES


def test_cell_values_convert_without_overflow():
    data = logicgrid.generate_puzzle(np.random.default_rng(0), 3, 3)
    for raw in ("inf", "-Infinity", "nan", "1e999999", "9" * 40):
        table = [list(r) for r in data["initial"]]
        table[1][1] = raw
        assert logicgrid.RULES.normalize(data, table)[1][1] == raw  # kept as text, never a number


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=st.recursive(st.one_of(st.integers(-10**40, 10**40), st.floats(allow_nan=True), st.text(max_size=8),
                                   st.sampled_from(["inf", "(1 + 2)", "''", "None"])),
                         lambda inner: st.lists(inner, max_size=6), max_leaves=40))
def test_fuzzed_literals_never_raise(body):
    text = "Next state: " + repr(body)
    for env_id, puzzle in ((ST, "sudoku"), (ST, "coloring"), (ST, "game24"), (ST, "logicgrid"),
                           (WALK, "game24"), (WALK, "logicgrid")):
        task = get_task(env_id)
        v = task.score(_instance(env_id, puzzle), text)
        assert v.status in STATUSES, (env_id, puzzle, v.message)


_INSTANCES: dict = {}


def _instance(env_id, puzzle):
    if (env_id, puzzle) not in _INSTANCES:
        _INSTANCES[env_id, puzzle] = env_at(env_id, puzzle).unwrapped.instance
    return _INSTANCES[env_id, puzzle]


# ---- malformed instances fail at reset, naming the field ----------------------------------------
def mutated(env_id, puzzle, change):
    d = copy.deepcopy(_instance(env_id, puzzle).to_dict())
    d.pop("instance_id")
    change(d["data"])
    return d


def _given(d) -> tuple[int, int]:
    """The first given cell of a Sudoku item."""
    return next((r, c) for r, row in enumerate(d["puzzle_data"]["initial"]) for c, v in enumerate(row) if v)


def _set_given(d, value) -> None:
    r, c = _given(d)
    d["current"][r][c] = value if value is not None else d["puzzle_data"]["initial"][r][c] % 9 + 1


CASES = [
    # a state whose values fit its shape but that no move of the tree reaches
    (SC, "sudoku", lambda d: _set_given(d, 10**12), "current' is not a state of this sudoku: it holds 1000000000000"),
    (ST, "sudoku", lambda d: _set_given(d, None), "current' is not a state of this sudoku"),
    (SC, "sudoku", lambda d: d.pop("depth"), "depth"),
    (ST, "sudoku", lambda d: d.update(history=[]), "history"),
    (ST, "coloring", lambda d: d.update(depth="3"), "depth"),
    (SC, "sudoku", lambda d: d.update(puzzle="chess"), "puzzle"),
    (SC, "game24", lambda d: d.pop("puzzle_data"), "puzzle_data"),
    (ST, "sudoku", lambda d: d.update(current=[[0] * 9] * 8), "current"),
    (ST, "game24", lambda d: d.update(current=["1 +", "2"]), "current"),
    (ST, "coloring", lambda d: d["puzzle_data"]["graph"].__setitem__(0, [99]), "puzzle_data.graph[0]"),
    (ST, "coloring", lambda d: d["puzzle_data"].update(k=0), "puzzle_data.k"),
    (SC, "sudoku", lambda d: d["puzzle_data"]["initial"][0].__setitem__(0, 12), "puzzle_data.initial"),
    (SC, "game24", lambda d: d["puzzle_data"].update(numbers=["1", "2", "x", "4"]), "puzzle_data.numbers"),
    (SC, "logicgrid", lambda d: d["puzzle_data"]["clues"]["1"].update(conditions="__import__('os')"),
     "puzzle_data.clues"),
    (SC, "logicgrid", lambda d: d["puzzle_data"]["domains"][1].append("extra"), "puzzle_data.domains"),
    (ST, "logicgrid", lambda d: d["current"].update(applied=["99"]), "current"),
    (ST, "sudoku", lambda d: d["history"][-1].update(depth=99), "history[2].depth"),
    (ST, "sudoku", lambda d: d.update(label="Maybe"), "label"),
    (SC, "sudoku", lambda d: d.update(depth=d["depth"] + 1), "depth"),
    (ST, "coloring", lambda d: d.update(explored=[1, 2]), "explored"),
    (WALK, "logicgrid", lambda d: d["puzzle_data"].update(initial=[["x"]]), "puzzle_data.initial"),
    (WALK, "coloring", lambda d: d["puzzle_data"].update(graph=[[]] * 500), "puzzle_data.graph"),
]


@pytest.mark.parametrize("env_id,puzzle,change,field", CASES)
def test_malformed_instances_fail_at_reset_naming_the_field(env_id, puzzle, change, field):
    env = gym.make(env_id)
    bad = mutated(env_id, puzzle, change)
    with pytest.raises(ConfigError) as e:
        env.reset(options={"instance": bad})
    assert field.split("[")[0].split(".")[0] in str(e.value), str(e.value)
    assert field in str(e.value) or field.split("[")[0] in str(e.value), str(e.value)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzzed_instances_fail_at_reset_or_play_safely(data):
    env_id = data.draw(st.sampled_from([SC, ST, WALK]))
    puzzle = data.draw(st.sampled_from(["sudoku", "coloring", "game24", "logicgrid"]))
    d = copy.deepcopy(_instance(env_id, puzzle).to_dict())
    d.pop("instance_id")
    # replace one value somewhere in the item with a hostile one
    paths = list(_paths(d["data"]))
    path = data.draw(st.sampled_from(paths))
    value = data.draw(st.one_of(st.none(), st.integers(-10**12, 10**12), st.text(max_size=5), st.just([]),
                                st.just({}), st.floats(allow_nan=True), st.just([[]] * 3)))
    _set(d["data"], path, value)
    env = gym.make(env_id)
    try:
        env.reset(options={"instance": d})
    except ConfigError:
        return
    task = get_task(env_id)
    for text in ("Answer: (A)", "Next state: []", task.format_answer(task.random_answer(env.unwrapped.instance,
                                                                                       np.random.default_rng(0)))):
        env.reset(options={"instance": d})
        _, _, _, _, info = env.step(text)
        assert info["verdict"]["status"] in STATUSES, info["verdict"]


def _paths(obj, prefix=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield prefix + (k,)
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:4]):
            yield prefix + (i,)
            yield from _paths(v, prefix + (i,))


def _set(obj, path, value):
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value
