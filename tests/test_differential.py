"""Registry-wide differential tests: each verifier against an independent statement of its rules.

Planning puzzles: the move checker (``check_move``) against the move generator (``legal_moves``)
on every state reachable from the start, and the solver's plans checked move by move. SPaRC: the
paths the move checker allows that the verifier accepts are exactly the solver's solution set.

Grid puzzles: the rule verifier against the SAT encoding (tests/differential.py): on small
instances of every registered grid puzzle the verifier accepts exactly the grids the encoding
accepts, up to the puzzle's declared answer equivalences. The smallest preset is checked in the
default run; the next preset, where answer spaces are larger and SAT-sampled answers reach more
rule instances, is marked slow.

A new grid puzzle is covered by registering it.
"""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from kumo_gym.core.registry import get_task
from kumo_gym.envs.grid.base import GridTask
from kumo_gym.envs.planning.base import PlanningTask

from .differential import answer_key, disagreements, encoding_answers, loop_variants
from .registry_helpers import FAMILY as FAMILY_OF
from .registry_helpers import IDS, difficulties, rng_for, sample_instances

GRID_IDS = [i for i in IDS if isinstance(get_task(i), GridTask)]


def _instance(env_id: str, level: int, seed: int):
    task = get_task(env_id)
    d = difficulties(task, level + 1)[level]
    return task, task.generate(np.random.default_rng(seed), **task.resolve_params(difficulty=d))


def _check(env_id: str, level: int, seeds) -> None:
    for seed in seeds:
        task, inst = _instance(env_id, level, seed)
        bad = disagreements(task, inst, rng_for(env_id, level, seed))
        assert not bad, (f"{env_id} seed {seed}: verifier and encoding disagree on {len(bad)} grid(s), e.g. "
                         f"{bad[0][0]}: {bad[0][1]}")


@pytest.mark.parametrize("env_id", GRID_IDS)
def test_verifier_accepts_exactly_the_encodings_answers(env_id):
    _check(env_id, 0, (0,))


@pytest.mark.slow
@pytest.mark.parametrize("env_id", GRID_IDS)
def test_verifier_accepts_exactly_the_encodings_answers_larger(env_id):
    _check(env_id, 1, (0, 1))


@pytest.mark.parametrize("env_id", GRID_IDS)
def test_declared_equivalents_are_accepted(env_id):
    """The answer equivalences the differential relies on are real: an answer written another
    declared way (labels renamed, a loop numbered from another start or the other way round)
    has the same key and is accepted; the encoding's answers are accepted as decoded."""
    task, inst = _instance(env_id, 0, 0)
    answers = encoding_answers(task, inst)
    assert answers, f"{env_id}: the encoding has no answer on a generated instance"
    for g in answers:
        assert task.verify(inst, g).solved, (env_id, g)
        variants = []
        if isinstance(answer_key(task, inst, g)[0], str) and answer_key(task, inst, g)[0] == "labels":
            labels = sorted({v for row in g for v in row if v != -1})
            rename = dict(zip(labels, labels[::-1]))
            variants.append([[rename.get(v, v) for v in row] for row in g])
        if answer_key(task, inst, g)[0] == "loop":
            variants += loop_variants(g)
        for v in variants:
            assert answer_key(task, inst, v) == answer_key(task, inst, g)
            assert task.verify(inst, v).solved, (env_id, v)


# ---- planning: the move checker against the move generator and the solver -----------------------------------------
PLANNING_IDS = [i for i in IDS if isinstance(get_task(i), PlanningTask)]
#: states explored breadth-first from the start, per instance
STATES = 300


def _key(move) -> str:
    return repr(move)


def reachable(task, inst, limit: int = STATES) -> list:
    """States reachable from the start by moves the checker allows, breadth-first."""
    start = task.initial_state(inst)
    seen, out, queue = {repr(start)}, [start], deque([start])
    while queue and len(out) < limit:
        state = queue.popleft()
        for m in task.move_catalog(inst):
            if task.check_move(inst, state, m) is None:
                nxt = task.apply(inst, state, m)
                if repr(nxt) not in seen:
                    seen.add(repr(nxt))
                    out.append(nxt)
                    queue.append(nxt)
    return out


@pytest.mark.parametrize("env_id", PLANNING_IDS)
def test_planning_generator_offers_exactly_the_checkers_moves(env_id):
    """On every state reachable from the start (up to STATES), the moves the generator offers
    (``legal_moves``) are exactly the moves of the catalogue and the candidate moves (wrong
    pieces, pegs out of range ...) that the checker (``check_move``) lets through."""
    task = get_task(env_id)
    for inst in sample_instances(env_id):
        for state in reachable(task, inst):
            offered = {_key(m) for m in task.legal_moves(inst, state)}
            pool = list(task.move_catalog(inst)) + list(task.candidate_moves(inst, state))
            allowed = {_key(m) for m in pool if task.check_move(inst, state, m) is None}
            assert offered == allowed, (env_id, state, sorted(offered ^ allowed))


@pytest.mark.parametrize("env_id", PLANNING_IDS)
def test_planning_solver_paths_are_legal_and_optimal(env_id):
    """The solver's plans, from the start and from states on the way, are legal move by move
    for the checker, end at the goal, and are as long as the solver's distance."""
    task = get_task(env_id)
    rng = rng_for(env_id, "plans")
    for inst in sample_instances(env_id):
        states = reachable(task, inst, 150)
        picks = [task.initial_state(inst)] + [states[int(i)] for i in rng.choice(len(states), min(5, len(states)),
                                                                                  replace=False)]
        for state in picks:
            path = task.path_from(inst, state)
            if path is None:
                continue
            s = state
            for m in path:
                assert task.check_move(inst, s, m) is None, (env_id, s, m)
                s = task.apply(inst, s, m)
            assert task.is_goal(inst, s), (env_id, state, path)
            d = task.distance(inst, state)
            if d is not None:
                assert len(path) == d, (env_id, state, len(path), d)


# ---- SPaRC: the path checker against the solver's search ------------------------------------------------------------
SPARC_IDS = [i for i in IDS if FAMILY_OF.get(i) == "sparc"]


def _all_paths(task, inst, limit: int = 200_000) -> list[tuple]:
    """Every path the move checker allows from the start to the end (depth first)."""
    p = task.puzzle(inst)
    out: list[tuple] = []
    stack = [task.initial_state(inst)]
    steps = 0
    while stack:
        state = stack.pop()
        steps += 1
        assert steps < limit, "too many partial paths for a differential test"
        if tuple(state[-1]) == tuple(p.end):
            out.append(state)
            continue
        for m in range(4):
            if task.check_move(inst, state, m) is None:
                stack.append(task.apply(inst, state, m))
    return out


@pytest.mark.parametrize("env_id", SPARC_IDS)
def test_sparc_verifier_accepts_exactly_the_solvers_solutions(env_id):
    """On small puzzles, the paths the move checker allows that the verifier accepts are exactly
    the solver's solution set (its own search, an independent statement of the rules)."""
    from kumo_gym.envs.sparc.search import solve_all

    task = get_task(env_id)
    for inst in sample_instances(env_id)[:2]:
        accepted = {tuple(map(tuple, s)) for s in _all_paths(task, inst) if task.is_goal(inst, s)}
        solver = {tuple(map(tuple, s)) for s in solve_all(task.puzzle(inst), None)}
        assert accepted == solver, (env_id, sorted(accepted ^ solver)[:3])
