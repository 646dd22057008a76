"""What the Latin-square puzzles share (Solo, Towers, Keen, Unequal; grid_puzzles.md §5, §8)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...core.instance import Instance
from ...solvers.sat import Formula
from .base import Cell, Check, GridTask


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
    """A random (Sudoku-boxed) Latin square (§8): SAT with random phases and a random first row,
    then symbols, rows within bands and bands themselves shuffled (all keep the square valid)."""
    from ...solvers.engine import Engine

    f = Formula()
    x = latin_formula(f, n, box_w, box_h)
    first = [int(v) for v in rng.permutation(n)]
    assumptions = [int(x[0, c, first[c]]) for c in range(n)]
    flat = x.ravel()
    phases = np.where(rng.random(len(flat)) < 1.0 / n, flat, -flat).tolist()
    value = Engine(f, flat).sample(assumptions, phases)
    grid = np.argmax(value[x] > 0, axis=2) + 1
    bh, bw = (box_h, box_w) if box_w and box_h else (1, 1)
    rows = _band_order(rng, n, bh)
    cols = _band_order(rng, n, bw)
    sym = np.concatenate([[0], rng.permutation(n) + 1])
    return sym[grid[np.ix_(rows, cols)]].tolist()


def _band_order(rng: np.random.Generator, n: int, band: int) -> list[int]:
    bands = [int(b) for b in rng.permutation(n // band)]
    return [b * band + int(i) for b in bands for i in rng.permutation(band)]
