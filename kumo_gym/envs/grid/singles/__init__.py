"""Singles (docs/specs/grid_puzzles.md §5 "Singles"; Tatham's ``singles``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ....core.instance import Instance
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets, tatham_level
from ..geometry import components, connected_cuts, flat_neighbours, still_connected
from ..latin import random_latin
from ..render import Sketch
from .claims import RULES as CLAIM_RULES

BLACK, WHITE = -1, 0  # WHITE is the move value "keep this cell's number"


@functools.cache
def line_pairs(H: int, W: int) -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
    """Every pair of cells sharing a row (row by row), then a column (column by column); built once
    per size (generation and verification read it on every call)."""
    rows = [((r, a), (r, b)) for r in range(H) for a in range(W) for b in range(a + 1, W)]
    return tuple(rows + [((a, c), (b, c)) for c in range(W) for a in range(H) for b in range(a + 1, H)])


def equal_pairs(nums: list[list[int]]) -> list:
    """The pairs of :func:`line_pairs` whose cells hold the same number (one must be black)."""
    W, flat = len(nums[0]), [v for row in nums for v in row]
    return [(a, b) for a, b in line_pairs(len(nums), W) if flat[a[0] * W + a[1]] == flat[b[0] * W + b[1]]]


@dataclasses.dataclass(frozen=True)
class SinglesParams(GridParams.with_size(5, 2, 20)):
    tatham_difficulty: str = tatham_level("e", {"e": "easy", "k": "tricky"})


class SinglesTask(GridTask):
    """Singles (Hitori): black out cells so that no number repeats.

    ## Description
    Every cell holds a number. Shade some cells black so that no number appears twice among the
    white cells of any row or column, no two black cells share an edge, and the white cells form
    one orthogonally connected area. docs/specs/grid_puzzles.md §5, Tatham's *Singles*.

    ## Answer
    A JSON array of H rows of W integers: ``-1`` for a black cell, the cell's own number for a
    white cell. Any grid that keeps the rules scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random Latin rectangle of 1..max(W, H), a random
    maximal set of black cells (never side by side, whites kept connected), each black cell renumbered to repeat
    a white number of its row or column; redrawn until SAT, with lazy connectivity cuts, proves it unique.

    ## Interactive mode
    ``{"r": row, "c": col, "v": -1}`` shades a cell, ``0`` (or ``null``) makes it white again.
    """

    Params = SinglesParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H tatham_difficulty", (2, 2, "e"), (4, 4, "e"), (5, 5, "e"), (12, 12, "e"))
    rule_codes = """
        R1 no two black cells are orthogonally adjacent
        R2 the white cells form one orthogonally connected area
        R3 no number repeats among the white cells of a row or a column
        R4 a white cell shows the number printed in it
    """
    rules_prompt = """
        - Every cell of the state's grid holds a number. Colour each cell black or white.
        - Within any single row, and within any single column, a number may appear in at most one white cell; black
          cells do not count.
        - Two black cells may never share a side (touching at a corner is fine).
        - All white cells must form one connected area, moving between white cells that share a side.
    """
    answer_prompt = "give every cell of the grid: -1 for a black cell, or the cell's own number for a white cell."
    symbols = frozenset(range(-1, 63))
    empty = WHITE

    def numbers(self, instance: Instance) -> list[list[int]]:
        return instance.data["state"]["grid"]

    def cell_values(self, instance: Instance) -> tuple:
        return (BLACK,) + tuple(range(1, max(self.dims(instance)) + 1))

    def initial_grid(self, instance: Instance) -> list[list]:
        return [list(row) for row in self.numbers(instance)]

    def move_values(self, instance: Instance) -> tuple:
        return (WHITE, BLACK)

    def apply(self, instance: Instance, state, move: tuple) -> tuple:
        r, c, v = move
        return super().apply(instance, state, (r, c, self.numbers(instance)[r][c] if v == WHITE else v))

    def blind_grids(self, instance: Instance) -> dict[str, list[list]]:
        return {**super().blind_grids(instance), "numbers as printed": self.initial_grid(instance)}

    def luck_floor(self, instance: Instance) -> float:
        """The shared floor, or what the printed numbers (every cell white) get right if more."""
        sol = np.asarray(self.solve(instance))
        return max(super().luck_floor(instance), float((np.asarray(self.numbers(instance)) == sol).mean()))

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W = self.dims(instance)
        nums = self.numbers(instance)
        black = np.array([[v == BLACK for v in row] for row in grid])
        checks = [Check("R1", [a, b], False) for a, b in line_pairs(H, W)
                  if abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 and black[a] and black[b]] or [Check("R1", [], True)]
        comps = components(~black)
        stray = sorted(cell for comp in sorted(comps, key=len)[:-1] for cell in comp)
        checks.append(Check("R2", stray, not stray))
        for line in [[(r, c) for c in range(W)] for r in range(H)] + [[(r, c) for r in range(H)] for c in range(W)]:
            seen: dict = {}
            for r, c in line:
                if not black[r, c]:
                    seen.setdefault(nums[r][c], []).append((r, c))
            dup = sorted(cell for cells in seen.values() if len(cells) > 1 for cell in cells)
            checks.append(Check("R3", dup, not dup))
        checks += [Check("R4", [(r, c)], grid[r][c] in (BLACK, nums[r][c])) for r in range(H) for c in range(W)]
        return checks

    def encode(self, state: dict) -> Encoding:
        """One formula per grid size: "one of a pair is black" is switched on per pair of equal
        numbers by an assumption, so the connectivity cuts serve every puzzle of that size."""
        nums = state["grid"]
        H, W = len(nums), len(nums[0])
        enc = self.layout((H, W), lambda: self._rules(H, W))
        x, same = enc.extra["black"], enc.extra["same"]
        clues = {p: ("R3", (same[p],)) for p in equal_pairs(nums)}
        arr = np.asarray(nums)

        def decode(value: np.ndarray) -> list[list]:
            return np.where(value[x] > 0, BLACK, arr).tolist()

        return enc.with_clues(clues, decode=decode)

    @staticmethod
    def _rules(H: int, W: int) -> Encoding:
        f = Formula()
        x = f.grid("black", H, W)
        same = {}
        for a, b in line_pairs(H, W):
            if abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1:
                f.add([-int(x[a]), -int(x[b])], rule="R1")
        for a, b in line_pairs(H, W):
            same[a, b] = f.var(("same", a, b))
            f.add([int(x[a]), int(x[b]), -same[a, b]], rule="R3")
        return Encoding(f, x.ravel(), None, cuts=connected_cuts(-x.astype(np.int64)), cut_rule="R2",
                        extra={"black": x, "same": same})

    def grade(self, instance: Instance) -> int:
        """docs/specs/grid_puzzles.md §8 grade with connectivity in view (:meth:`Engine.cut_grade`): plain propagation
        of the clauses never sees that white cells must stay connected."""
        enc = self.encoding(instance)
        return enc.engine.cut_grade(enc.assumptions())

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """Latin numbers, a maximal black set, each black renumbered to clash with a white of its
        row or column; the first drawing SAT proves unique (cuts in place) is kept."""
        W, H = params["W"], params["H"]
        for _attempt in range(5000):
            nums = [row[:W] for row in random_latin(rng, max(W, H))[:H]]
            near = flat_neighbours(H, W)
            dark = [False] * (W * H)
            for idx in rng.permutation(W * H).tolist():
                if any(dark[n] for n in near[idx]):
                    continue
                dark[idx] = True
                if not still_connected(dark, near, idx):
                    dark[idx] = False
            black = np.asarray(dark, bool).reshape(H, W)
            for i in [i for i in range(W * H) if dark[i]]:  # row-major, as the blacks' numbers change in turn
                r, c = divmod(i, W)
                seen = sorted({nums[a][b] for a, b in [(r, k) for k in range(W)] + [(k, c) for k in range(H)]
                               if not dark[a * W + b]})
                nums[r][c] = seen[int(rng.integers(len(seen)))]
            state = {"grid": [[int(v) for v in row] for row in nums]}
            enc = self.layout((H, W), lambda: self._rules(H, W))  # encode()'s assumptions, built directly
            truth = np.zeros(enc.formula.n_vars + 1, np.int8)
            truth[enc.answer] = np.where(black.ravel(), 1, -1)
            lits = [enc.extra["same"][p] for p in equal_pairs(state["grid"])]
            if enc.engine.unique(lits, truth, deduce=False):  # propagation never settles it
                return state, np.where(black, BLACK, np.asarray(nums)).tolist()
        raise RuntimeError(f"could not generate a unique {W}x{H} Singles puzzle")

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        nums = self.numbers(instance)
        return Sketch(len(grid), len(grid[0]), [["#" if v == BLACK else str(v) for v in row] for row in grid],
                      [["black" if v == BLACK else None for v in row] for row in grid],
                      labels=[[str(n) for n in row] for row in nums])

    def clue_count(self, instance: Instance) -> int:
        """The black cells of the solution (every cell holds a number; the blacks set the density)."""
        return sum(v == BLACK for row in self.solve(instance) for v in row)

    def clue_features(self, instance: Instance) -> np.ndarray:
        return np.asarray([v for row in self.numbers(instance) for v in row], np.float32)
