"""Slant: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Slash{r,c}`` / ``Backslash{r,c}`` (solution: the cell's diagonal, ``/`` or ``\\``; C* =
every cell), ``Clue{r,c,n}`` (clue: the number n on the grid point (r, c), 0 <= r <= H and
0 <= c <= W, the top-left corner of cell (r, c)), ``Contradiction``.

Deduction model: one variable per cell, ``/`` or ``\\``; each numbered point counts the diagonals
that touch it; no four cells around a point form a diamond (the smallest loop; longer loops are
left to the deduction's probing and fallback).
"""
from __future__ import annotations

from typing import Any

from ...envs.grid.slant.geometry import touching
from ..deduce import Constraint, Model
from ..reading import Phrase
from ..schema import Pack
from .common import cell_fields, claim_schema

SLASH, BACK = "/", "\\"
#: words for the two diagonals, as a regular expression
SLASH_WORDS = r"(?:a |an )?(?:/|forward ?slash(?:es)?|slash(?:es)?|rising diagonals?)"
BACK_WORDS = r"(?:a |an )?(?:\\\\|\\|back ?slash(?:es)?|falling diagonals?)"


class SlantPack(Pack):
    def clue_claims(self, instance: Any) -> list:
        return [("Clue", {"r": r, "c": c, "n": k}) for r, row in enumerate(instance.data["state"]["clues"])
                for c, k in enumerate(row) if k >= 0]

    def deduction_model(self, instance: Any) -> Model:
        sol = instance.data["solution"]
        H, W = len(sol), len(sol[0])
        cons = []
        for r, row in enumerate(instance.data["state"]["clues"]):
            for c, k in enumerate(row):
                if k >= 0:
                    around = touching(r, c, H, W)
                    wants = tuple(BACK if back else SLASH for _, back in around)
                    cons.append(Constraint(tuple(cell for cell, _ in around),
                                           lambda vals, k=k, wants=wants: sum(v == w for v, w in zip(vals, wants)) == k,
                                           (("Clue", {"r": r, "c": c, "n": k}),), name="numbered point"))
        cons += [Constraint(((r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)),
                            lambda vals: tuple(vals) != (SLASH, BACK, BACK, SLASH), reason="the diagonals form no loop",
                            name="no diamond") for r in range(H - 1) for c in range(W - 1)]
        cells = [(r, c) for r in range(H) for c in range(W)]
        return Model(domains={x: (SLASH, BACK) for x in cells}, constraints=cons,
                     fact=lambda v, x: ("Backslash" if x == BACK else "Slash", {"r": v[0], "c": v[1]}),
                     solution={(r, c): sol[r][c] for r, c in cells})


PACK = SLANT = SlantPack(
    puzzle="slant",
    **claim_schema({"Slash": cell_fields(), "Backslash": cell_fields()},
                   {"Clue": {"r": "index", "c": "index", "n": "count"}}, opposite={"Slash": "Backslash"}),
    claim_notes=("Slash / Backslash: the diagonal of cell (r, c) is / (bottom-left to top-right) or \\ (top-left to "
                 "bottom-right). Clue: the number n on the grid point (r, c), the top-left corner of cell (r, c); "
                 "it counts the diagonals that end at that point."),
    cstar_symbols={SLASH: "Slash", BACK: "Backslash"},
    answer_kinds={SLASH: "Slash", BACK: "Backslash"},
    phrases=(
        *Phrase.group("Clue", r"\b(?:the )?(?:clue|number) (?:at|on) (?:the )?(?:point|corner|vertex) {cell} (?:is|says|=|:) {n}\b",
                              r"\b(?:the )?(?:point|corner|vertex) {cell} (?:is|has|shows|carries) (?:a |the )?(?:clue |number )?{n}\b",
                              r"\bthe {n} (?:clue )?(?:at|on) (?:the )?(?:point|corner|vertex) {cell}",
                              r"(?:\bclues?|,|\band) {n} at (?:the )?points? {cells}"),
        # negatives first: "(1, 2) cannot be a slash" is a Backslash claim
        Phrase("Backslash", rf"{{subj}}{{cells_or}} {{neg}} (?:be |hold |take |get )?{SLASH_WORDS}(?![a-z])"),
        Phrase("Slash", rf"{{subj}}{{cells_or}} {{neg}} (?:be |hold |take |get )?{BACK_WORDS}(?![a-z])"),
        *Phrase.group("Backslash", rf"{{subj}}{{cells}} {{be}} {BACK_WORDS}(?![a-z])",
                                   rf"{{subj}}{{cells}} (?:=|:|gets|takes|holds|has) {BACK_WORDS}(?![a-z])",
                                   rf"\b(?:put|place|draw) {BACK_WORDS} (?:in|at|into) {{cell}}",
                                   rf"{{cell}},? (?:which|that) (?:is|must be) {BACK_WORDS}(?![a-z])",
                                   rf"\b(?:leaves|leaving|makes|making) {{cell}} (?:as )?{BACK_WORDS}(?![a-z])",
                                   rf"\bthe {BACK_WORDS} (?:in|at|of) {{cell}}"),
        *Phrase.group("Slash", rf"{{subj}}{{cells}} {{be}} {SLASH_WORDS}(?![a-z])",
                               rf"{{subj}}{{cells}} (?:=|:|gets|takes|holds|has) {SLASH_WORDS}(?![a-z])",
                               rf"\b(?:put|place|draw) {SLASH_WORDS} (?:in|at|into) {{cell}}",
                               rf"{{cell}},? (?:which|that) (?:is|must be) {SLASH_WORDS}(?![a-z])",
                               rf"\b(?:leaves|leaving|makes|making) {{cell}} (?:as )?{SLASH_WORDS}(?![a-z])",
                               rf"\bthe {SLASH_WORDS} (?:in|at|of) {{cell}}"),
    ),
    templates={
        "Slash": ("{cell} is a slash", "{cell} must be a forward slash", "put a slash in {cell}"),
        "Backslash": ("{cell} is a backslash", "{cell} must be a backslash", "put a backslash in {cell}"),
        "Clue": ("the clue at point {cell} is {n}", "the point {cell} has the number {n}"),
    },
)
