"""Galaxies: grid_puzzles.md §5, §7; reasoning_graphs.md §6 "Other puzzles".

Claims: ``InRegion{r,c,dot}`` (cell (r, c) lies in the region of dot index ``dot``; C* = one per
cell), ``SameRegion{a,b}`` / ``DiffRegion{a,b}`` (two cells ``[r, c]``, ``a < b``) as solution
claims; ``Dot{r2,c2}`` (a dot at half-cell position (r2, c2)) as the clue claim; ``Contradiction``.

Deduction model: one variable per cell, its domain every dot; from each Dot clue, the cells it
touches are in its region and the cells whose mirror image about it leaves the grid are not; a cell and its mirror image about dot k are in k's
region together or not at all. Connectivity is left to probing.
"""
from __future__ import annotations

import re
from typing import Any

from ...envs.grid.geometry import dot_cells
from ..deduce import Constraint, Model
from ..reading import Found, PhraseReader
from ..schema import Pack
from ..text import Norm
from .common import ALIASES, CONTRADICTION, generic_rules

_C = r"@(\d+)@"
_PATTERNS = (
    (re.compile(rf"{_C} and {_C} (?:are|lie|must be) in different regions\b"), "DiffRegion"),
    (re.compile(rf"{_C} and {_C} (?:are|lie|must be) in the same region\b"), "SameRegion"),
    (re.compile(rf"{_C} (?:belongs to|is in the region of|goes to) dot (\d{{1,3}})\b"), "InRegion"),
    (re.compile(r"\ba dot (?:sits |lies )?at half-cell (?:position )?(\d{1,3})/(\d{1,3})\b"), "Dot"),
)


class GalaxiesReader(PhraseReader):
    def read(self, norm: Norm) -> list[Found]:
        out, masked = [], norm.text
        for rx, kind in _PATTERNS:
            for m in rx.finditer(masked):
                cell = lambda g, m=m: [x - self.offset for x in norm.coords[int(m.group(g))]]
                if kind == "Dot":
                    payload = {"r2": int(m.group(1)), "c2": int(m.group(2))}
                elif kind == "InRegion":
                    r, c = cell(1)
                    payload = {"r": r, "c": c, "dot": int(m.group(2))}
                else:
                    a, b = sorted([cell(1), cell(2)])
                    payload = {"a": a, "b": b}
                out.append(Found(kind, payload, m.start(), True, m.end(), m.start()))
                masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
        return out


def dot_claim(dot) -> tuple:
    return ("Dot", {"r2": int(dot[0]), "c2": int(dot[1])})


class GalaxiesPack(Pack):
    def reader(self, offset: int):
        return GalaxiesReader(self, offset)

    def grid_claims(self, instance: Any, grid: list) -> list:
        return [("InRegion", {"r": r, "c": c, "dot": v}) for r, row in enumerate(grid) for c, v in enumerate(row)
                if isinstance(v, int) and v >= 0]

    def clue_claims(self, instance: Any) -> list:
        return [dot_claim(d) for d in instance.data["state"]["dots"]]

    def deduction_model(self, instance: Any) -> Model:
        st, sol = instance.data["state"], instance.data["solution"]
        H, W, dots = int(st["H"]), int(st["W"]), [tuple(d) for d in st["dots"]]
        cells = [(r, c) for r in range(H) for c in range(W)]
        doms = {x: tuple(range(len(dots))) for x in cells}
        fits = {x: {k for k, (r2, c2) in enumerate(dots) if 0 <= r2 - x[0] < H and 0 <= c2 - x[1] < W} for x in cells}
        # the cells a dot touches are in its region: derived from the Dot clue (so the trace states them)
        cons = [Constraint((x,), lambda vals, k=k: vals[0] == k, (dot_claim(d),), name="dot")
                for k, d in enumerate(dots) for x in dot_cells(d)]
        # a cell whose mirror image about dot k leaves the grid is not in k's region (premise: that dot)
        cons += [Constraint((x,), lambda vals, k=k: vals[0] != k, (dot_claim(dots[k]),), name="fits")
                 for x in cells for k in range(len(dots)) if k not in fits[x]]
        for k, (r2, c2) in enumerate(dots):
            for x in cells:
                m = (r2 - x[0], c2 - x[1])
                if x < m and k in fits[x]:
                    cons.append(Constraint((x, m), lambda vals, k=k: (vals[0] == k) == (vals[1] == k),
                                           (dot_claim(dots[k]),), name="mirror"))
        return Model(domains=doms, constraints=cons, fact=lambda x, k: ("InRegion", {"r": x[0], "c": x[1], "dot": k}),
                     solution={x: sol[x[0]][x[1]] for x in cells})


PACK = GALAXIES = GalaxiesPack(
    puzzle="galaxies",
    family="galaxies",
    kinds={
        "InRegion": {"r": "r", "c": "c", "dot": "count"},
        "SameRegion": {"a": "cell", "b": "cell"},
        "DiffRegion": {"a": "cell", "b": "cell"},
        "Dot": {"r2": "count", "c2": "count"},
        **CONTRADICTION,
    },
    solution_kinds=frozenset({"InRegion", "SameRegion", "DiffRegion"}),
    clue_kinds=frozenset({"Dot"}),
    rules=generic_rules({"InRegion", "SameRegion", "DiffRegion"}, negative={"DiffRegion"}, clues={"Dot"}),
    aliases=ALIASES,
    claim_notes=("InRegion: cell (r, c) lies in the region of dot number `dot` (the index into the state's dots). "
                 "SameRegion / DiffRegion: two cells a, b ([r, c], a before b) lie in one region or in two. "
                 "Dot: a dot of the puzzle at half-cell position (r2, c2), where cell (r, c) has centre (2r, 2c)."),
    opposites={"SameRegion": "DiffRegion", "DiffRegion": "SameRegion"},
    negative_kinds=frozenset({"DiffRegion"}),
    templates={
        "InRegion": ("{cell} belongs to dot {dot}", "{cell} is in the region of dot {dot}"),
        "SameRegion": ("{a_cell} and {b_cell} are in the same region",),
        "DiffRegion": ("{a_cell} and {b_cell} are in different regions",),
        "Dot": ("there is a dot at half-cell position {r2}/{c2}", "a dot sits at half-cell {r2}/{c2}"),
    },
)
