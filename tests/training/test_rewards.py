"""Reward functions: scoring errors are never a model mistake, missing columns fail loudly, and no
completion text, however hostile, makes them raise (the hostile-text property)."""
from __future__ import annotations

import logging
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import entries, get_task
from kumo_gym.training import rewards
from kumo_gym.training.data import generate_instances, make_dataset

#: completion texts that have broken scorers elsewhere: lone surrogates, huge and deep strings,
#: control characters, NaN-like and infinite numbers, markers repeated without end
HOSTILE = ["", "\ud800", "moves = [[1, 0, 2]]\udfff", "\x00\x01\x1b[2J\x7f", "NaN", "nan", "inf", "-Infinity",
           "[NaN, Infinity]", "\\boxed{nan}", "1e999999", "9" * 5000, "x" * 1_000_000, "[" * 50_000,
           "\\boxed{" * 5000 + "}" * 5000, "<answer>" * 2000, "Answer:" + " " * 5000, "\u202e\ufeff\u200b",
           "</think>" * 100, ["not", "a", "conversation"], [{"role": "assistant", "content": "\ud800"}], None, 12]


@pytest.fixture
def fresh(monkeypatch):
    """A clean verdict cache and error counter (other tests may have scored the same rows)."""
    monkeypatch.setattr(rewards, "_CACHE", rewards._LRU(2048))
    monkeypatch.setattr(rewards, "_INSTANCES", rewards._LRU(512))
    monkeypatch.setattr(rewards, "SCORING_ERRORS", rewards.ScoringErrorCounter())
    monkeypatch.setattr(rewards, "_LOGGED", set())


def _rows(env_id: str, n: int = 2):
    return make_dataset(env_id, n, split="train", seed=0, difficulty="easy")


def test_a_verifier_crash_is_an_error_not_a_zero_answer(reach, fresh, monkeypatch, caplog):
    task = get_task(reach)
    rows = _rows(reach, 3)
    golden = [task.format_answer(task.solve(task.load(r["instance"]))) for r in rows]

    def broken(instance, answer):
        raise ZeroDivisionError("verifier bug")

    monkeypatch.setattr(task, "verify", broken)
    metrics = []
    cols = {"instance": [r["instance"] for r in rows], "env_id": [reach] * 3,
            "log_metric": lambda name, value: metrics.append((name, value))}
    with caplog.at_level(logging.ERROR):
        out = {k: rewards.make_reward_function(kind=k) for k in rewards.KINDS}
        values = {k: f(prompts=None, completions=golden, **cols) for k, f in out.items()}
    assert values == {k: [0.0, 0.0, 0.0] for k in rewards.KINDS}  # format too: nothing was read
    assert all(f.scoring_errors == 3 for f in out.values())
    assert metrics == [(rewards.SCORING_ERROR_METRIC, 3.0)] * 3
    # scored once per completion (the components share verdicts), logged once per kind of failure
    assert rewards.SCORING_ERRORS.total == 3
    assert rewards.SCORING_ERRORS.by_kind() == {(reach, "verify", "ZeroDivisionError"): 3}
    crash_logs = [r for r in caplog.records if "ZeroDivisionError" in r.getMessage()]
    assert len(crash_logs) == 1 and crash_logs[0].exc_info is not None
    v = rewards.score_row(reach, rows[0]["instance"], golden[0])
    assert v.status == "error" and v.details["stage"] == "verify"


def test_a_parser_crash_is_an_error(reach, fresh, monkeypatch):
    task = get_task(reach)
    monkeypatch.setattr(task, "parse", lambda text: {}["missing"])
    rows = _rows(reach, 1)
    reward = rewards.make_reward_function(kind="format")
    assert reward(completions=["[1, 2]"], instance=[rows[0]["instance"]], env_id=[reach]) == [0.0]
    assert reward.scoring_errors == 1
    assert rewards.score_row(reach, rows[0]["instance"], "[1, 2]").details["stage"] == "parse"


def test_rows_that_do_not_load_are_errors_counted_and_logged_once(reach, fresh, caplog):
    rows = _rows(reach, 1)
    reward = rewards.make_reward_function(kind="binary")
    with caplog.at_level(logging.ERROR):
        out = reward(completions=["[1]", "[1]", "[1]", "[1]"],
                     instance=[rows[0]["instance"], '{"family": "reach"', rows[0]["instance"], '{"family": "reach"'],
                     env_id=[reach, reach, "kumo_gym/NoSuch-v0", reach])
    assert out == [0.0] * 4
    assert reward.scoring_errors == 3
    # the repeated bad row is scored (and counted in the process-wide counter) once
    assert rewards.SCORING_ERRORS.by_kind() == {(reach, "load", "JSONDecodeError"): 1,
                                                ("kumo_gym/NoSuch-v0", "load", "ConfigError"): 1}
    assert len([r for r in caplog.records if r.levelno == logging.ERROR]) == 2  # two kinds, the repeat is quiet
    bad = rewards.score_row(reach, '{"family": "reach"', "[1]")
    assert bad.status == "error" and bad.reward == 0.0


