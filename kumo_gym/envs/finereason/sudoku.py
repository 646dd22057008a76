"""Sudoku as a FineReason puzzle tree (spec finereason.md §2, row "Sudoku 9x9").

State: a 9x9 list of ints, 0 = empty. Tree edge: fill the first empty cell in row-major order with
1..9 ascending, skipping values that clash in the row, column or box. Label oracle: a bitmask
depth-first completion search (``kumo_gym.solvers.finereason``), exact for any grid, not only
for puzzles with a unique solution. Generator: a random full grid (a shuffled base pattern)
from which cells are removed in random order while the solution stays unique.
"""
from __future__ import annotations

import numpy as np

from ...core.errors import ConfigError, check_int
from ...solvers.finereason import sudoku_count_solutions
from .text import format_value
from .tree import SOLVABLE, PuzzleRules

DIGITS = range(1, 10)


def clashes(grid: list[list[int]], r: int, c: int, v: int) -> bool:
    """Whether ``v`` already appears in the row, column or box of cell (r, c) (the cell excluded)."""
    for j in range(9):
        if j != c and grid[r][j] == v:
            return True
    for i in range(9):
        if i != r and grid[i][c] == v:
            return True
    br, bc = 3 * (r // 3), 3 * (c // 3)
    for i in range(br, br + 3):
        for j in range(bc, bc + 3):
            if (i, j) != (r, c) and grid[i][j] == v:
                return True
    return False


def first_empty(grid) -> tuple[int, int] | None:
    for r in range(9):
        for c in range(9):
            if grid[r][c] == 0:
                return r, c
    return None


def random_full_grid(rng: np.random.Generator) -> list[list[int]]:
    """A uniformly shuffled relabelling of the base pattern (digits, rows in bands, bands, ...)."""
    base = [[(3 * (r % 3) + r // 3 + c) % 9 + 1 for c in range(9)] for r in range(9)]
    digits = rng.permutation(9) + 1
    rows = [3 * b + i for b in rng.permutation(3) for i in rng.permutation(3)]
    cols = [3 * b + i for b in rng.permutation(3) for i in rng.permutation(3)]
    grid = [[int(digits[base[r][c] - 1]) for c in cols] for r in rows]
    if rng.random() < 0.5:
        grid = [list(col) for col in zip(*grid)]
    return grid


class SudokuRules(PuzzleRules):
    name = "sudoku"
    min_depth = 2
    unsolvable_mode = "first_wrong_step"

    def root(self, data):
        return [list(row) for row in data["initial"]]

    def children(self, data, state):
        cell = first_empty(state)
        if cell is None:
            return []
        r, c = cell
        out = []
        for v in DIGITS:
            if not clashes(state, r, c, v):
                child = [list(row) for row in state]
                child[r][c] = v
                out.append((None, child))
        return out

    def is_complete(self, data, state):
        return first_empty(state) is None

    def is_solution(self, data, state):
        return self.is_complete(data, state) and not any(
            clashes(state, r, c, state[r][c]) for r in range(9) for c in range(9))

    def solvable(self, data, state):
        return sudoku_count_solutions(state, 1) > 0

    def max_depth(self, data):
        empties = sum(v == 0 for row in data["initial"] for v in row)
        return empties - 1

    def label_depths(self, data, label, unsolvable_mode, require_explored_child=True):
        """Exact feasible depths (§4): the solvable path of a unique puzzle is a single line.

        Solvable: path nodes with an unsolvable child. Unsolvable (``first_wrong_step``): depths
        whose path parent has an unsolvable child (with a child of its own when required).
        """
        if unsolvable_mode != "first_wrong_step" and label != SOLVABLE:
            return None
        try:
            path = self.solution_path(data)
        except ConfigError:
            return []
        if sudoku_count_solutions(data["initial"], 2) != 1:
            return None
        out = []
        for d in range(self.min_depth, len(path) - 1):
            if label == SOLVABLE:
                ok = len(self.children(data, path[d])) > 1
            else:
                ok = any(not self.solvable(data, c) and (not require_explored_child or self.children(data, c))
                         for _, c in self.children(data, path[d - 1]))
            if ok:
                out.append(d)
        return out

    def forward_error(self, data, parent, candidate):
        diffs = [(r, c) for r in range(9) for c in range(9) if parent[r][c] != candidate[r][c]]
        if not diffs:
            return "no_change", None
        if len(diffs) > 1:
            return "multiple_changes", None
        r, c = diffs[0]
        v = candidate[r][c]
        if parent[r][c] != 0:
            return "changed_filled_cell", None
        if v not in DIGITS:
            return "value_out_of_range", None
        if clashes(parent, r, c, v):
            return "rule_clash", None
        return None, candidate

    def normalize(self, data, raw):
        if not (isinstance(raw, list) and len(raw) == 9
                and all(isinstance(row, list) and len(row) == 9 for row in raw)):
            raise ValueError("a Sudoku state is a list of 9 rows of 9 integers")
        out = []
        for row in raw:
            vals = []
            for v in row:
                if isinstance(v, float) and v.is_integer():
                    v = int(v)
                if not isinstance(v, int) or isinstance(v, bool):
                    raise TypeError(f"Sudoku cell {v!r} is not an integer")
                vals.append(v)
            out.append(vals)
        return out

    def format_state(self, state):
        return "[" + ",\n ".join(format_value(row) for row in state) + "]"

    def generate(self, rng, params):
        target = check_int("empty_cells", params.get("empty_cells", 47), 4, 60)
        best = None
        for _ in range(8):
            solution = random_full_grid(rng)
            grid = [list(row) for row in solution]
            empties = 0
            for idx in rng.permutation(81):
                if empties >= target:
                    break
                r, c = divmod(int(idx), 9)
                keep = grid[r][c]
                grid[r][c] = 0
                if sudoku_count_solutions(grid, 2) == 1:
                    empties += 1
                else:
                    grid[r][c] = keep
            if best is None or empties > best[0]:
                best = (empties, grid)
            if empties >= target:
                break
        if best[0] < target:
            raise ConfigError(f"empty_cells={target} could not be reached with a unique solution; "
                              f"use at most about 55")
        return {"initial": best[1]}

    def rules_text(self, data):
        return ("Sudoku: fill the 9x9 grid so that every row, every column and every 3x3 box holds each "
                "digit from 1 to 9 exactly once. In the grids below, 0 marks an empty cell.")

    def move_text(self):
        return ("A forward move writes one digit (1-9) into exactly one empty cell (a 0) so that the digit "
                "does not already appear in that cell's row, column or 3x3 box. Nothing else changes.")

    def backward_text(self):
        return "A backward move empties the cell filled last, returning to the previous state."


RULES = SudokuRules()


def load_question(record: dict) -> dict:
    """Puzzle data from a reference ``sudoku_questions`` row (its stored ``final`` is not used)."""
    inputs = record.get("inputs", record)
    grid = inputs.get("initial")
    return {"initial": RULES.normalize({}, grid)}
