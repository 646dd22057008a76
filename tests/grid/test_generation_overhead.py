"""The shared per-instance work of GridTask.generate made cheaper decides exactly as
before: the blind check against a literal replay of every blind answer, the kept resolved
parameters and Tatham strings against fresh ones."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.grid.base import GENERATOR_VERSION
from kumo_gym.envs.grid.regions import canonical, refines

#: presets where blind grids often solve a draw (degenerate sizes) and ordinary ones
CASES = [("Towers", "trivial"), ("Lightup", "trivial"), ("Signpost", "trivial"), ("Singles", "trivial"),
         ("Magnets", "trivial"), ("Range", "trivial"), ("Unequal", "trivial"), ("Net", "trivial"),
         ("Tents", "easy"), ("Unruly", "trivial"), ("Pearl", "trivial"), ("Rect", "trivial"), ("Rect", "easy")]


def draws(task, difficulty: str, n: int):
    """Instances as the generator draws them, before any redraw (blind-solvable ones included)."""
    params = task.resolve_params(difficulty=difficulty)
    for seed in range(n):
        state, solution = task.sample(np.random.default_rng(seed), params)
        yield task.make_instance(params, state, solution, source=GENERATOR_VERSION)


def replay_walk(task, inst, target) -> bool:
    """Whether writing ``target`` (value indices) into the starting grid one cell at a time in
    row-major order, given cells and values no move writes skipped, passes through the solution."""
    H, W = task.dims(inst)
    vals = list(task.cell_values(inst))
    fixed = task.givens(inst)
    moves = set(task.move_values(inst))
    canon = lambda codes: task.canonical_codes(inst, codes)
    truth = canon(task._coded(inst, inst.data["solution"]))
    state = task._coded(inst, task.initial_grid(inst))
    if (canon(state) == truth).all():
        return True
    for r in range(H):
        for c in range(W):
            if (r, c) not in fixed and target[r, c] >= 0 and vals[target[r, c]] in moves:
                state[r, c] = target[r, c]
            if (canon(state) == truth).all():
                return True
    return False


def replayed_blind_solves(task, inst) -> bool:
    """Every blind grid, with the givens copied, compared with the solution cell by cell; then
    played from the starting grid (:func:`replay_walk`)."""
    if hasattr(task, "anchors"):  # region labels: the grids as blind_grids writes them, relabelled
        sol = inst.data["solution"]
        anchors = task.anchors(inst)
        return any(canonical(g, anchors) == sol for g in task.blind_grids(inst).values())
    H, W = task.dims(inst)
    fixed = task.givens(inst)
    sol = task._coded(inst, inst.data["solution"])
    free = [(r, c) for r in range(H) for c in range(W) if (r, c) not in fixed]
    for target in task._blind(H, W, len(task.cell_values(inst)))[1]:
        if free and all(target[r, c] == sol[r, c] for r, c in free):
            return True
        if replay_walk(task, inst, target):
            return True
    return False


@pytest.mark.parametrize("name", ["Tents", "Unruly", "Signpost", "Undead", "Range", "Net", "Lightup"])
def test_walks_decide_as_a_literal_replay(name):
    # targets near the solution (some cells changed, early or late) walk through it or not
    task = get_task(f"kumo_gym/{name}-v0")
    rng = np.random.default_rng(5)
    outcomes = set()
    for inst in draws(task, "easy", 6):
        sol = task._coded(inst, inst.data["solution"])
        n = len(task.cell_values(inst))
        targets = [sol.copy()]
        for k in range(12):
            t = sol.copy().ravel()
            cells = rng.choice(t.size, size=1 + k % 3, replace=False)
            if k % 2:  # late cells only: the walk has fixed every wrong starting cell by then
                cells = t.size - 1 - rng.choice(max(1, t.size // 4), size=min(1 + k % 3, max(1, t.size // 4)), replace=False)
            t[cells] = (t[cells] + rng.integers(1, max(2, n), size=len(cells))) % n
            targets.append(t.reshape(sol.shape))
        targets.append(np.full(sol.shape, -1, np.int16))
        got = task._walks_solve(inst, np.asarray(targets))
        want = [replay_walk(task, inst, t) for t in targets]
        assert list(got) == want, inst.data["game_id"]
        outcomes |= set(want)
    assert outcomes == {True, False}


@pytest.mark.parametrize("name,difficulty", CASES)
def test_blind_check_decides_as_a_literal_replay(name, difficulty):
    task = get_task(f"kumo_gym/{name}-v0")
    seen = []
    for inst in draws(task, difficulty, 25):
        got = task.blind_solves(inst)
        assert got == replayed_blind_solves(task, inst), inst.data["game_id"]
        seen.append(got)
    if (name, difficulty) in (("Lightup", "trivial"), ("Signpost", "trivial"), ("Rect", "trivial")):
        assert any(seen)  # the degenerate presets do give blind-solvable draws


def test_refines_is_what_a_relabelling_needs():
    assert refines([[0, 1], [2, 3]], [[5, 5], [6, 6]])
    assert not refines([[0, 0], [1, 1]], [[5, 6], [5, 6]])
    assert not refines([[-1, 0]], [[3, 0]]) and not refines([[3, 0]], [[-1, 0]])
    assert refines([[-1, 0]], [[-1, 7]])


def test_resolved_params_are_kept_but_fresh_and_checked():
    task = get_task("kumo_gym/Towers-v0")
    for kwargs in ({"difficulty": "easy"}, {}, {"difficulty": "trivial", "n": 5}):
        first, again = task._resolved(dict(kwargs)), task._resolved(dict(kwargs))
        assert first == again == task.resolve_params(**kwargs) and first is not again
        first["n"] = 99  # the caller's copy, not the kept one
        assert task._resolved(dict(kwargs)) == task.resolve_params(**kwargs)
    for _ in range(2):  # a refused value is refused every time, never served from the cache
        with pytest.raises(ConfigError):
            task._resolved({"n": 0})
    with pytest.raises(ConfigError):
        task._resolved({"difficulty": "insane"})
    assert task._resolved({"n": 4.0}) == task.resolve_params(n=4.0)  # kept apart from n=4 by type


def test_kept_tatham_strings_match_fresh_ones():
    task = get_task("kumo_gym/Tents-v0")
    for difficulty in ("trivial", "easy", "normal", "hard"):
        gen = task.generation_params(task.resolve_params(difficulty=difficulty))
        fresh = get_task("kumo_gym/Tents-v0")
        for full in (True, False, True):
            assert task.encode_params(gen, full=full) == fresh.encode_params(gen, full=full)
    inst = task.generate(np.random.default_rng(3), difficulty="easy")
    assert inst.data["game_id"].split(":", 1)[0] == task.encode_params(inst.params, full=False)


def test_a_starting_grid_that_is_the_solution_counts_as_walked_through():
    task = get_task("kumo_gym/Towers-v0")
    params = task.resolve_params(difficulty="easy")
    state, solution = task.sample(np.random.default_rng(1), params)
    state["grid"] = [list(row) for row in solution]  # every cell given: nothing left to write
    inst = task.make_instance(params, state, solution, source=GENERATOR_VERSION)
    targets = task._blind(*task.dims(inst), len(task.cell_values(inst)))[1]
    assert task._walks_solve(inst, targets).all() and replay_walk(task, inst, targets[0])
    assert task.blind_solves(inst)
