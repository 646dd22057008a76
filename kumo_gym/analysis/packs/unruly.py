"""Unruly: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Black{r,c}`` / ``White{r,c}`` (solution; C* = the black cells; the answer writes 1 for
black and 0 for white), ``Given{r,c,v}`` (clue: a given cell, v 1 black or 0 white),
``Remaining{axis,index,color,n}`` (state: a line still needs n cells of that colour),
``Contradiction``.

Deduction model: one variable per cell, the givens fixed; no three equal cells in a row or
column; every line half black and half white.
"""
from __future__ import annotations

from typing import Any

from ..deduce import Constraint, Model
from ..reading import Phrase
from ..schema import Pack
from .common import cell_claims, cell_fields, colour_model, colour_pack, lines, state_grid

BLACK, WHITE = 1, 0


class UnrulyPack(Pack):
    def template_variant(self, kind: str, payload: dict) -> str:
        return ("black" if payload.get("v") == BLACK else "white") if kind == "Given" else ""

    def clue_claims(self, instance: Any) -> list:
        return cell_claims("Given", instance.data["state"]["grid"], "v", lambda v: v >= 0)

    def deduction_model(self, instance: Any) -> Model:
        grid, H, W = state_grid(instance)
        cons = []
        for _axis, _index, line in lines(H, W):
            half = len(line) // 2
            cons.append(Constraint(tuple(line), lambda vals, half=half: sum(v == BLACK for v in vals) == half,
                                   reason="every line is half black", name="balance"))
            for j in range(len(line) - 2):
                cons.append(Constraint(tuple(line[j:j + 3]), lambda vals: len(set(vals)) > 1, name="no three"))
        return colour_model(instance.data["solution"], cons, BLACK, WHITE,
                            givens={(r, c): v for r, row in enumerate(grid) for c, v in enumerate(row) if v >= 0},
                            given_fact=lambda v, x: ("Given", {"r": v[0], "c": v[1], "v": x}))


PACK = UNRULY = UnrulyPack(
    puzzle="unruly",
    **colour_pack(
        BLACK, WHITE, {"Given": cell_fields(v="value")},
        {"Remaining": {"axis": "axis", "index": "index", "color": "color", "n": "count"}},
        phrases=(
            Phrase("Given", r"{subj}{cell} (?:is )?(?:a )?given (?:as )?(?:a )?(?:black|1)\b", {"v": BLACK}),
            Phrase("Given", r"{subj}{cell} (?:is )?(?:a )?given (?:as )?(?:a )?(?:white|0)\b", {"v": WHITE}),
            Phrase("Given", r"\b(?:the )?given (?:black|1) (?:cell |square )?(?:at|in|on) {cell}", {"v": BLACK}),
            Phrase("Given", r"\b(?:the )?given (?:white|0) (?:cell |square )?(?:at|in|on) {cell}", {"v": WHITE}),
            Phrase("Remaining", r"\b{line} (?:still |now |only |then )?(?:needs|requires|has) {n} more black\b", {"color": "BLACK"}),
            Phrase("Remaining", r"\b{line} (?:still |now |only |then )?(?:needs|requires|has) {n} more white\b", {"color": "WHITE"}),
        ),
        templates={
            "Given:black": ("{cell} is given as black", "the given black at {cell}"),
            "Given:white": ("{cell} is given as white", "the given white at {cell}"),
            "Remaining": ("{line} needs {n} more {color}",),
        },
    ),
    claim_notes=("Black / White: the colour of cell (r, c). Given: a cell fixed by the puzzle (v 1 black, 0 "
                 "white). Remaining: row/column (axis ROW/COL) still needs n cells of color BLACK or WHITE."),
)
