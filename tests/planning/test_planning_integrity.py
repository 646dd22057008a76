"""Reward integrity of the planning envs: near misses, rule switches, cheap strategies,
partial credit that measures progress, planted verifier bugs that these tests must catch."""
from __future__ import annotations

from collections import deque

import gymnasium as gym
import numpy as np
import pytest

import kumo_gym  # noqa: F401  (registers the envs)
from kumo_gym.core.capabilities import CHEAP_PARTIAL_CAP, CheapStrategies, NearMisses, RandomAnswer
from kumo_gym.core.registry import get_task
from kumo_gym.envs.planning.base import GOAL_RULE
from kumo_gym.envs.planning.blocks import BlocksWorldTask
from kumo_gym.envs.planning.checkers import CheckerJumpingTask
from kumo_gym.envs.planning.hanoi import HanoiTask
from kumo_gym.envs.planning.river import RiverCrossingTask
from tests.state_search import bfs_from_goal

IDS = ["kumo_gym/Hanoi-v0", "kumo_gym/CheckerJumping-v0", "kumo_gym/RiverCrossing-v0", "kumo_gym/BlocksWorld-v0"]
HANOI, CHECKER, RIVER, BLOCKS = (get_task(i) for i in IDS)
#: small instances of every kind (canonical and random starts, several sizes and capacities)
KWARGS = {
    "kumo_gym/Hanoi-v0": [{}, {"n": 3}, {"n": 4, "start": "random"}, {"n": 2, "start": "random"}],
    "kumo_gym/CheckerJumping-v0": [{}, {"n": 2}, {"n": 3, "start": "random"}, {"n": 4, "start": "random"}],
    "kumo_gym/RiverCrossing-v0": [{}, {"n": 2, "k": 2}, {"n": 4, "k": 3}, {"n": 5, "k": 4},
                                  {"n": 3, "k": 3, "start": "random"}],
    "kumo_gym/BlocksWorld-v0": [{}, {"n": 4}, {"n": 5, "start": "random"}, {"n": 4, "n_stacks": 4}],
}


def instances(env_id, seeds=(0, 1)):
    out = []
    for kw in KWARGS[env_id]:
        env = gym.make(env_id, **kw)
        for seed in seeds:
            env.reset(seed=seed)
            out.append(env.unwrapped.instance)
    return out


def near_miss_failures(task, insts, source=None) -> list[str]:
    """Every way the near misses of ``insts`` show a wrong verifier (empty when all is well).

    ``source`` makes the near misses (the task itself by default); a planted bug in ``task``'s
    verifier is judged on the near misses of the correct task, as the mutation test does.
    """
    failures, covered, completed = [], set(), set()
    for inst in insts:
        for miss in (source or task).near_misses(inst, np.random.default_rng(0)):
            v = task.verify(inst, miss.answer)
            if v.solved or v.reward != 0 or v.score >= 1 or v.rules != [miss.rule]:
                failures.append(f"{miss.rule}: {v.status} {v.rules} {v.score:.2f} on {str(miss.answer)[:80]}")
            covered.add(miss.rule)
            with task.rules_disabled(miss.rule):
                off = task.verify(inst, miss.answer)
            if miss.rule in off.rules:
                failures.append(f"{miss.rule} still reported with its check switched off")
            if off.solved:
                completed.add(miss.rule)
    failures += [f"no near miss breaks {r}" for r in task.rule_codes if r not in covered]
    failures += [f"no near miss of {r} solves once {r} is off" for r in task.rule_codes
                 if r not in completed and r not in task.rules_never_alone]
    return failures


# ---- near misses and the rule switches --------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_near_misses_break_exactly_their_rule_and_each_check_is_load_bearing(env_id):
    task = get_task(env_id)
    assert isinstance(task, NearMisses) and GOAL_RULE in task.rule_codes
    assert set(task.rules_never_alone) < set(task.rule_codes)
    assert near_miss_failures(task, instances(env_id)) == []


@pytest.mark.parametrize("env_id", IDS)
def test_near_misses_sit_at_the_first_a_middle_and_the_last_move(env_id):
    task = get_task(env_id)
    inst = gym.make(env_id).unwrapped.task.load(instances(env_id)[0])
    gold = task.solve(inst)
    where: dict[str, set] = {}
    for miss in task.near_misses(inst, np.random.default_rng(0)):
        v = task.verify(inst, miss.answer)
        if miss.rule != GOAL_RULE:
            where.setdefault(miss.rule, set()).add(v.first_error)
    for rule, positions in where.items():
        if rule in ("empty_peg", "empty_stack"):
            continue  # only where some peg or stack is empty
        assert {1, len(gold)} <= positions or len(positions) >= 2, (rule, positions)


