"""Mosaic: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Black{r,c}`` / ``White{r,c}`` (solution; C* = the black cells; the answer writes 1 for
black and 2 for white), ``Clue{r,c,n}`` (clue), ``Needs{r,c,n}`` (state: the clue at (r, c)
still needs n more black cells), ``Contradiction``.

Deduction model: one variable per cell; each clue counts the black cells of its 3x3 block.
"""
from __future__ import annotations

from typing import Any

from ..deduce import Constraint, Model
from ..reading import Phrase
from ..schema import Pack
from .common import NUMBER_CLUE, cell_claims, cell_fields, colour_model, colour_pack, state_grid

BLACK, WHITE = 1, 2


class MosaicPack(Pack):
    def clue_claims(self, instance: Any) -> list:
        return cell_claims("Clue", instance.data["state"]["grid"], "n", lambda v: v >= 0)

    def deduction_model(self, instance: Any) -> Model:
        grid, H, W = state_grid(instance)
        cons = []
        for r, c, k in ((r, c, k) for r, row in enumerate(grid) for c, k in enumerate(row)):
            if k >= 0:
                block = tuple((a, b) for a in (r - 1, r, r + 1) for b in (c - 1, c, c + 1) if 0 <= a < H and 0 <= b < W)
                cons.append(Constraint(block, lambda vals, k=k: sum(v == BLACK for v in vals) == k,
                                       (("Clue", {"r": r, "c": c, "n": k}),), name="clue block"))
        return colour_model(instance.data["solution"], cons, BLACK, WHITE)


PACK = MOSAIC = MosaicPack(
    puzzle="mosaic",
    **colour_pack(
        BLACK, WHITE, NUMBER_CLUE, {"Needs": cell_fields(n="count")},
        phrases=(
            Phrase("Needs", r"{subj}(?:the (?:clue |number )?(?:\d )?(?:at|in|on) )?{cell} (?:still |now )?(?:needs|requires) "
                            r"(?:exactly )?{n} more\b"),
            Phrase("Clue", r"\bthe (?:clue|number) (?:at|in|on) {cell} ?,? (?:which is|is|=|says|:) {n}\b"),
        ),
        templates={"Needs": ("the clue at {cell} needs {n} more",)},
    ),
    claim_notes=("Black / White: the colour of cell (r, c) in the solution. Clue: the number n written at (r, c) "
                 "(it counts black cells in the 3x3 block around it, itself included). Needs: that clue still "
                 "needs n more black cells."),
)
