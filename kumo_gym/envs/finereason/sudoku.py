"""Sudoku as a FineReason puzzle tree (docs/specs/finereason.md §2, row "Sudoku 9x9").

State: a 9x9 list of ints, 0 = empty. Tree edge: fill the first empty cell in row-major order with
1..9 ascending, skipping values that clash in the row, column or box. Label oracle: a bitmask
depth-first completion search (``kumo_gym.envs.finereason.search``), exact for any grid, not only
for puzzles with a unique solution. Generator: a random full grid (a shuffled base pattern)
from which cells are removed in random order while the solution stays unique.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...core.errors import ConfigError, check_int
from .search import sudoku_count_solutions
from .text import format_value, state_int
from .tree import SOLVABLE, MoveCheck, PuzzleRules, every_rule

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
    presets: ClassVar[dict] = {"easy": {"empty_cells": 40}, "normal": {"empty_cells": 47}, "hard": {"empty_cells": 54}}

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
        """Exact feasible depths (docs/specs/finereason.md §4): the solvable path of a unique puzzle is a single line.

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

    def check_forward(self, data, parent, candidate, enabled=every_rule, allow_noop=True):
        diffs = [(r, c) for r in range(9) for c in range(9) if parent[r][c] != candidate[r][c]]
        if not diffs:
            return MoveCheck("changes_state", "no_change") if enabled("changes_state") else MoveCheck(child=candidate)
        if len(diffs) > 1 and enabled("single_move"):
            return MoveCheck("single_move", "multiple_changes")
        for r, c in diffs:
            v = candidate[r][c]
            if parent[r][c] != 0 and enabled("keeps_filled"):
                return MoveCheck("keeps_filled", "changed_filled_cell")
            if v not in DIGITS:
                if enabled("allowed_values"):
                    return MoveCheck("allowed_values", "value_out_of_range")
                continue
            if clashes(candidate, r, c, v) and enabled("no_conflict"):
                return MoveCheck("no_conflict", "rule_clash")
        return MoveCheck(child=candidate)

    def illegal_moves(self, data, state, rng, allow_noop=True):
        empty = [(r, c) for r in range(9) for c in range(9) if state[r][c] == 0]
        filled = [(r, c) for r in range(9) for c in range(9) if state[r][c] != 0]
        out = [("changes_state", [list(row) for row in state])]

        def put(cells_values):
            g = [list(row) for row in state]
            for (r, c), v in cells_values:
                g[r][c] = v
            return g

        ends = [empty[0], empty[-1], empty[int(rng.integers(len(empty)))]] if empty else []
        for r, c in dict.fromkeys(ends):
            out.append(("allowed_values", put([((r, c), 10 if (r + c) % 2 else -1)])))
            bad = next((v for v in DIGITS if clashes(state, r, c, v)), None)
            if bad is not None:
                out.append(("no_conflict", put([((r, c), bad)])))
        # two empty cells, each with a digit that clashes with nothing (the other cell included)
        for a, b in ((0, -1), (0, 1), (-2, -1)):
            if len(empty) < 2:
                break
            (r1, c1), (r2, c2) = empty[a], empty[b]
            v1 = next((v for v in DIGITS if not clashes(state, r1, c1, v)), None)
            if v1 is None:
                continue
            g = put([((r1, c1), v1)])
            v2 = next((v for v in DIGITS if not clashes(g, r2, c2, v)), None)
            if v2 is not None:
                out.append(("single_move", put([((r1, c1), v1), ((r2, c2), v2)])))
        # a filled cell changed to another digit that clashes with nothing
        for r, c in [filled[0], filled[-1]] + [filled[int(i)] for i in rng.permutation(len(filled))[:20]]:
            v = next((v for v in DIGITS if v != state[r][c] and not clashes(state, r, c, v)), None)
            if v is not None:
                out.append(("keeps_filled", put([((r, c), v)])))
                break
        return out

    def normalize(self, data, raw):
        if not (isinstance(raw, list) and len(raw) == 9
                and all(isinstance(row, list) and len(row) == 9 for row in raw)):
            raise ValueError("a Sudoku state is a list of 9 rows of 9 integers")
        return [[state_int(v, "Sudoku cell") for v in row] for row in raw]

    def state_problem(self, data, state):
        for r, row in enumerate(state):
            for c, v in enumerate(row):
                if not 0 <= v <= 9:
                    return f"holds {v} at row {r}, column {c}: a Sudoku cell is 0 (empty) or 1-9"
                given = data["initial"][r][c]
                if given and v != given:
                    return f"holds {v} at row {r}, column {c}, where the puzzle gives {given}"
        return None

    def format_state(self, state):
        return "[" + ",\n ".join(format_value(row) for row in state) + "]"

    def validate_data(self, data):
        grid = data.get("initial") if isinstance(data, dict) else None
        if not (isinstance(grid, list) and len(grid) == 9 and all(
                isinstance(row, list) and len(row) == 9 and all(
                    isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 9 for v in row) for row in grid)):
            raise ConfigError("puzzle_data.initial must be 9 rows of 9 integers 0-9 (0 = empty)")

    def generate(self, rng, params):
        target = check_int("empty_cells", params.get("empty_cells", 47), 4, 58)
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

    move_rule = ("A forward move writes one digit (1-9) into exactly one empty cell (a 0) so that the digit "
                 "does not already appear in that cell's row, column or 3x3 box. Nothing else changes.")

    backward_rule = "A backward move empties the cell filled last, returning to the previous state."

    def from_reference(self, inputs: dict, outputs: dict) -> dict:
        """Puzzle data from a reference ``sudoku_questions`` row (its stored ``final`` is not used)."""
        grid = inputs.get("initial")
        return {"initial": self.normalize({}, grid)}


RULES = SudokuRules()
#: a reference row read as puzzle data (:meth:`~.tree.PuzzleRules.load_question`)
load_question = RULES.load_question