def _reachable(task, inst):
    start = task.initial_state(inst)
    seen, queue = {start}, deque([start])
    while queue:
        s = queue.popleft()
        for m in task.legal_moves(inst, s):
            t = task.apply(inst, s, m)
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return seen


@pytest.mark.parametrize("task,inst", [
    (HANOI, HANOI.load({"n": 3})), (CHECKER, CHECKER.load({"n": 3})), (CHECKER, CHECKER.load({"initial": "RR_BBBB"})),
    (RIVER, RIVER.load({"n": 3, "k": 2})), (RIVER, RIVER.load({"n": 4, "k": 4})), (BLOCKS, BLOCKS.load({"n": 4})),
], ids=["hanoi3", "checker3", "checker2x4", "river3k2", "river4k4", "blocks4"])
def test_rules_never_broken_alone_really_are(task, inst):
    """The rules a task declares unbreakable alone: in no reachable state does a move break that
    rule alone and leave a state from which the goal can be reached (exhaustive, small sizes)."""
    for rule in task.rules_never_alone:
        for s in _reachable(task, inst):
            for m in task.candidate_moves(inst, s):
                if task.check_move(inst, s, m) != rule:
                    continue
                after = task.after_breaking(inst, s, m, rule)
                assert after is None or task.path_from(inst, after) is None, (rule, s, m)


# ---- planted verifier bugs: the near-miss test must catch each ---------------------------------
class HanoiNegativePegs(HanoiTask):
    def check_move(self, instance, state, move):  # forgets that pegs are >= 0
        disk, src, dst = move
        if src > 2 or dst > 2:
            return "bad_peg"
        return super().check_move(instance, state, [disk, src % 3, dst % 3]) if (src < 0 or dst < 0) else \
            super().check_move(instance, state, move)


class HanoiBottomDisk(HanoiTask):
    def check_move(self, instance, state, move):  # compares with the bottom disk instead of the top
        reason = super().check_move(instance, state, move)
        if reason == "larger_on_smaller" and state[move[2]][0] > move[0]:
            return None
        return reason


class CheckerRedOnlyDirection(CheckerJumpingTask):
    def check_move(self, instance, state, move):  # only red is kept from moving backwards
        reason = super().check_move(instance, state, move)
        return None if reason == "backward_move" and move[0] == "B" else reason


