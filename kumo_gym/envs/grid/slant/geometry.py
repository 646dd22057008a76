"""Slant's geometry: the diagonals as edges between grid points, loops among them, random
loop-free fillings and the acyclicity cuts of the SAT encoding (docs/specs/grid_puzzles.md §8)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

Cell = tuple[int, int]


def diagonal_ends(r: int, c: int, back: bool, W: int) -> tuple[int, int]:
    """The two grid points (as ``row * (W + 1) + col``) a cell's diagonal joins: ``\\`` the top-left
    and bottom-right corners, ``/`` the top-right and bottom-left."""
    W1 = W + 1
    return (r * W1 + c, (r + 1) * W1 + c + 1) if back else (r * W1 + c + 1, (r + 1) * W1 + c)


def touching(r: int, c: int, H: int, W: int) -> list[tuple[Cell, bool]]:
    """The cells around grid point (r, c), each with the diagonal that touches the point
    (True: ``\\``, False: ``/``)."""
    out = [((r - 1, c - 1), True), ((r - 1, c), False), ((r, c - 1), False), ((r, c), True)]
    return [(cell, back) for cell, back in out if 0 <= cell[0] < H and 0 <= cell[1] < W]


def loops(back: np.ndarray, limit: int = 8) -> list[list[Cell]]:
    """Up to ``limit`` loops of the diagonals (``back[r, c]``: the cell holds ``\\``), each as the
    cells of its diagonals: a search tree over the grid points, and for every diagonal that
    joins two points the tree already reaches, the tree path between them."""
    H, W = back.shape
    n = (H + 1) * (W + 1)
    adj: list[list[tuple[int, Cell]]] = [[] for _ in range(n)]
    for r in range(H):
        for c in range(W):
            a, b = diagonal_ends(r, c, bool(back[r, c]), W)
            adj[a].append((b, (r, c)))
            adj[b].append((a, (r, c)))
    depth = [-1] * n
    up: list[tuple[int, Cell] | None] = [None] * n
    found: list[list[Cell]] = []
    seen: set[Cell] = set()
    for root in range(n):
        if depth[root] >= 0:
            continue
        depth[root], todo = 0, [root]
        while todo:
            p = todo.pop()
            via = up[p][1] if up[p] is not None else None
            for q, cell in adj[p]:
                if cell == via:
                    continue
                if depth[q] < 0:
                    depth[q], up[q] = depth[p] + 1, (p, cell)
                    todo.append(q)
                elif cell not in seen:
                    seen.add(cell)
                    found.append(_tree_path(p, q, depth, up) + [cell])
                    if len(found) >= limit:
                        return found
    return found


def _tree_path(p: int, q: int, depth: list[int], up: list) -> list[Cell]:
    """The cells of the diagonals on the search tree's path between points p and q."""
    cells = []
    while p != q:
        if depth[p] < depth[q]:
            p, q = q, p
        p, cell = up[p]
        cells.append(cell)
    return cells


def random_filling(rng: np.random.Generator, H: int, W: int) -> np.ndarray:
    """A random loop-free filling (True: ``\\``), Tatham's way: cells in a random order, each a
    random diagonal unless that one would close a loop (then the other, which never can: the two
    diagonals of a cell join points of different chessboard colours)."""
    parent = list(range((H + 1) * (W + 1)))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    back = np.zeros((H, W), bool)
    coins = rng.random(H * W) < 0.5
    for k, i in enumerate(rng.permutation(H * W).tolist()):
        r, c = divmod(i, W)
        pick = bool(coins[k])
        a, b = diagonal_ends(r, c, pick, W)
        if root(a) == root(b):
            pick = not pick
            a, b = diagonal_ends(r, c, pick, W)
        back[r, c] = pick
        parent[root(a)] = root(b)
    return back


def diamond_clauses(x: np.ndarray) -> list[list[int]]:
    """The smallest loops, around one grid point: ``/`` above-left, ``\\`` above-right, ``\\``
    below-left, ``/`` below-right never all hold (``x[r, c]``: the cell holds ``\\``)."""
    H, W = x.shape
    return [[int(x[r, c]), -int(x[r, c + 1]), -int(x[r + 1, c]), int(x[r + 1, c + 1])]
            for r in range(H - 1) for c in range(W - 1)]


def loop_cuts(x: np.ndarray) -> Callable[[np.ndarray], list[list[int]]]:
    """The ``cuts`` callback of "the diagonals form no loop": for every loop of a model, the
    clause "not every diagonal of this loop" (``x[r, c]``: the variable of ``\\`` in the cell)."""
    def cuts(value: np.ndarray) -> list[list[int]]:
        back = value[x] > 0
        return [[-int(x[cell]) if back[cell] else int(x[cell]) for cell in loop] for loop in loops(back)]

    return cuts
