"""The exhaustive enumerator (spec §8): exact against the official solution lists, equal to the
plain-Python enumerator, and unchanged by every pruning switch."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.envs.sparc.generate import generate
from kumo_gym.envs.sparc.puzzle import SparcPuzzle
from kumo_gym.envs.sparc.rules import is_solution
from kumo_gym.solvers.sparc import PRUNE_ALL, enumerate_python, enumerate_solutions, puzzle_data, solve_all

from .conftest import stored_paths


def test_numba_reproduces_every_stored_solution_set(ref_records):
    for r in ref_records:
        res = enumerate_solutions(r, cap=None)
        assert res.complete and not res.capped
        assert sorted(map(tuple, res.solutions)) == sorted(map(tuple, stored_paths(r))), r["id"]
        assert res.count == r["solution_count"]
        assert len(res.shortest) == min(len(s) for s in stored_paths(r))


def _small_generated(n, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        w, h = int(rng.integers(2, 4)), int(rng.integers(2, 4))
        out.append(generate(rng, width=w, height=h).puzzle)
    return out


def test_python_enumerator_agrees(maybe_ref_records):
    puzzles = [SparcPuzzle.from_record(r) for r in maybe_ref_records if r["grid_size"]["width"] * r["grid_size"]["height"] <= 8]
    puzzles += _small_generated(200)
    for p in puzzles:
        fast = enumerate_solutions(p, cap=None)
        slow = enumerate_python(puzzle_data(p), lambda path, p=p: is_solution(p, path), time_limit=60)
        assert slow.complete
        assert fast.solutions == slow.solutions  # same neighbour order, same order of solutions


@pytest.mark.parametrize("prune", range(8))
def test_pruning_switches_change_nothing(maybe_ref_records, prune):
    puzzles = [SparcPuzzle.from_record(r) for r in maybe_ref_records if r["grid_size"]["width"] * r["grid_size"]["height"] <= 6]
    puzzles += _small_generated(15, seed=1)
    for p in puzzles:
        assert enumerate_solutions(p, cap=None, prune=prune).solutions == \
            enumerate_solutions(p, cap=None, prune=PRUNE_ALL).solutions


def test_cap_limit_and_solve_all(ref_records):
    r = max(ref_records, key=lambda r: r["solution_count"])
    n = r["solution_count"]
    assert n > 5
    res = enumerate_solutions(r, cap=3)
    assert res.capped and res.count == 4 and len(res.solutions) == 4
    assert solve_all(r, limit=2) == enumerate_solutions(r, cap=None).solutions[:2]
    assert len(solve_all(r)) == n
    assert solve_all(r, limit=0) == []
    # an Instance works too, and every path runs from S to E as (x, y) pairs
    from kumo_gym.envs.sparc.task import SparcTask

    paths = solve_all(SparcTask().load(r))
    p = SparcPuzzle.from_record(r)
    assert all(path[0] == p.start and path[-1] == p.end for path in paths)


def test_node_limit_marks_incomplete(ref_records):
    r = next(r for r in ref_records if r["id"] == "5569f16359d15a33")
    res = enumerate_solutions(r, cap=None, node_limit=1000)
    assert not res.complete and res.nodes == 1000


def test_search_resumes_exactly_across_slices(ref_records, monkeypatch):
    """With a time limit the kernel runs in slices of nodes; the result must not change."""
    import kumo_gym.solvers.sparc as solver

    monkeypatch.setattr(solver, "TIME_SLICE_NODES", 37)
    for r in ref_records[:12]:
        sliced = enumerate_solutions(r, cap=None, time_limit=600)
        whole = enumerate_solutions(r, cap=None)
        assert sliced.complete and sliced.solutions == whole.solutions and sliced.nodes == whole.nodes
    hard = next(r for r in ref_records if r["id"] == "5569f16359d15a33")
    assert not enumerate_solutions(hard, cap=None, time_limit=0.0).complete