def test_malformed_played_verdict_is_an_error(reach, fresh):
    reward = rewards.make_reward_function(kind="partial")
    solved = {"status": "solved", "score": 1.0, "reward": 1.0}
    assert reward(completions=["a", "b"], kumo_verdict=[solved, {"status": "no-such-status"}]) == [1.0, 0.0]
    assert reward.scoring_errors == 1


@pytest.mark.parametrize("missing", ["instance", "env_id"])
def test_missing_columns_raise_at_the_first_call(reach, missing):
    rows = _rows(reach, 2)
    cols = {"instance": [r["instance"] for r in rows], "env_id": [reach, reach]}
    del cols[missing]
    reward = rewards.make_reward_function(kind="binary")
    with pytest.raises(ConfigError, match=f"column '{missing}'"):
        reward(prompts=["p", "p"], completions=["[1]", "[2]"], **cols)
    with pytest.raises(ConfigError, match="2 values for 3 completions"):
        rewards.make_reward_function(env_id=reach)(completions=["a", "b", "c"], instance=cols.get("instance", [1, 2]))
    # a bound env id needs no env_id column; an empty batch needs nothing
    assert rewards.make_reward_function(env_id=reach)(completions=["[9]"], instance=[rows[0]["instance"]]) == [0.0]
    assert reward(completions=[]) == []


def test_components_score_each_completion_once(reach, fresh, monkeypatch):
    task = get_task(reach)
    calls = []
    original = task.verify

    def counting(instance, answer):
        calls.append(answer)
        return original(instance, answer)

    monkeypatch.setattr(task, "verify", counting)
    rows = _rows(reach, 4)
    golden = [task.format_answer(task.solve(task.load(r["instance"]))) for r in rows]
    cols = {"instance": [r["instance"] for r in rows], "env_id": [reach] * 4}
    for kind in rewards.KINDS:
        assert rewards.make_reward_function(kind=kind)(completions=golden, **cols) == [1.0] * 4
    assert len(calls) == 4


def test_a_group_shares_its_rows_instance(reach, fresh, monkeypatch):
    """The completions of one row (a GRPO group) load its instance once; rows never share one."""
    task = get_task(reach)
    rows = _rows(reach, 2)
    golden = [task.format_answer(task.solve(task.load(r["instance"]))) for r in rows]
    assert golden[0] != golden[1]
    loads = []
    original = task.load

    def counting(obj):
        loads.append(obj)
        return original(obj)

    monkeypatch.setattr(task, "load", counting)
    reward = rewards.make_reward_function(kind="binary")
    texts = [f"try {g}\n{golden[g % 2]}" for g in range(6)]  # distinct texts: no verdict is reused
    out = reward(completions=texts + [golden[1], golden[0]], env_id=[reach] * 8,
                 instance=[rows[0]["instance"]] * 6 + [rows[1]["instance"], rows[1]["instance"]])
    assert out == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    assert [x for x in loads if not hasattr(x, "family")] == [rows[0]["instance"], rows[1]["instance"]]


def _hostile_ids():
    return [e.id for e in entries() if "answer" in e.modes]


@pytest.mark.parametrize("env_id", _hostile_ids())
def test_hostile_completions_never_raise_in_any_env(env_id, fresh):
    """Every registered answer-mode env: hostile texts score in [0, 1] and never raise."""
    inst = next(generate_instances(env_id, 1, split="validation", seed=0))
    instance = inst.to_json()
    for kind in rewards.KINDS:
        reward = rewards.make_reward_function(kind=kind)
        out = reward(completions=HOSTILE, instance=[instance] * len(HOSTILE), env_id=[env_id] * len(HOSTILE))
        assert len(out) == len(HOSTILE) and all(0.0 <= x <= 1.0 and not math.isnan(x) for x in out)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.characters(exclude_categories=()), max_size=400)
       | st.lists(st.sampled_from(["[", "]", "1", ",", "\ud800", "\x00", "NaN", "inf", "\\boxed{", "}", "</think>",
                                   "<answer>", " ", "\n", "-", "1e308"]), max_size=200).map("".join))
def test_reward_functions_never_raise_on_any_text(reach, text):
    inst = next(generate_instances(reach, 1, split="train", seed=0)).to_json()
    for kind in rewards.KINDS:
        out = rewards.make_reward_function(kind=kind)(completions=[text, [{"role": "assistant", "content": text}]],
                                                      instance=[inst, inst], env_id=[reach, reach])
        assert all(0.0 <= x <= 1.0 for x in out)
