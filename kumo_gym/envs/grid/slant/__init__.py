"""Slant (docs/specs/grid_puzzles.md §5 "Slant"; Tatham's ``slant``). Game IDs: ``codec.py``."""
from __future__ import annotations

import dataclasses

import numpy as np

from ....core.instance import Instance
from ....solvers.engine import Encoding
from ....solvers.sat import Formula
from ..base import Check, GridParams, GridTask, cells_decoder, presets, tatham_level
from ..render import Sketch
from .claims import RULES as CLAIM_RULES
from .codec import BACK, NO_CLUE, SLASH
from .geometry import diamond_clauses, loop_cuts, loops, random_filling, touching

EMPTY = "."


@dataclasses.dataclass(frozen=True)
class SlantParams(GridParams.with_size(8, 2, 30)):
    tatham_difficulty: str = tatham_level("e", {"e": "easy", "h": "hard"})


def clue_counts(back: np.ndarray) -> np.ndarray:
    """Every grid point's number: how many diagonals of ``back`` (True: ``\\``) end there."""
    H, W = back.shape
    b = np.zeros((H + 2, W + 2), np.int64)
    s = np.zeros((H + 2, W + 2), np.int64)
    b[1:-1, 1:-1], s[1:-1, 1:-1] = back, ~back
    return b[:-1, :-1] + s[:-1, 1:] + s[1:, :-1] + b[1:, 1:]


