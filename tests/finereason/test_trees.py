"""Tree properties on small puzzles, checked with hypothesis (docs/specs/finereason.md §1, §2).

A solvable state is a solution or has a solvable child; an unsolvable state has no solvable
child. The lazy walk visits the same nodes as the full build. The numba kernels agree with the
pure-Python reference of the same algorithm.
"""
from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kumo_gym.envs.finereason import coloring, game24, logicgrid, sudoku
from kumo_gym.envs.finereason.search import (
    coloring_extends,
    coloring_extends_py,
    sudoku_count_solutions,
    sudoku_count_solutions_py,
)
from kumo_gym.envs.finereason.tree import SOLVABLE, UNSOLVABLE, label_tree, sample_item, walk

SETTINGS = settings(max_examples=25, deadline=None)


def random_graph(rng, n, p=0.5):
    graph = [[] for _ in range(n)]
    for v in range(n):
        for u in range(v + 1, n):
            if rng.random() < p:
                graph[v].append(u)
                graph[u].append(v)
    return graph


def check_tree(rules, data, max_nodes=20_000):
    stats, nodes = label_tree(rules, data, max_nodes=max_nodes)
    for _depth, state, label in nodes:
        assert rules.solvable(data, state) == label
        kids = rules.children(data, state)
        if label:
            assert rules.is_solution(data, state) or any(rules.solvable(data, c) for _, c in kids)
        else:
            assert not any(rules.solvable(data, c) for _, c in kids)
            assert not rules.is_solution(data, state)
    lazy = [(d, json.dumps(s)) for d, s in walk(rules, data)]
    assert lazy == [(d, json.dumps(s)) for d, s, _ in nodes]
    return stats


@SETTINGS
@given(nums=st.lists(st.integers(1, 13), min_size=4, max_size=4))
def test_game24_tree_properties(nums):
    check_tree(game24.RULES, {"numbers": [str(x) for x in sorted(nums)]})


@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(4, 7), k=st.integers(2, 4))
def test_coloring_tree_properties(seed, n, k):
    rng = np.random.default_rng(seed)
    graph = random_graph(rng, n)
    check_tree(coloring.RULES, {"graph": graph, "k": k})


def holed_sudoku(seed: int, holes: int):
    """``(rng, grid)``: a random full Sudoku grid from ``seed`` with ``holes`` cells emptied."""
    rng = np.random.default_rng(seed)
    grid = sudoku.random_full_grid(rng)
    for idx in rng.choice(81, holes, replace=False):
        grid[idx // 9][idx % 9] = 0
    return rng, grid


@SETTINGS
@given(seed=st.integers(0, 10_000), holes=st.integers(3, 12))
def test_sudoku_tree_properties(seed, holes):
    rng, grid = holed_sudoku(seed, holes)
    # a wrong given makes some puzzles unsolvable at the root: the properties still hold
    if rng.random() < 0.3:
        r, c = divmod(int(rng.integers(81)), 9)
        if grid[r][c] == 0:
            grid[r][c] = int(rng.integers(1, 10))
            if sudoku.clashes(grid, r, c, grid[r][c]):
                grid[r][c] = 0
    check_tree(sudoku.RULES, {"initial": grid})


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_logicgrid_tree_properties(seed):
    data = logicgrid.generate_puzzle(np.random.default_rng(seed), 3, 3)
    stats = check_tree(logicgrid.RULES, data)
    assert stats.solvable >= len(data["clues"]) + 1  # a solvable path reaches the last clue


@SETTINGS
@given(seed=st.integers(0, 10_000), holes=st.integers(20, 60))
def test_sudoku_kernel_matches_python_reference(seed, holes):
    rng, grid = holed_sudoku(seed, holes)
    r, c = divmod(int(rng.integers(81)), 9)
    if grid[r][c] == 0 and rng.random() < 0.5:
        grid[r][c] = int(rng.integers(1, 10))
    for limit in (1, 2, 5):
        assert sudoku_count_solutions(grid, limit) == sudoku_count_solutions_py(grid, limit)


@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(3, 12), k=st.integers(1, 5))
def test_coloring_kernel_matches_python_reference_and_brute_force(seed, n, k):
    rng = np.random.default_rng(seed)
    graph = random_graph(rng, n)
    colours = [int(rng.integers(0, k + 1)) if rng.random() < 0.3 else 0 for _ in range(n)]
    fast = coloring_extends(graph, colours, k)
    assert fast == coloring_extends_py(graph, colours, k)
    if n <= 8:
        import itertools

        free = [v for v in range(n) if colours[v] == 0]
        brute = False
        for combo in itertools.product(range(1, k + 1), repeat=len(free)):
            full = list(colours)
            for v, c in zip(free, combo):
                full[v] = c
            if all(full[v] != full[u] for v in range(n) for u in graph[v]):
                brute = True
                break
        assert fast == brute


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), label=st.sampled_from([SOLVABLE, UNSOLVABLE]))
def test_sampled_items_have_their_label_and_explored_child(seed, label):
    rng = np.random.default_rng(seed)
    data = coloring.RULES.generate(rng, {"n_vertices": 8, "slack": 0})
    item = sample_item(coloring.RULES, data, rng, label)
    if item is None:
        return
    assert coloring.RULES.solvable(data, item["state"]) == (label == SOLVABLE)
    assert item["explored"] is not None and not coloring.RULES.solvable(data, item["explored"])
    assert len(item["path"]) == item["depth"] + 1
    for a, b in zip(item["path"], item["path"][1:]):
        assert b in [c for _, c in coloring.RULES.children(data, a)]


def test_sampling_is_deterministic_and_balanced():
    from kumo_gym.envs.finereason.export import sample_items

    a = sample_items("game24", 40, seed=3)
    b = sample_items("game24", 40, seed=3)
    assert [x["current"] for x in a] == [x["current"] for x in b]
    labels = [x["label"] for x in a]
    assert labels.count(SOLVABLE) == labels.count(UNSOLVABLE) == 20
    assert {x["depth"] for x in a} == {1, 2}
