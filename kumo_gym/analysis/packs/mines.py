"""Mines: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Mine{r,c}`` / ``Safe{r,c}`` (solution; C* = the mines; the answer writes ``*`` for a
mine and ``.`` for a safe cell), ``Number{r,c,n}`` (clue: an opened cell's number),
``Total{n}`` (clue: the mine count), ``Needs{r,c,n}`` (state: the number at (r, c) still needs n
more mines among its covered neighbours), ``Contradiction``.

Deduction model: one variable per cell; an opened cell is safe (a given) and its number counts
the mines among its up to eight neighbours; the count is left to the solution fallback.
"""
from __future__ import annotations

from typing import Any

from ..deduce import Constraint, Model
from ..reading import Phrase
from ..schema import Pack
from .common import cell_fields, claim_schema, neighbours8, state_grid

MINE, SAFE = "*", "."


class MinesPack(Pack):
    def clue_claims(self, instance: Any) -> list:
        grid = instance.data["state"]["grid"]
        out = [("Number", {"r": r, "c": c, "n": k}) for r, row in enumerate(grid) for c, k in enumerate(row) if k >= 0]
        return out + [("Total", {"n": instance.data["state"]["mines"]})]

    def deduction_model(self, instance: Any) -> Model:
        grid, H, W = state_grid(instance)
        cons = []
        for r, row in enumerate(grid):
            for c, k in enumerate(row):
                if k >= 0:
                    around = tuple(neighbours8(r, c, H, W))
                    cons.append(Constraint(around, lambda vals, k=k: sum(v == MINE for v in vals) == k,
                                           (("Number", {"r": r, "c": c, "n": k}),), name="number counts mines"))
        sol = instance.data["solution"]
        cells = [(r, c) for r in range(H) for c in range(W)]
        return Model(domains={x: (MINE, SAFE) for x in cells}, constraints=cons,
                     fact=lambda v, x: ("Mine" if x == MINE else "Safe", {"r": v[0], "c": v[1]}),
                     solution={(r, c): sol[r][c] for r, c in cells},
                     givens={(r, c): SAFE for r, c in cells if grid[r][c] >= 0},
                     given_fact=lambda v, x: ("Number", {"r": v[0], "c": v[1], "n": grid[v[0]][v[1]]}))


PACK = MINES = MinesPack(
    puzzle="mines",
    **claim_schema({"Mine": cell_fields(), "Safe": cell_fields()}, {"Number": cell_fields(n="count"), "Total": {"n": "count"}},
                   {"Needs": cell_fields(n="count")}, opposite={"Mine": "Safe"}),
    cstar_symbols={MINE: "Mine"},
    answer_kinds={MINE: "Mine", SAFE: "Safe"},
    phrases=(
        Phrase("Needs", r"{subj}(?:the (?:number |clue )?(?:\d )?(?:at|in|on) )?{cell} (?:still |now )?(?:needs|requires) "
                        r"(?:exactly )?{n} more(?: mines?)?\b"),
        *Phrase.group("Number", r"\bthe (?:number |clue )?{n} (?:at|in|on) {cell}",
                                r"\bthe (?:number|clue) (?:at|in|on) {cell} ?,? (?:which is|is|=|says|:) {n}\b",
                                r"{subj}{cell} (?:shows|has|holds|is) (?:a |the )?(?:number )?{n}\b(?! more)"),
        Phrase("Total", r"\b(?:there are|there's|with) (?:exactly )?{n} mines\b"),
        *Phrase.group("Safe", r"{subj}{cells_or} {neg} (?:be |hold |have )?(?:a )?mines?\b",
                              r"{subj}{cells} {be} (?:all |both |also |then |therefore |now )?(?:safe|clear|open|mine-free)\b",
                              r"\bsafe (?:cells? )?(?:at|in|on) {cells}"),
        *Phrase.group("Mine", r"{subj}{cells} {be} (?:all |both |also |then |therefore |now )?(?:a )?mines?\b",
                              r"{subj}{cells} (?:must |then |therefore |also )?(?:holds?|has|have|contains?) (?:a )?mines?\b",
                              r"\b(?:the )?mines? (?:of [^@.;]{0,30})?(?:is|are|at|in|on) {cells}",
                              r"\bmines (?:are |at )?{cells}"),
    ),
    templates={"Mine": ("{cell} is a mine", "{cell} must be a mine", "{cell} holds a mine"),
               "Safe": ("{cell} is safe", "{cell} cannot be a mine", "{cell} must be safe"),
               "Number": ("the number at {cell} is {n}", "{cell} shows {n}"),
               "Total": ("there are {n} mines",),
               "Needs": ("the number at {cell} needs {n} more mines",)},
    claim_notes=("Mine / Safe: whether cell (r, c) holds a mine in the solution. Number: the number n shown at the "
                 "opened cell (r, c) (it counts the mines among its up to eight neighbours). Total: the number of "
                 "mines. Needs: that number still needs n more mines among its covered neighbours."),
)
