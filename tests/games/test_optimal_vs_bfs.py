"""The games' optimal solvers against brute force (docs/games.md, "Optimal solvers").

For every game row of the catalogue: breadth-first search backwards from the goal over every
legal move (where the moves can be undone, distances to the goal are distances from it) labels
every reachable state of a small board with its exact distance; a game with many goal states (no
single ``goal_state``, e.g. Pegs: one peg left anywhere, its jumps never undone) is searched forwards
from the start instead, every reachable state labelled by its distance to the nearest goal, and the
solver must say that the others cannot reach one. The solver's optimum of
the instance, its distance from sampled states and the length of its path from them must equal
those labels, and its path must be legal and end at the goal. A new game joins by being
registered.
"""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.registry import entries, get_task
from tests.state_search import bfs_from_goal, distances_from_start

GAMES = [e.id for e in entries() if e.family == "games" and get_task(e.id).small_params]
#: the largest state space searched per instance
MAX_STATES = 400_000


def small_instances(task) -> list:
    out = []
    for params in task.small_params:
        for seed in range(3):
            out.append(task.generate(np.random.default_rng(seed), **task.resolve_params(**params)))
    return out


@pytest.mark.parametrize("env_id", GAMES)
def test_optimum_and_distances_equal_brute_force(env_id):
    task = get_task(env_id)
    rng = np.random.default_rng(7)
    checked = 0
    for inst in small_instances(task):
        if task.goal(inst) is None:
            dist, reachable = distances_from_start(task, inst, MAX_STATES)
            for s in reachable:
                if s not in dist:
                    assert task.distance(inst, s) is None, (inst.data["game_id"], s)
        else:
            dist = bfs_from_goal(task, inst, MAX_STATES)
        assert dist, f"{env_id}: {inst.data['game_id']} has more than {MAX_STATES} states; pick smaller small_params"
        s0 = task.initial_state(inst)
        assert task.optimal_steps(inst) == dist[s0], inst.data["game_id"]
        gold = task.solve(inst)
        assert len(gold) == dist[s0] and task.verify(inst, gold).solved
        states = list(dist)
        for k in rng.choice(len(states), size=min(40, len(states)), replace=False):
            s = states[int(k)]
            assert task.distance(inst, s) == dist[s], (inst.data["game_id"], s)
            path = task.path_from(inst, s)
            assert len(path) == dist[s]
            for m in path:
                assert task.check_move(inst, s, m) is None
                s = task.apply(inst, s, m)
            assert task.is_goal(inst, s)
        checked += 1
    assert checked >= 3
