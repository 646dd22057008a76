"""Reward integrity for every FineReason puzzle, not only the registry default.

The registry-wide suites (tests/test_adversarial.py, tests/test_reward_hacking.py) draw Sudoku
items; here the same contracts are checked on all four puzzles and under the strict transition
reward: near misses break exactly their rule and each rule check is load-bearing, cheap answers
earn nothing beyond chance, prompt and scoring options never change the instance drawn.
"""
from __future__ import annotations

import functools

import gymnasium as gym
import numpy as np
import pytest

import kumo_gym
from kumo_gym.core import Instance
from kumo_gym.core.capabilities import CHEAP_PARTIAL_CAP, CheapStrategies, NearMisses, RandomAnswer
from kumo_gym.core.registry import get_task
from kumo_gym.envs.finereason.items import rules_for
from kumo_gym.envs.finereason.tasks import StateTransitionTask
from kumo_gym.training.data import generate_instances

SC, ST, WALK = ("kumo_gym/FineReasonStateChecking-v0", "kumo_gym/FineReasonStateTransition-v0",
                "kumo_gym/FineReasonTreeWalk-v0")
PUZZLES = ["sudoku", "coloring", "game24", "logicgrid"]
#: rules that another check implies on these puzzles: they only name a finer reason there
#: (24: the numbers are kept by joining two expressions; grids: only a clue's own values are placed)
IMPLIED = {("game24", "allowed_values"), ("logicgrid", "allowed_values")}


@functools.cache
def instances(env_id, puzzle, n=4, difficulty="easy", **kw):
    out = []
    for label in (("solvable", "unsolvable") if env_id != WALK else (None,)):
        extra = {"label": label} if label else {}
        out += list(generate_instances(env_id, n // 2 if label else n, split="validation", seed=17,
                                       puzzle=puzzle, difficulty=difficulty, **extra, **dict(kw)))
    return tuple(out)


def pairs(env_id, puzzle, **kw):
    task = get_task(env_id)
    return [(inst, nm) for i, inst in enumerate(instances(env_id, puzzle, **kw))
            for nm in task.near_misses(inst, np.random.default_rng(i))]


def refused(task, inst, nm) -> str | None:
    v = task.verify(inst, nm.answer)
    if v.solved or v.reward != 0.0 or v.score >= 1.0:
        return f"accepted: {v.status}"
    if nm.exclusive and v.rules != [nm.rule]:
        return f"rules {v.rules}, expected [{nm.rule}] ({v.message})"
    return None


@pytest.mark.parametrize("env_id", [SC, ST, WALK])
@pytest.mark.parametrize("puzzle", PUZZLES)
def test_near_misses_break_exactly_their_rule_and_every_check_bears_load(env_id, puzzle):
    task = get_task(env_id)
    assert isinstance(task, NearMisses)
    got = pairs(env_id, puzzle)
    problems = [f"{nm.rule}: {why}" for inst, nm in got if (why := refused(task, inst, nm))]
    assert not problems, problems[:10]
    covered = {nm.rule for _, nm in got}
    for rule in covered:
        if (puzzle, rule) in IMPLIED:
            continue
        with task.rules_disabled(rule):
            accepted = [nm for inst, nm in got if nm.rule == rule and task.verify(inst, nm.answer).solved]
        assert accepted, f"{puzzle}: switching {rule} off lets no near miss through"
    # the rules each puzzle can break at all are covered (24 and grids have no clash of values)
    expected = set(task.rule_codes) - {"avoid_dead_child"} if env_id == ST else set(task.rule_codes)
    if puzzle == "game24":
        expected -= {"no_conflict", "keeps_filled"}  # a division by zero or a rewrite needs a compound state
    assert expected - covered <= {"no_conflict", "keeps_filled", "forward_when_solvable"}, expected - covered


def legal_moves(inst):
    """Tree children, and for Sudoku and colouring every legal one-position fill (any empty cell)."""
    item = inst.data
    rules, data, cur = rules_for(item["puzzle"]), item["puzzle_data"], item["current"]
    out = [rules.visible(c) for _, c in rules.children(data, cur)]
    if item["puzzle"] == "sudoku":
        out += [[[v if (r, c) == (i, j) else cur[r][c] for c in range(9)] for r in range(9)]
                for i in range(9) for j in range(9) if cur[i][j] == 0 for v in range(1, 10)]
    if item["puzzle"] == "coloring":
        out += [[c if u == v else cur[u] for u in range(len(cur))]
                for v in range(len(cur)) if cur[v] == 0 for c in range(1, data["k"] + 1)]
    return [m for m in out if rules.check_forward(data, cur, m).legal]


def dead_move(inst):
    """A legal move from a solvable item into a dead subtree that is not the explored child."""
    item = inst.data
    rules = rules_for(item["puzzle"])
    for vis in legal_moves(inst):
        child = rules.check_forward(item["puzzle_data"], item["current"], vis).child
        if not rules.solvable(item["puzzle_data"], child) and vis != item["explored"]:
            return vis
    return None


@pytest.mark.parametrize("puzzle", PUZZLES)
def test_strict_transition_reward_pays_only_solvable_children(puzzle):
    task = StateTransitionTask()
    seen = 0
    for inst in instances(ST, puzzle, n=12, difficulty="normal"):
        if inst.data["label"] != "Solvable":
            continue
        strict = Instance(inst.family, inst.data, params={**inst.params, "transition_reward": "strict"})
        gold = task.solve(inst)
        assert task.verify(strict, gold).solved  # the golden move is a solvable child
        move = dead_move(inst)
        if move is None:
            continue
        seen += 1
        lenient_v, strict_v = task.verify(inst, move), task.verify(strict, move)
        assert lenient_v.solved and lenient_v.details["child_solvable"] is False
        assert not lenient_v.details["st_strict_correct"]
        assert not strict_v.solved and strict_v.reward == 0 and strict_v.rules == ["avoid_dead_child"]
        assert strict_v.details["category"] == "dead_child"
        with task.rules_disabled("avoid_dead_child"):
            assert task.verify(strict, move).solved
    assert seen, f"no {puzzle} item had a dead move besides the explored child"


