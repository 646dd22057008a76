"""Metrics and baselines: opt_ratio on the optimum's scale, families grouped by family, a random agent
that always answers something legal-looking, truncation reported as such everywhere, and `play`."""
from __future__ import annotations

import builtins

import gymnasium as gym
import numpy as np
import pytest

import kumo_gym
from kumo_gym.cli import main
from kumo_gym.core.registry import entries, entry, get_task
from kumo_gym.training.agents import OracleAgent, RandomAgent, shuffled_leaves
from kumo_gym.training.evaluate import evaluate, summarize

ENVS = [e for e in entries() if e.name != "Reach"]


def _first_preset(env_id: str) -> dict:
    task = get_task(env_id)
    return {"difficulty": next(iter(task.difficulties))} if task.difficulties else {}


def test_kumo_oracle_opt_ratio_counts_tests_only(tmp_path):
    summary = evaluate(["kumo_gym/KUMO-v0"], OracleAgent(), tmp_path, size=3, quiet=True, plots=False)
    (row,) = summary["by_env"]
    assert row["success"] == 1.0 and row["opt_ratio"] == pytest.approx(1.0)
    assert row["steps"] == pytest.approx(row["optimal_steps"])


def test_by_family_groups_by_catalogue_family(tmp_path):
    ids = [e.id for e in ENVS if e.family == "planning"][:2] + [e.id for e in ENVS if e.family == "grid"][:2]
    summary = evaluate(ids, OracleAgent(), tmp_path, size=1, difficulties=None, quiet=True, plots=False)
    groups = {r["group"] for r in summary["by_family"]}
    assert groups == {entry(i).family for i in ids} == {"planning", "grid"}
    assert {r["group"] for r in summary["by_env"]} == {entry(i).name for i in ids}
    # records of an environment that is no longer registered keep their own family field
    rec = {"env_id": "kumo_gym/Gone-v0", "family": "gone", "model": "m", "verdict": {"status": "wrong"}}
    assert summarize([rec])["by_family"][0]["group"] == "gone"


@pytest.mark.parametrize("env_id", [e.id for e in ENVS if "answer" in e.modes])
def test_random_agent_answers_legal_looking_text(env_id):
    """Answer mode: never empty, readable by the family's parser, and (almost) never the solution."""
    env = gym.make(env_id, mode="answer", split="test", **_first_preset(env_id))
    agent = RandomAgent(seed=0)
    statuses = []
    for seed in range(3):
        env.reset(seed=seed)
        agent.bind(env.unwrapped)
        text = agent.chat([{"role": "user", "content": "x"}])[0].text
        assert text.strip(), env_id
        _, _, _, _, info = env.step(text)
        statuses.append(info["verdict"]["status"])
    assert "parse_error" not in statuses, (env_id, statuses)


def test_shuffled_leaves_keeps_the_shape():
    rng = np.random.default_rng(0)
    grid = [[1, 2, 3], [4, 5, 6]]
    out = shuffled_leaves(grid, rng)
    assert [len(r) for r in out] == [3, 3] and sorted(x for r in out for x in r) == [1, 2, 3, 4, 5, 6]
    path = [(0, 0), (0, 1), (1, 1)]
    assert all(isinstance(p, tuple) for p in shuffled_leaves(path, rng))
    assert shuffled_leaves("B", rng) is None and shuffled_leaves([7], rng) is None


@pytest.mark.parametrize("env_id", [e.id for e in ENVS if "answer" in e.modes])
def test_cut_off_output_is_truncated_in_every_family(env_id):
    """A golden answer cut in half by the token limit is `truncated`, never wrong or illegal
    (SPaRC used to say illegal_move)."""
    task = get_task(env_id)
    inst = next(kumo_gym.generate_instances(env_id, 1, split="test", env_kwargs=_first_preset(env_id)))
    golden = task.format_answer(task.solve(inst))
    half = golden[: max(1, len(golden) // 2)]
    v = task.score(inst, half, finish_reason="length")
    assert v.status == "truncated" and v.reward == 0.0, (env_id, v.status, v.message)
    assert task.score(inst, golden, finish_reason="length").solved  # a complete answer still counts


def _script(monkeypatch, lines):
    it = iter(lines)

    def fake_input(prompt=""):
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(builtins, "input", fake_input)


def test_play_announces_commands_and_survives_typos(monkeypatch, capsys):
    task = get_task("kumo_gym/Hanoi-v0")
    inst = next(kumo_gym.generate_instances("kumo_gym/Hanoi-v0", 1, env_kwargs={"n": 2}))
    moves = [task.format_move(m) for m in task.solve(inst)]
    _script(monkeypatch, ["hint", "[1, 0", "not a move", "[3, 0, 2]", "oops", *moves])
    rc = main(["play", "Hanoi", "--env-kwargs", "n=2"])
    out = capsys.readouterr().out
    assert "'hint'" in out and "'quit'" in out  # the commands are announced
    assert "legal moves: " in out
    assert rc == 0 and "== solved: reward 1.0 ==" in out  # four invalid moves in a row did not end it

    _script(monkeypatch, ["quit"])
    assert main(["play", "Hanoi", "--env-kwargs", "n=2"]) == 1 and "bye" in capsys.readouterr().out


def test_play_answer_mode_asks_again_after_a_typo(monkeypatch, capsys):
    task = get_task("kumo_gym/Hanoi-v0")
    inst = next(kumo_gym.generate_instances("kumo_gym/Hanoi-v0", 1, env_kwargs={"n": 2}))
    _script(monkeypatch, ["moves = [[1, 0", "", task.format_answer(task.solve(inst)), ""])
    rc = main(["play", "Hanoi", "--mode", "answer", "--env-kwargs", "n=2"])
    out = capsys.readouterr().out
    assert "Try again." in out and rc == 0 and "solved" in out