class CheckerJumpOverEmptyOnly(CheckerJumpingTask):
    def check_move(self, instance, state, move):  # forgets that jumping over one's own colour is bad
        reason = super().check_move(instance, state, move)
        return None if reason == "bad_jump" and state[(move[1] + move[2]) // 2] != "_" else reason


class RiverArrivalWithoutPassengers(RiverCrossingTask):
    def check_move(self, instance, state, move):  # forgets that the passengers land on the bank
        reason = super().check_move(instance, state, move)
        if reason == "unsafe_arrival_bank":
            left, boat = state
            there = left if boat == 1 else frozenset(self.people(instance.data["n"])) - left
            return "unsafe_arrival_bank" if self.unsafe(there) else None
        return reason


class RiverCapacityOffByOne(RiverCrossingTask):
    def check_move(self, instance, state, move):  # lets k + 1 people board
        reason = super().check_move(instance, state, move)
        if reason == "over_capacity" and len(move) == instance.data["k"] + 1:
            with self.rules_disabled("over_capacity"):
                return super().check_move(instance, state, move)
        return reason


class BlocksTopAnywhere(BlocksWorldTask):
    def check_move(self, instance, state, move):  # any block of the source stack may move
        reason = super().check_move(instance, state, move)
        return None if reason == "not_top_block" and move[0] in state[move[1]] else reason


class BlocksGoalOnStackZero(BlocksWorldTask):
    def is_goal(self, instance, state):  # compares stack 0 only
        return state[0] == self.goal(instance)[0]


MUTANTS = [(HanoiNegativePegs, "kumo_gym/Hanoi-v0"), (HanoiBottomDisk, "kumo_gym/Hanoi-v0"),
           (CheckerRedOnlyDirection, "kumo_gym/CheckerJumping-v0"),
           (CheckerJumpOverEmptyOnly, "kumo_gym/CheckerJumping-v0"),
           (RiverArrivalWithoutPassengers, "kumo_gym/RiverCrossing-v0"),
           (RiverCapacityOffByOne, "kumo_gym/RiverCrossing-v0"), (BlocksTopAnywhere, "kumo_gym/BlocksWorld-v0"),
           (BlocksGoalOnStackZero, "kumo_gym/BlocksWorld-v0")]


@pytest.mark.parametrize("mutant,env_id", MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_planted_single_rule_weakenings_are_caught(mutant, env_id):
    task = mutant()
    insts = [task.load(i) for i in instances(env_id)]
    if mutant is BlocksGoalOnStackZero:
        insts = [i for i in insts if any(i.data["goal"][1:])]
        insts.append(task.load({"initial": [["A"], ["B"], ["C"]], "goal": [["A"], ["C"], ["B"]]}))
    source = get_task(env_id)
    assert near_miss_failures(task, insts, source), f"{mutant.__name__} slipped through the near-miss suite"


# ---- cheap strategies and partial credit ------------------------------------------------------
def _play(env, inst, moves):
    env.reset(options={"instance": inst})
    return sum(env.step(a)[1] for a in moves)


@pytest.mark.parametrize("env_id", IDS)
def test_cheap_strategies_earn_nothing_in_either_mode(env_id):
    task = get_task(env_id)
    assert isinstance(task, CheapStrategies)
    names = set()
    for inst in instances(env_id, seeds=(0, 1, 2)):
        for cheap in task.cheap_answers(inst, np.random.default_rng(0)):
            names.add(cheap.name)
            if cheap.completion is not None:
                v = task.score(inst, cheap.completion)
                assert v.reward <= cheap.chance, (cheap.name, v.status)
                assert v.score <= CHEAP_PARTIAL_CAP or cheap.chance == 1, (cheap.name, v.score, inst.data)
            if cheap.moves is not None:
                for reward in ("binary", "partial"):
                    env = gym.make(env_id, mode="interactive", reward=reward)
                    total = _play(env, inst, cheap.moves)
                    assert total <= max(cheap.chance, CHEAP_PARTIAL_CAP if reward == "partial" else 0), cheap.name
    want = {"empty", "constant", "random_walk", "every_legal_move", "gold_padded_past_goal", "steps_after_the_end"}
    assert want <= names and (env_id.endswith("Checker" "Jumping-v0") or "back_and_forth" in names)


@pytest.mark.parametrize("env_id", ["kumo_gym/Hanoi-v0", "kumo_gym/RiverCrossing-v0", "kumo_gym/BlocksWorld-v0"])
def test_back_and_forth_walk_earns_no_partial_credit(env_id):
    """A move and its undo, repeated, used to score 0.97 (Hanoi) and 0.91."""
    task = get_task(env_id)
    env = gym.make(env_id, reward="partial")
    env.reset(seed=0)
    inst = env.unwrapped.instance
    s0 = task.initial_state(inst)
    m = task.legal_moves(inst, s0)[0]
    s1 = task.apply(inst, s0, m)
    undo = next(u for u in task.legal_moves(inst, s1) if task.apply(inst, s1, u) == s0)
    for length in (1, 2, 10, 3 * task.optimal_length(inst)):
        walk = ([m, undo] * length)[:length]
        env.reset(options={"instance": inst})
        reward = env.step(task.format_answer(walk))[1]
        assert reward <= CHEAP_PARTIAL_CAP, (length, reward)


def test_partial_credit_formula_and_its_edges():
    inst = HANOI.load({"n": 4})
    gold = HANOI.solve(inst)
    d0 = len(gold)
    for k in range(d0):
        assert HANOI.verify(inst, gold[:k]).score == pytest.approx(max(0, k - 1) / (d0 - 1))
    # a detour (a move and its undo) costs what it could have gained: P = 6, k = 8
    s6 = HANOI._states_along(inst, gold[:6])[-1]
    m = next(x for x in HANOI.legal_moves(inst, s6) if x != gold[6])
    undo = [m[0], m[2], m[1]]
    assert HANOI.verify(inst, gold[:6] + [m, undo]).score == pytest.approx((2 * 6 - 8 - 1) / (d0 - 1))
    # an illegal move after a good prefix keeps the prefix's progress
    v = HANOI.verify(inst, gold[:10] + [[4, 2, 0]])
    assert v.status == "illegal_move" and v.score == pytest.approx(9 / (d0 - 1))
    # the goal reached and then left, or an illegal move after it: nothing
    away = HANOI.legal_moves(inst, HANOI.goal(inst))[0]
    assert HANOI.verify(inst, gold + [away]).score == 0
    assert HANOI.verify(inst, gold + [[4, 0, 1]]).score == 0
    assert HANOI.verify(inst, gold).score == 1
    # a dead end (Checker) is no progress
    c = CHECKER.load({"n": 3})
    cgold = CHECKER.solve(c)
    s3 = CHECKER._states_along(c, cgold[:3])[-1]
    dead = cgold[:3] + [next(x for x in CHECKER.legal_moves(c, s3) if x != cgold[3])]
    assert CHECKER.distance(c, CHECKER._states_along(c, dead)[-1]) is None
    assert CHECKER.verify(c, dead).score == 0


@pytest.mark.parametrize("task,inst", [
    (HANOI, HANOI.load({"n": 4})), (RIVER, RIVER.load({"n": 3, "k": 2})), (RIVER, RIVER.load({"n": 4, "k": 3})),
    (BLOCKS, BLOCKS.load({"n": 5})), (BLOCKS, BLOCKS.custom([["A", "B"], ["C"], [], ["D"]], [["D", "C", "B", "A"], [], [], []])),
], ids=["hanoi4", "river3k2", "river4k3", "blocks5", "blocks4x4"])
def test_distance_oracles_are_exact_everywhere(task, inst):
    """The distances behind partial credit equal breadth-first search from every reachable state."""
    truth = bfs_from_goal(task, inst)  # these puzzles' moves are reversible (Checker's, not tested here, are not)
    assert truth[task.initial_state(inst)] == task.optimal_length(inst)
    for s, d in truth.items():
        assert task.distance(inst, s) == d, s


def test_checker_distances_are_exact_on_every_reachable_board():
    """Every move is forward, so distances come from a memoised search over the board DAG."""
    for board in ("RRR_BBB", "RR_BBBB", "R_BBB"):
        inst = CHECKER.load({"initial": board})
        goal = CHECKER.goal(inst)
        memo: dict = {goal: 0}

        def solve(b, inst=inst, memo=memo):
            if b not in memo:
                nxt = [solve(CHECKER.apply(inst, b, m)) for m in CHECKER.legal_moves(inst, b)]
                nxt = [x for x in nxt if x is not None]
                memo[b] = 1 + min(nxt) if nxt else None
            return memo[b]

        for b in _reachable(CHECKER, inst):
            assert CHECKER.distance(inst, b) == solve(b), b


@pytest.mark.parametrize("env_id", IDS)
def test_random_answer_is_a_legal_walk(env_id):
    task = get_task(env_id)
    assert isinstance(task, RandomAnswer)
    inst = instances(env_id)[0]
    walk = task.random_answer(inst, np.random.default_rng(3))
    v = task.score(inst, task.format_answer(walk))
    assert v.details["n_legal_prefix"] == len(walk) and v.status in ("solved", "incomplete")
    end = task._states_along(inst, walk)[-1]
    assert len(walk) == task.optimal_length(inst) or v.solved or not task.legal_moves(inst, end)


# ---- prompt options never change the instance ---------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_prompt_options_leave_the_instance_and_the_draws_alone(env_id):
    task = get_task(env_id)
    options = task.Params.prompt_names()
    assert {"algorithm_hint", "stepwise"} <= set(options)
    for difficulty in ("paper", "easy"):
        base = gym.make(env_id, difficulty=difficulty)
        ids = [base.reset(seed=s)[1]["instance_id"] for s in range(6)]
        for opt in options:
            env = gym.make(env_id, difficulty=difficulty, **{opt: True})
            assert [env.reset(seed=s)[1]["instance_id"] for s in range(6)] == ids, opt
        rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
        params = task.resolve_params(difficulty=difficulty)
        task.generate(rng_a, **params)
        task.generate(rng_b, **{**params, **dict.fromkeys(options, True)})
        assert rng_a.integers(1 << 30) == rng_b.integers(1 << 30)
