"""What the Latin-square puzzles share (Solo, Towers, Keen, Unequal; grid_puzzles.md §5, §8)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...core.instance import Instance
from ...solvers.sat import Formula
from .base import Cell, Check, GridTask
from .geometry import matching


class LatinGridTask(GridTask):
    """An n x n answer of 1..n with every value once per row and column: ``state["n"]``, givens as
    non-zero ``state["grid"]`` cells, one-hot variables from :func:`latin_formula`."""

    empty = 0
    blind_latin = True

    def cell_values(self, instance: Instance) -> tuple:
        return tuple(range(1, instance.data["state"]["n"] + 1))

    def givens(self, instance: Instance) -> dict[Cell, Any]:
        grid = instance.data["state"]["grid"]
        return {(r, c): v for r, row in enumerate(grid) for c, v in enumerate(row) if v}

    def givens_checks(self, instance: Instance, grid: list[list], rule: str) -> list[Check]:
        return [Check(rule, [(r, c)], grid[r][c] == v) for (r, c), v in sorted(self.givens(instance).items())]

    @staticmethod
    def unit_check(rule: str, grid: list[list], cells: list[Cell], n: int) -> Check:
        """``cells`` hold 1..n once each; the cells of repeated values are reported."""
        vals = [grid[r][c] for r, c in cells]
        dup = [cells[i] for i, v in enumerate(vals) if vals.count(v) > 1]
        return Check(rule, dup, sorted(vals) == list(range(1, n + 1)))

    @staticmethod
    def given_clues(x: np.ndarray, grid: list[list], rule: str) -> dict:
        """Clue assumptions for the givens: ``(r, c) -> (rule, [x[r, c, v]])``."""
        return {(r, c): (rule, (int(x[r, c, v - 1]),)) for r, row in enumerate(grid) for c, v in enumerate(row) if v}

    @staticmethod
    def decoder(x: np.ndarray):
        """Reads the grid from the values of the one-hot variables ``x[r, c, v - 1]``."""
        def decode(value: np.ndarray) -> list[list]:
            return (np.argmax(value[x] > 0, axis=2) + 1).tolist()

        return decode


def latin_formula(f: Formula, n: int, box_w: int | None = None, box_h: int | None = None,
                  rules: tuple[str, str, str] | None = None) -> np.ndarray:
    """One-hot variables ``x[r, c, v - 1]`` of an n x n Latin square, optionally with boxes.

    Each cell holds exactly one value; each row and column (and each box_w x box_h box) holds
    every value exactly once. ``rules`` tags the row, column and box constraints with rule codes
    (for near misses); "once" is stated as exactly-one per (unit, value).
    """
    x = np.arange(1, n * n * n + 1, dtype=np.int32).reshape(n, n, n) + f.n_vars
    for v in x.ravel():
        f.var(("x", int(v)))
    row_rule, col_rule, box_rule = rules or (None, None, None)
    for r in range(n):
        for c in range(n):
            f.exactly_one(x[r, c].tolist())
    for v in range(n):
        for i in range(n):
            f.exactly_one(x[i, :, v].tolist(), rule=row_rule)
            f.exactly_one(x[:, i, v].tolist(), rule=col_rule)
        if box_w and box_h:
            for br in range(0, n, box_h):
                for bc in range(0, n, box_w):
                    f.exactly_one(x[br:br + box_h, bc:bc + box_w, v].ravel().tolist(), rule=box_rule)
    return x


def random_latin(rng: np.random.Generator, n: int, box_w: int | None = None, box_h: int | None = None) -> list[list[int]]:
    """A random Latin square of 1..n (§8 samplers), with Sudoku boxes if given.

    Without boxes, as Tatham's latin.c: row by row, a random perfect matching of columns to the
    symbols each column still lacks (Hall's theorem: a Latin rectangle always extends). With boxes,
    randomised backtracking, most constrained cell first, restarted if it wanders too long.
    """
    if not (box_w and box_h):
        free = [set(range(1, n + 1)) for _ in range(n)]
        grid = []
        for _ in range(n):
            order = [int(v) + 1 for v in rng.permutation(n)]
            match = matching(range(n), lambda c, order=order: [v for v in order if v in free[c]])
            row = [0] * n
            for c, v in match.items():
                row[c] = v
                free[c].discard(v)
            grid.append(row)
        return grid
    while True:
        grid = _fill_boxes(rng, n, box_w, box_h)
        if grid is not None:
            return grid


def _fill_boxes(rng: np.random.Generator, n: int, bw: int, bh: int, budget: int = 20_000) -> list[list[int]] | None:
    full = (1 << n) - 1
    rows, cols, boxes = [0] * n, [0] * n, [0] * n
    grid = [[0] * n for _ in range(n)]
    keys = rng.random((n * n, n))
    box = [[(r // bh) * (n // bw) + c // bw for c in range(n)] for r in range(n)]
    steps = [0]

    def solve(left: int) -> bool:
        if left == 0:
            return True
        steps[0] += 1
        if steps[0] > budget:
            return False
        best, best_free = None, n + 1
        for r in range(n):
            for c in range(n):
                if not grid[r][c]:
                    avail = full & ~(rows[r] | cols[c] | boxes[box[r][c]])
                    k = (avail).bit_count()
                    if k < best_free:
                        best, best_free = (r, c, avail), k
                        if k <= 1:
                            break
            if best_free <= 1:
                break
        r, c, avail = best
        for v in sorted((v for v in range(n) if avail >> v & 1), key=lambda v: keys[r * n + c, v]):
            bit = 1 << v
            grid[r][c] = v + 1
            rows[r] |= bit
            cols[c] |= bit
            boxes[box[r][c]] |= bit
            if solve(left - 1):
                return True
            rows[r] &= ~bit
            cols[c] &= ~bit
            boxes[box[r][c]] &= ~bit
            grid[r][c] = 0
        return False

    return grid if solve(n * n) else None
