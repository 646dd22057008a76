"""Filling (docs/specs/grid_puzzles.md §5 "Filling"; Tatham's ``filling``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.instance import Instance
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, presets
from ..geometry import components, neighbours4
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .codec import largest
from .deduce import SMALL, partition, reduce_exactly, reduce_givens, shape_cuts, small_layout
from .geometry import sized_block_cuts

DIGITS = tuple(range(1, 10))
EMPTY = 0


def blocks(grid: list[list[int]]) -> list[list[tuple[int, int]]]:
    """The maximal 4-connected blocks of equal digits, in row-major order of their first cell."""
    arr = np.asarray(grid)
    return sorted((b for d in np.unique(arr) for b in components(arr == d)), key=lambda b: b[0])


@dataclasses.dataclass(frozen=True)
class FillingParams(GridParams.with_size(9, 2, 25)):
    """Filling's parameters are the size of its grid."""


class FillingTask(GridTask):
    """Filling (Fillomino): write digits so each block of equal digits is that big.

    ## Description
    Some cells show a digit 1-9. Write a digit in every empty cell so that every maximal group of
    orthogonally connected cells holding the same digit has exactly that many cells (a 3 lies in
    a block of three 3s, a 1 touches no other 1). Given digits stay. docs/specs/grid_puzzles.md §5, Tatham's
    *Filling*.

    ## Answer
    A JSON array of H rows of W integers 1-9, givens included. Any grid that keeps the rules
    scores 1, whatever blocks it draws.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8), as Tatham's: a random layout of blocks of at most max(W,
    H, 3) <= 9 cells (the largest digit Tatham's parser takes), no two of one size touching
    (:func:`.deduce.partition`); every cell's digit given, then whole blocks and then single digits
    blanked in a seeded order while our deduction (a numba kernel, :mod:`.kernel`: the cells an
    unfinished block cannot be completed without) still fills the grid, which proves the puzzle unique without
    search. Grids of at most 9 cells draw the layout from, and check each blanking against, the table of all
    their solutions instead.

    ## Interactive mode
    ``{"r": row, "c": col, "v": 4}`` writes a digit, ``0`` clears it. Givens are fixed.
    """

    Params = FillingParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H", (3, 3), (9, 7), (13, 9), (17, 13))
    rule_codes = """
        R1 every cell holds a digit 1-9 and given digits are kept
        R2 every maximal block of equal orthogonally connected digits has as many cells as its digit
    """
    rules_prompt = """
        - In the state's grid a digit 1 to 9 is given and 0 is an empty cell. Write a digit from 1 to 9 in every empty
          cell; given digits stay as they are.
        - Cells holding the same digit that share a side belong to the same block (and so on, through chains of such
          neighbours).
        - Every block must have exactly as many cells as the digit written in it: a 1 stands alone, two 2s form a
          block of two, and so on. Two different blocks with the same digit must not touch along a side.
    """
    answer_prompt = "give the digit (1 to 9) of every cell, givens included."
    symbols = frozenset(DIGITS)
    empty = EMPTY

    def givens(self, instance: Instance) -> dict:
        grid = instance.data["state"]["grid"]
        return {(r, c): v for r, row in enumerate(grid) for c, v in enumerate(row) if v}

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        checks = [Check("R1", [(r, c)], grid[r][c] == v) for (r, c), v in sorted(self.givens(instance).items())]
        return checks + [Check("R2", b, len(b) == grid[b[0][0]][b[0][1]]) for b in blocks(grid)]

    def encode(self, state: dict) -> Encoding:
        """One formula per grid size; the givens are assumptions and block sizes lazy cuts."""
        grid = state["grid"]
        H, W = len(grid), len(grid[0])
        enc = self.layout((H, W), lambda: self._rules(H, W))
        x = enc.extra["x"]
        return enc.with_clues({(r, c): ("R1", (int(x[r, c, v - 1]),))
                               for r, row in enumerate(grid) for c, v in enumerate(row) if v})

    @staticmethod
    def _rules(H: int, W: int) -> Encoding:
        """One variable per cell and digit; R2's local half in clauses (two 1s never touch, a
        larger digit has a neighbour with the same digit), the sizes themselves as cuts."""
        f = Formula()
        x = f.grid("digit", H, W, 9)
        for r in range(H):
            for c in range(W):
                f.exactly_one(x[r, c].tolist())
                around = list(neighbours4(r, c, H, W))
                for n in around:
                    if n > (r, c):
                        f.add([-int(x[r, c, 0]), -int(x[n[0], n[1], 0])], rule="R2")
                for k in range(1, 9):
                    f.add([-int(x[r, c, k])] + [int(x[a, b, k]) for a, b in around], rule="R2")

        shape_cuts(f, x, H, W)  # the commonest block-size cuts, up front

        def decode(value: np.ndarray) -> list[list]:
            return ((value[x] > 0).argmax(axis=2) + 1).tolist()

        return Encoding(f, x.ravel(), decode, cuts=sized_block_cuts(x), cut_rule="R2", extra={"x": x})

    def grade(self, instance: Instance) -> int:
        """docs/specs/grid_puzzles.md §8 grade with the block-size rule in view (:meth:`Engine.cut_grade`): plain
        propagation of the clauses never sees a block's size, so it would call every puzzle search-hard."""
        enc = self.encoding(instance)
        return enc.engine.cut_grade(enc.assumptions())

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        W, H = params["W"], params["H"]
        if H * W <= SMALL:
            sol = small_layout(rng, H, W, largest(W, H))
            return {"grid": reduce_exactly(rng, sol, blocks(sol))}, sol
        for _attempt in range(1000):
            sol = partition(rng, H, W, largest(W, H))
            if sol is not None:
                return {"grid": reduce_givens(rng, sol, blocks(sol))}, sol
        raise RuntimeError(f"could not generate a {W}x{H} Filling puzzle")

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        fixed = self.givens(instance)
        H, W = len(grid), len(grid[0])
        walls = [((r, c), n) for r in range(H) for c in range(W) for n in ((r, c + 1), (r + 1, c))
                 if n[0] < H and n[1] < W and grid[r][c] != grid[n[0]][n[1]]]
        return Sketch(H, W, [[(f"[{v}]" if (r, c) in fixed else str(v) if v else ".") for c, v in enumerate(row)]
                             for r, row in enumerate(grid)],
                      [["given" if (r, c) in fixed else None for c in range(W)] for r in range(H)],
                      labels=[[str(v) if v else "" for v in row] for row in grid], walls=walls)

    def clue_features(self, instance: Instance) -> np.ndarray:
        return np.asarray([v for row in instance.data["state"]["grid"] for v in row], np.float32)
