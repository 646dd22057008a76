"""The exhaustive enumerator (docs/specs/sparc.md §8): exact against the official solution lists, equal to the
plain-Python enumerator, and unchanged by every pruning switch."""
from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from kumo_gym.envs.sparc.generate import generate
from kumo_gym.envs.sparc.puzzle import SparcPuzzle
from kumo_gym.envs.sparc.rules import is_solution
from kumo_gym.envs.sparc.search import PRUNE_ALL, enumerate_python, enumerate_solutions, puzzle_data, solve_all

from .conftest import fresh_reset, stored_paths


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
    import kumo_gym.envs.sparc.search as solver

    monkeypatch.setattr(solver, "TIME_SLICE_NODES", 37)
    for r in ref_records[:12]:
        sliced = enumerate_solutions(r, cap=None, time_limit=600)
        whole = enumerate_solutions(r, cap=None)
        assert sliced.complete and sliced.solutions == whole.solutions and sliced.nodes == whole.nodes
    hard = next(r for r in ref_records if r["id"] == "5569f16359d15a33")
    assert not enumerate_solutions(hard, cap=None, time_limit=0.0).complete


@pytest.mark.parametrize("python_nodes", [1, 37, 10**9])
def test_plain_python_first_slice_changes_nothing(maybe_ref_records, python_nodes):
    """The first nodes of a search run as plain Python, the rest compiled (cold start):
    any hand-over point gives the result of the compiled kernel alone, node counts included."""
    import kumo_gym.envs.sparc.search as solver

    records = [r for r in maybe_ref_records if r["grid_size"]["width"] * r["grid_size"]["height"] <= 9][:6]
    puzzles = [SparcPuzzle.from_record(r) for r in records] + _small_generated(12, seed=2)
    for p in puzzles:
        data = puzzle_data(p)
        for cap, node_limit in ((-1, 0), (2, 0), (-1, 150)):
            ref = solver._run(data, cap, PRUNE_ALL, node_limit, 64, None, python_nodes=0)
            got = solver._run(data, cap, PRUNE_ALL, node_limit, 64, None, python_nodes=python_nodes)
            assert got[:3] == ref[:3]
            assert (got[3] == ref[3]).all() and (got[4] == ref[4]).all()


def test_small_puzzles_never_import_numba():
    """A fresh process that enumerates small puzzles compiles nothing (cold start)."""
    import subprocess
    import sys

    code = ("import sys, numpy as np\n"
            "from kumo_gym.envs.sparc.generate import generate\n"
            "from kumo_gym.envs.sparc.search import enumerate_solutions\n"
            "rng = np.random.default_rng(0)\n"
            "for _ in range(3):\n"
            "    enumerate_solutions(generate(rng, width=2, height=2).puzzle, cap=None)\n"
            "print('numba' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_python_slice_and_the_process_budget(monkeypatch):
    """``python_slice`` sets how many nodes a search runs in plain Python before the compiled
    kernel takes over (never more than the process has left of its budget); the result is the
    same whatever it is."""
    import kumo_gym.envs.sparc.search as solver
    from kumo_gym.envs.sparc.search import kernels

    puzzle = generate(np.random.default_rng(7), level=4).puzzle
    ref = enumerate_solutions(puzzle, cap=None, python_slice=0)
    assert ref.nodes > 300
    monkeypatch.setattr(kernels, "compiled", lambda: False)
    for slice_, spent_before, expect in ((200, 0, 200), (10**9, 0, ref.nodes),
                                         (10**9, solver.PYTHON_NODES_PER_PROCESS - 150, 150)):
        monkeypatch.setattr(solver, "_python_nodes", spent_before)
        got = enumerate_solutions(puzzle, cap=None, python_slice=slice_)
        assert solver._python_nodes - spent_before == expect
        assert got.solutions == ref.solutions and got.nodes == ref.nodes


def test_a_level4_reset_needs_no_numba():
    """Level 1-4 generation searches run in plain Python up to ``SMALL_PYTHON_SLICE`` nodes, so
    a typical level-4 reset in a fresh process never imports numba (cold start; seed 4
    of the default env is a level-4 puzzle)."""
    assert fresh_reset(4, 300) == "4 False"


def test_a_preferred_path_changes_the_order_not_the_solutions():
    """``prefer`` (the generator's planted line) leads the search: a capped search finds it
    first; an exhaustive one finds the same solutions as the plain order."""
    rng = np.random.default_rng(5)
    for _ in range(6):
        g = generate(rng, level=int(rng.integers(2, 5)))
        plain = enumerate_solutions(g.puzzle, cap=None)
        for path in g.solutions:
            led = enumerate_solutions(g.puzzle, cap=None, prefer=path)
            assert sorted(map(tuple, led.solutions)) == sorted(map(tuple, plain.solutions))
            assert led.nodes == plain.nodes  # the same search tree, walked in another order
            assert enumerate_solutions(g.puzzle, cap=0, prefer=path).solutions[0] == path


def test_a_search_within_given_paths_finds_the_solutions_made_of_their_steps(maybe_ref_records):
    """``within_paths`` restricts the search to the steps of the given paths (either way): it
    returns exactly the solutions all of whose steps are among them, in the order of the full
    search (the generator recounts known solutions this way)."""
    rng = np.random.default_rng(8)
    puzzles = [SparcPuzzle.from_record(r) for r in maybe_ref_records[:25]]
    puzzles += [generate(rng, level=lv).puzzle for lv in (1, 2, 3, 4, 5, 5)]
    assert any(p.dots for p in puzzles) and any(p.gaps for p in puzzles)
    for p in puzzles:
        full = enumerate_solutions(p, cap=None).solutions
        assert enumerate_solutions(p, cap=None, within_paths=full).solutions == full
        for drop in range(min(3, len(full))):
            kept = full[:drop] + full[drop + 1:]
            steps = {frozenset(s) for path in kept for s in pairwise(path)}
            expected = [path for path in full if all(frozenset(s) in steps for s in pairwise(path))]
            assert enumerate_solutions(p, cap=None, within_paths=kept).solutions == expected
        assert enumerate_solutions(p, cap=None, within_paths=[]).solutions == []