class SlantTask(GridTask):
    """Slant: draw a diagonal in every cell; numbered corners count the diagonals that meet them.

    ## Description
    Every cell of the grid gets one diagonal, ``/`` or ``\\``. A number on a grid point (a corner
    shared by up to four cells) says how many diagonals end at that point, and the diagonals never
    form a closed loop (docs/specs/grid_puzzles.md §5, Tatham's *Slant*, also known as Gokigen Naname).

    ## Answer
    A JSON array of H rows of W strings, ``"/"`` or ``"\\"`` (written ``"\\\\"`` inside JSON).
    Any grid that satisfies the rules scores 1.

    ## Generation
    Our own generator (docs/specs/grid_puzzles.md §8): a random loop-free filling (cells in a random
    order, a random diagonal unless it closes a loop, as Tatham's), every grid point numbered, then
    numbers removed in a seeded order while deduction still fixes every cell, which proves the
    filling unique: Easy (``e``) by unit propagation, Hard (``h``) by failed-literal probing. The SAT
    model states "no loop" as the four-cell loops around each point plus lazy cuts for longer loops.

    ## Interactive mode
    One move per step, ``{"r": row, "c": col, "v": "/"}`` or ``"\\\\"``; ``"."`` clears a cell.
    """

    Params = SlantParams
    claim_rules = CLAIM_RULES
    difficulties = presets("W H tatham_difficulty", (5, 5, "e"), (8, 8, "e"), (8, 8, "h"), (12, 10, "h"))
    rule_codes = """
        R1 each numbered grid point is the end of exactly that many diagonals
        R2 the diagonals form no closed loop
    """
    rules_prompt = """
        - Draw one diagonal line in every cell: "/" joins the cell's bottom-left and top-right corners, "\\\\" (a
          backslash, as JSON writes it) its top-left and bottom-right corners.
        - "clues" lists the grid points where cell corners meet, one row more and one column more than the grid:
          point [i][j] is the top-left corner of cell (i, j), so row 0 of the points is the top edge of the grid
          and the last row the bottom edge. A number 0 to 4 at a point is exactly how many diagonals have an end at
          that point; -1 means the point has no number.
        - The diagonals must never form a closed loop, of any size.
    """
    answer_prompt = 'give every cell\'s diagonal as "/" or "\\\\" (a backslash, which JSON writes doubled).'
    symbols = frozenset({SLASH, BACK})
    state_keys = ("clues",)
    empty = EMPTY

    def shape(self, state: dict) -> tuple[int, int]:
        return len(state["clues"]) - 1, len(state["clues"][0]) - 1

    def cell_values(self, instance: Instance) -> tuple:
        return (SLASH, BACK)

    def rule_checks(self, instance: Instance, grid: list[list]) -> list[Check]:
        H, W = self.dims(instance)
        back = np.asarray([[v == BACK for v in row] for row in grid], bool).reshape(H, W)
        checks = []
        for r, row in enumerate(instance.data["state"]["clues"]):
            for c, k in enumerate(row):
                if k != NO_CLUE:
                    around = touching(r, c, H, W)
                    checks.append(Check("R1", [cell for cell, _ in around],
                                        sum(bool(back[cell]) == b for cell, b in around) == k))
        found = loops(back)
        return checks + [Check("R2", sorted(loop), False) for loop in found] + [Check("R2", [], True)] * (not found)

    def encode(self, state: dict) -> Encoding:
        """One formula per grid size: ``x[r, c]`` (the cell holds ``\\``), a counter per grid point
        whose number fixes it by assumption, and "no loop" (R2) as clauses for the four-cell loops
        and lazy cuts for the rest."""
        H, W = self.shape(state)
        enc = self.layout((H, W), lambda: self._rules(H, W))
        count = enc.extra["count"]
        return enc.with_clues({(r, c): ("R1", tuple(count[r, c].eq(k)))
                               for r, row in enumerate(state["clues"]) for c, k in enumerate(row) if k != NO_CLUE})

    @staticmethod
    def _rules(H: int, W: int) -> Encoding:
        f = Formula()
        x = f.grid("back", H, W)
        count = {(r, c): f.count([int(x[cell]) if b else -int(x[cell]) for cell, b in touching(r, c, H, W)])
                 for r in range(H + 1) for c in range(W + 1)}
        for clause in diamond_clauses(x):
            f.add(clause, rule="R2")
        return Encoding(f, x.ravel(), cells_decoder(x, BACK, SLASH), cuts=loop_cuts(x), cut_rule="R2",
                        extra={"x": x, "count": count})

    def sample(self, rng: np.random.Generator, params: dict) -> tuple[dict, list[list]]:
        """A random loop-free filling, every point numbered, numbers removed while the Tatham
        level's deduction still fixes every cell, both in our kernel (``kernel.py``): Easy Tatham's
        Easy rules, Hard failed-literal probing on the SAT model's rules (grade 1 of
        docs/specs/grid_puzzles.md §8, as the engine's probing reaches it, without the clause arrays)."""
        W, H = params["W"], params["H"]
        back = random_filling(rng, H, W)
        full = clue_counts(back)
        from . import kernel

        if params["tatham_difficulty"] == "e":
            active, val, parent = kernel.scratch(H, W)
            kernel.reduce(H, W, full.ravel(), active, rng.permutation(active.size), val, parent)
        else:
            active, val, trail, seen = kernel.hard_scratch(H, W)
            kernel.reduce_hard(H, W, full.ravel(), active, rng.permutation(active.size), val, trail, seen)
        clues = np.where(active.reshape(full.shape) > 0, full, NO_CLUE).tolist()
        return {"clues": clues}, np.where(back, BACK, SLASH).tolist()

    def sketch(self, instance: Instance, grid: list[list]) -> Sketch:
        """The grid points and cells on a board of twice the size plus one: numbers (or ``+``) at
        the points, each cell's diagonal between them."""
        clues = instance.data["state"]["clues"]
        H, W = len(grid), len(grid[0])
        text = [[" " for _ in range(2 * W + 1)] for _ in range(2 * H + 1)]
        fill: list[list[str | None]] = [[None] * (2 * W + 1) for _ in range(2 * H + 1)]
        for r, row in enumerate(clues):
            for c, k in enumerate(row):
                text[2 * r][2 * c] = "+" if k == NO_CLUE else str(k)
                fill[2 * r][2 * c] = None if k == NO_CLUE else "given"
        for r, row in enumerate(grid):
            for c, v in enumerate(row):
                text[2 * r + 1][2 * c + 1] = v if v in (SLASH, BACK) else EMPTY
        return Sketch(2 * H + 1, 2 * W + 1, text, fill)

    def clue_count(self, instance: Instance) -> int:
        return sum(k != NO_CLUE for row in instance.data["state"]["clues"] for k in row)

    def clue_features(self, instance: Instance) -> np.ndarray:
        """Per grid point: its number + 1, so 0 means no number."""
        return np.asarray([k + 1 for row in instance.data["state"]["clues"] for k in row], np.float32)