def test_strict_option_reaches_replayed_instances_through_the_env():
    inst = next(i for i in instances(ST, "game24", n=12) if i.data["label"] == "Solvable" and dead_move(i))
    text = StateTransitionTask().format_answer(dead_move(inst))
    for kw, want in (({}, 1.0), ({"transition_reward": "strict"}, 0.0)):
        env = gym.make(ST, **kw)  # the env's puzzle (sudoku) does not matter for a replay
        env.reset(options={"instance": inst})
        assert env.step(text)[1] == want, kw


@pytest.mark.parametrize("env_id", [SC, ST])
@pytest.mark.parametrize("puzzle", PUZZLES)
@pytest.mark.parametrize("transition_reward", ["lenient", "strict"])
def test_cheap_answers_earn_nothing(env_id, puzzle, transition_reward):
    task = get_task(env_id)
    assert isinstance(task, CheapStrategies)
    kw = {"transition_reward": transition_reward} if env_id == ST else {}
    if env_id == SC and transition_reward == "strict":
        pytest.skip("the transition reward does not apply to state checking")
    totals: dict = {}
    for i, inst in enumerate(instances(env_id, puzzle, n=6, **kw)):
        for ca in task.cheap_answers(inst, np.random.default_rng(i)):
            for reward in ("binary", "partial"):
                env = gym.make(env_id, reward=reward)
                env.reset(options={"instance": inst})
                _, r, terminated, _, _ = env.step(ca.completion)
                assert terminated
                _, again, _, _, info = env.step(ca.completion)
                assert again == 0.0 and info["verdict"]["status"] == "ended"
                t = totals.setdefault(ca.name, {"binary": 0.0, "partial": 0.0, "chance": 0.0, "n": 0})
                t[reward] += r
            t["chance"] += ca.chance
            t["n"] += 1
    assert {"empty"} <= set(totals)
    for name, t in totals.items():
        assert t["binary"] <= t["chance"] + 1e-9, (name, t)  # exact: every chance is 0 or 1 per item
        assert t["partial"] / t["n"] <= max(CHEAP_PARTIAL_CAP, t["chance"] / t["n"]), (name, t)
    if env_id == SC:
        assert totals["both (A) and (B)"]["binary"] == 0 and totals["every option listed"]["binary"] == 0


@pytest.mark.parametrize("puzzle", PUZZLES)
def test_tree_walk_cheap_walks_earn_nothing(puzzle):
    task = get_task(WALK)
    for i, inst in enumerate(instances(WALK, puzzle, n=3)):
        for ca in task.cheap_answers(inst, np.random.default_rng(i)):
            for reward in ("binary", "partial"):
                env = gym.make(WALK, reward=reward, mode="interactive")
                env.reset(options={"instance": inst})
                total = 0.0
                for k in range(300):
                    _, r, terminated, truncated, _ = env.step(ca.moves[k % len(ca.moves)])
                    total += r
                    if terminated or truncated:
                        break
                assert total <= ca.chance, (ca.name, reward, total)
                v = task.score(inst, ca.completion)
                assert v.reward <= ca.chance and (v.score <= CHEAP_PARTIAL_CAP or v.score <= ca.chance), ca.name


OPTIONS = [("no_programming", False), ("faithful_labels", True), ("transition_reward", "strict"),
           ("allow_confirming_noop", True)]


@pytest.mark.parametrize("env_id", [SC, ST])
@pytest.mark.parametrize("puzzle", PUZZLES)
def test_prompt_and_scoring_options_never_change_the_instance(env_id, puzzle):
    base = gym.make(env_id, puzzle=puzzle, difficulty="easy").reset(seed=5)[1]["instance_id"]
    task = get_task(env_id)
    for name, value in OPTIONS:
        if name not in task.accepted_params() or (name == "allow_confirming_noop" and puzzle != "logicgrid"):
            continue
        got = gym.make(env_id, puzzle=puzzle, difficulty="easy", **{name: value}).reset(seed=5)[1]["instance_id"]
        assert got == base, name
    assert set(task.prompt_option_names()) >= {"no_programming", "faithful_labels"}


@pytest.mark.parametrize("env_id", [SC, ST, WALK])
@pytest.mark.parametrize("puzzle", PUZZLES)
def test_random_answers_are_well_formed(env_id, puzzle):
    task = get_task(env_id)
    assert isinstance(task, RandomAnswer)
    for i, inst in enumerate(instances(env_id, puzzle)):
        ans = task.random_answer(inst, np.random.default_rng(i))
        assert task.parse(task.format_answer(ans)) == ans
        v = task.score(inst, task.format_answer(ans))
        assert v.status in ("solved", "wrong", "illegal_move", "incomplete"), v.message


def test_sc_parser_refuses_answers_that_name_both_options():
    task = get_task(SC)
    for text in ["Answer: (A) or (B)", "Answer: (A) and (B)", "Answer: Solvable or Unsolvable", "(A) ... (B)",
                 "(A) Solvable\n(B) Unsolvable"]:
        with pytest.raises(kumo_gym.core.errors.ParseError):
            task.parse(text)
    assert task.parse("Answer: (A)\nAnswer: (B)") == "B"  # two answers: the last counts
    assert task.parse("Options (A) and (B) were weighed.\nAnswer: (A)") == "A"
