"""Range: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Black{r,c}`` / ``White{r,c}`` (solution; C* = the black cells; the answer writes -1 for
black and 0 for white), ``Clue{r,c,n}`` (clue: the number at (r, c)), ``Contradiction``.

Deduction model: one variable per cell; numbered cells are white; black cells never touch; a
white cell has a white neighbour (the local face of connectivity); each number counts the white
cells it sees along its row and column (itself included).
"""
from __future__ import annotations

from typing import Any

from ..deduce import Constraint, Model
from ..reading import Phrase
from ..schema import Pack
from .common import NUMBER_CLUE, cell_claims, colour_model, colour_pack, shading_constraints, state_grid

BLACK, WHITE = -1, 0


def _sees(n: int, arms: list[int]):
    """check(values) for a clue: values[0] is the clue cell, then the four rays in order."""
    def check(vals) -> bool:
        total, i = 1, 1
        for length in arms:
            for v in vals[i:i + length]:
                if v == BLACK:
                    break
                total += 1
            i += length
        return total == n and vals[0] != BLACK
    return check


class RangePack(Pack):
    def clue_claims(self, instance: Any) -> list:
        return cell_claims("Clue", instance.data["state"]["grid"], "n", bool)

    def deduction_model(self, instance: Any) -> Model:
        grid, H, W = state_grid(instance)
        cons = []
        for r, c in ((r, c) for r in range(H) for c in range(W)):
            cons += shading_constraints(r, c, H, W, BLACK)
            n = grid[r][c]
            if n:
                rays = [[(r - k, c) for k in range(1, r + 1)], [(r, c + k) for k in range(1, W - c)],
                        [(r + k, c) for k in range(1, H - r)], [(r, c - k) for k in range(1, c + 1)]]
                rays = [ray[:n] for ray in rays]  # the cell after the n - 1 seen ones must stop the view
                cons.append(Constraint(((r, c),) + tuple(x for ray in rays for x in ray),
                                       _sees(n, [len(ray) for ray in rays]),
                                       (("Clue", {"r": r, "c": c, "n": n}),), name="sight count"))
        return colour_model(instance.data["solution"], cons, BLACK, WHITE)


PACK = RANGE = RangePack(
    puzzle="range",
    **colour_pack(BLACK, WHITE, NUMBER_CLUE, phrases=(
        Phrase("Clue", r"\bthe (?:clue|number) (?:at|in|on) {cell} ?,? (?:which is|is|=|says|:|being)(?: actually| really)? {n}\b"),
    )),
    claim_notes=("Black / White: the colour of cell (r, c) in the solution. Clue: the number n written at (r, c) "
                 "(1 plus the white cells it sees up, down, left and right)."),
)
