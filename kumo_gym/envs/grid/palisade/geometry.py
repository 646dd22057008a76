"""Palisade's geometry: random divisions into regions of n cells, the regions of a label grid,
border counts, and the connectivity cuts of the SAT model (docs/specs/grid_puzzles.md §8)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

Cell = tuple[int, int]
STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1))


def neighbours(r: int, c: int, H: int, W: int) -> list[Cell]:
    return [(r + dr, c + dc) for dr, dc in STEPS if 0 <= r + dr < H and 0 <= c + dc < W]


def border_count(grid: list[list], r: int, c: int) -> int:
    """How many sides of cell (r, c) lie on a region border: the grid's edge, or a neighbour
    with another label."""
    H, W = len(grid), len(grid[0])
    return sum(not (0 <= r + dr < H and 0 <= c + dc < W) or grid[r + dr][c + dc] != grid[r][c] for dr, dc in STEPS)


def components(grid: list[list]) -> dict:
    """Each label -> its 4-connected components (lists of cells), in row-major order of first cells."""
    H, W = len(grid), len(grid[0])
    seen = [[False] * W for _ in range(H)]
    out: dict = {}
    for r0 in range(H):
        for c0 in range(W):
            if seen[r0][c0]:
                continue
            v, comp, todo = grid[r0][c0], [], [(r0, c0)]
            seen[r0][c0] = True
            while todo:
                r, c = todo.pop()
                comp.append((r, c))
                for rr, cc in neighbours(r, c, H, W):
                    if not seen[rr][cc] and grid[rr][cc] == v:
                        seen[rr][cc] = True
                        todo.append((rr, cc))
            out.setdefault(v, []).append(sorted(comp))
    return out


def first_order(grid: list[list]) -> list[list]:
    """The labels renamed 0, 1, ... in the order their first cell comes in row-major order."""
    rename: dict = {}
    return [[rename.setdefault(v, len(rename)) for v in row] for row in grid]


def random_division(rng: np.random.Generator, H: int, W: int, n: int, tries: int = 40) -> list[list]:
    """A random division into connected regions of n cells: each region grown from the first free
    cell (row-major) by adding random free neighbours, drawn again (up to ``tries`` times) while it leaves
    a pocket of free cells whose size is not a multiple of n; the whole division restarts when a region
    cannot be placed. Labels number the regions in order. Compiled (``kernel.divide``), drawing from a
    Lehmer generator that ``rng`` seeds."""
    from . import kernel

    label = np.empty(H * W, np.int64)
    if not kernel.divide(H, W, n, tries, int(rng.integers(1, 2**31 - 1)), label, kernel.division_scratch(H, W)):
        raise RuntimeError(f"could not divide a {W}x{H} grid into regions of {n} cells")
    return label.reshape(H, W).tolist()


def connectivity_cuts(x: dict, H: int, W: int) -> Callable[[np.ndarray], list[list[int]]]:
    """The ``cuts`` callback of "every region is connected" on the root model (``x[cell][root]``:
    the cell lies in the region whose first cell is ``root``). A piece S of root r's cells cut off
    from r leaves S through its outer border B on every path to r, so "s not in r's region, or
    some cell of B is" (s a cell of S) holds in every solution."""
    def cuts(value: np.ndarray) -> list[list[int]]:
        root = [[next(rt for rt, v in x[(r, c)].items() if value[v] > 0) for c in range(W)] for r in range(H)]
        out = []
        for rt, comps in components(root).items():
            for comp in comps:
                if rt in comp:
                    continue
                inside = set(comp)
                border = sorted({nb for cell in comp for nb in neighbours(*cell, H, W) if nb not in inside})
                out.append([-x[comp[0]][rt]] + [x[b][rt] for b in border if rt in x[b]])
        return out

    return cuts


def capped_count(f, lits: list[int], cap: int, name) -> list[int]:
    """A totalizer over ``lits`` whose outputs stop at ``cap``: output k-1 is true iff at least k of
    ``lits`` are (the last one: at least ``cap``), defined both ways so that propagation runs from
    the literals to the count and back. Its size grows with ``len(lits) * cap``, not the square of
    the length as a full counter's does."""
    nodes = [[int(x)] for x in lits]
    made = 0

    def merge(a: list[int], b: list[int]) -> list[int]:
        nonlocal made
        p, q = len(a), len(b)
        m = min(p + q, cap)
        out = [f.var((name, made + i)) for i in range(m)]
        made += m
        for i in range(min(p, m) + 1):
            for j in range(min(q, m - i) + 1):
                if i + j:  # at least i in a and j in b: at least i + j
                    f.add(([-a[i - 1]] if i else []) + ([-b[j - 1]] if j else []) + [out[i + j - 1]])
                if i + j < m:  # at most i in a and j in b: at most i + j
                    f.add(([a[i]] if i < p else []) + ([b[j]] if j < q else []) + [-out[i + j]])
        return out

    while len(nodes) > 1:
        merged = [merge(nodes[i], nodes[i + 1]) for i in range(0, len(nodes) - 1, 2)]
        if len(nodes) % 2:
            merged.append(nodes[-1])
        nodes = merged
    return nodes[0] if nodes else []
