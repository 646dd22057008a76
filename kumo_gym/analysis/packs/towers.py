"""Towers (skyscrapers): docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Cell{r,c,v}`` / ``NotCell{r,c,v}`` (solution; C* = every cell), ``Given{r,c,v}`` and
``EdgeClue{side,index,n}`` (clues: ``side`` is where the clue stands, TOP/BOTTOM for columns,
LEFT/RIGHT for rows), ``Cand`` (state), ``Contradiction``.

Deduction model: the Latin square as row and column units, and one constraint per edge clue
(the heights seen from that side, looking inwards).
"""
from __future__ import annotations

from typing import Any

from ..deduce import Constraint, Model
from ..reading import Phrase
from ..schema import Pack
from .common import CELL_VALUE, value_pack


def visible(heights: tuple) -> int:
    """How many towers are seen looking along ``heights`` (a tower hides every lower one behind it)."""
    best = seen = 0
    for h in heights:
        if h > best:
            best, seen = h, seen + 1
    return seen


def sight_line(side: str, index: int, n: int) -> tuple:
    """The cells seen from a clue, nearest first."""
    if side == "TOP":
        return tuple((r, index) for r in range(n))
    if side == "BOTTOM":
        return tuple((r, index) for r in reversed(range(n)))
    if side == "LEFT":
        return tuple((index, c) for c in range(n))
    return tuple((index, c) for c in reversed(range(n)))


_SIDE_WORDS = {"top": "TOP", "above": "TOP", "bottom": "BOTTOM", "below": "BOTTOM", "left": "LEFT", "right": "RIGHT"}


class TowersPack(Pack):
    def clue_claims(self, instance: Any) -> list:
        st = instance.data["state"]
        out = [("Given", {"r": r, "c": c, "v": v}) for r, row in enumerate(st["grid"]) for c, v in enumerate(row) if v]
        for side in ("TOP", "BOTTOM", "LEFT", "RIGHT"):
            out += [("EdgeClue", {"side": side, "index": i, "n": k}) for i, k in enumerate(st[side.lower()]) if k]
        return out

    def deduction_model(self, instance: Any) -> Model:
        st = instance.data["state"]
        n, grid, sol = st["n"], st["grid"], instance.data["solution"]
        cells = [(r, c) for r in range(n) for c in range(n)]
        cons = []
        for side in ("TOP", "BOTTOM", "LEFT", "RIGHT"):
            for i, k in enumerate(st[side.lower()]):
                if k:
                    cons.append(Constraint(sight_line(side, i, n),
                                           lambda vals, k=k: len(set(vals)) == len(vals) and visible(vals) == k,
                                           (("EdgeClue", {"side": side, "index": i, "n": k}),), name="visibility"))
        units = [tuple((r, c) for c in range(n)) for r in range(n)] + [tuple((r, c) for r in range(n)) for c in range(n)]
        return Model(
            domains={x: tuple(range(1, n + 1)) for x in cells}, constraints=cons, units=units,
            fact=lambda v, x: ("Cell", {"r": v[0], "c": v[1], "v": x}),
            exclusion=lambda v, x: ("NotCell", {"r": v[0], "c": v[1], "v": x}),
            givens={(r, c): grid[r][c] for r, c in cells if grid[r][c]},
            given_fact=lambda v, x: ("Given", {"r": v[0], "c": v[1], "v": x}),
            solution={(r, c): sol[r][c] for r, c in cells})


def _edge_phrases() -> tuple:
    out = []
    for word, side in _SIDE_WORDS.items():
        line = "(?:column|col)" if side in ("TOP", "BOTTOM") else "row"
        fixed = {"side": side}
        out += [
            *Phrase.group("EdgeClue", rf"\b{word} clue (?:of|for|on) {line} (?P<index>\d{{1,3}}) (?:is|=|:|says) {{n}}\b",
                                      rf"\b{line} (?P<index>\d{{1,3}})'s {word} clue (?:is|=|:) {{n}}\b",
                                      rf"\bclue {{n}} (?:on the {word} of|{word}(?: of)?) {line} (?P<index>\d{{1,3}})\b",
                                      rf"\b(?:looking |seen |viewed )?from the {word},? {line} (?P<index>\d{{1,3}}) "
                                          rf"(?:sees|shows|has) {{n}}\b",
                                      fixed=fixed),
        ]
    return tuple(out)


PACK = TOWERS = TowersPack(
    puzzle="towers",
    **value_pack(
        {"Given": CELL_VALUE, "EdgeClue": {"side": "side", "index": "index", "n": "count"}}, _edge_phrases(),
        {"EdgeClue": ("the {side} clue of {dir} {idx} is {n}", "looking from the {side}, {dir} {idx} sees {n}")},
    ),
    claim_notes=("Cell states a tower's height, NotCell rules one out. EdgeClue is a visibility clue: side TOP or "
                 "BOTTOM for a column clue, LEFT or RIGHT for a row clue; index is the column or row."),
)
