"""Singles: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Black{r,c}`` / ``White{r,c}`` (solution; C* = the black cells; the answer writes -1 for
black and the cell's own number for white), ``Number{r,c,n}`` (clue: the number printed in a
cell), ``Contradiction``.

Deduction model: one variable per cell (black, or white showing its number); black cells never
touch; in a row or column, at most one of the cells sharing a number stays white; a white cell
has a white neighbour (the local face of "the white cells are connected").
"""
from __future__ import annotations

from typing import Any

from ..deduce import Constraint, Model
from ..reading import Phrase
from ..schema import Pack
from ..text import NOT_A_LIST
from .common import cell_fields, colour_pack, lines, shading_constraints

BLACK = -1


class SinglesPack(Pack):
    def clue_claims(self, instance: Any) -> list:
        grid = instance.data["state"]["grid"]
        return [("Number", {"r": r, "c": c, "n": v}) for r, row in enumerate(grid) for c, v in enumerate(row)]

    def answer_claim(self, r: int, c: int, value: Any):
        return ("Black", {"r": r, "c": c}) if value == BLACK or str(value).strip() == "-1" else None

    def deduction_model(self, instance: Any) -> Model:
        nums = instance.data["state"]["grid"]
        H, W = len(nums), len(nums[0])
        sol = instance.data["solution"]
        cells = [(r, c) for r in range(H) for c in range(W)]
        cons = []
        for r, c in cells:
            cons += shading_constraints(r, c, H, W, BLACK)
        for _axis, _i, line in lines(H, W):
            by_number: dict = {}
            for r, c in line:
                by_number.setdefault(nums[r][c], []).append((r, c))
            for n, same in sorted(by_number.items()):
                if len(same) > 1:
                    cons.append(Constraint(tuple(same), lambda vals: sum(v != BLACK for v in vals) <= 1,
                                           tuple(("Number", {"r": r, "c": c, "n": n}) for r, c in same),
                                           name="no repeated number"))
        return Model(domains={(r, c): (BLACK, nums[r][c]) for r, c in cells}, constraints=cons,
                     fact=lambda v, x: ("Black" if x == BLACK else "White", {"r": v[0], "c": v[1]}),
                     solution={(r, c): sol[r][c] for r, c in cells})


PACK = SINGLES = SinglesPack(
    puzzle="singles",
    **colour_pack(
        BLACK, None, {"Number": cell_fields(n="count")},
        phrases=(
            *Phrase.group("Number", r"\bthe number (?:at|in|on) {cell} ?,? (?:which is|is|=|says|:) {n}\b",
                                    r"{subj}{cell} (?:has|shows|contains|holds) (?:a |the )?number {n}\b",
                                    r"\bnumber {n} (?:at|in|on) {cell}"),
            # "the 3 at (2, 2)", "another 3 at r4c4", "the 2s at (0, 0) and (0, 2)", "(1, 1) is a 4"
            *Phrase.group("Number", r"\b(?:the|a|an|another) {n} (?:at|in|on) {cell}",
                                    r"\b{n}s (?:at|in|on) {cells}",
                                    r"{subj}{cell} (?:is|=|shows|reads) (?:a |an )?{n}\b" + NOT_A_LIST),
        ),
        templates={
            "Number": ("the number at {cell} is {n}", "{cell} holds the number {n}", "number {n} at {cell}"),
        },
    ),
    claim_notes=("Black / White: the colour of cell (r, c) in the solution. Number: the number n printed in "
                 "cell (r, c)."),
)
