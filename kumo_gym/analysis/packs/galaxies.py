"""Galaxies: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

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

from ...envs.grid.galaxies.geometry import dot_cells
from ..deduce import Constraint, Model
from ..reading import Found, Phrase, PhraseReader
from ..schema import Pack
from ..text import Norm
from .common import cell_fields, claim_schema

_C = r"@(\d+)@"
_PATTERNS = (
    (re.compile(rf"{_C} and {_C} (?:are|lie|must be) (?:in different regions|not in the same region|in different galaxies)\b"),
     "DiffRegion"),
    (re.compile(rf"{_C} and {_C} (?:are|lie|must be) (?:both )?in the same (?:region|galaxy)\b"), "SameRegion"),
    (re.compile(rf"{_C} (?:belongs to|is in the region of|goes to) dot (\d{{1,3}})\b(?!'s region)"), "InRegion"),
    (re.compile(r"\ba dot (?:sits |lies )?at half-cell (?:position )?(\d{1,3})/(\d{1,3})\b"), "Dot"),
)
_BRACKET = r"\[ ?(\d{1,3}) ?, ?(\d{1,3}) ?\]"
#: "dot 2 is at [4, 2]", "dot 1 at [3, 4]", "dot 3 [6, 0]": the dot's position, and its index
_DOT_AT = re.compile(rf"\bdot (\d{{1,3}}),? (?:is |sits |lies )?(?:at |= ?|: ?)?{_BRACKET}")
_DOT_POS = re.compile(rf"\b(?:the )?dot (?:is |sits |lies )?(?:at |= ?|: ?)?{_BRACKET}")
#: "the dots are [1, 1], [1, 5] and [5, 1]", "the last three dots, [8, 4], [8, 6] and [8, 8]"
_DOT_LIST = re.compile(rf"\bdots\b(?:(?: are| sit| lie)?(?: at)?|:|,) ((?:{_BRACKET.replace('(', '(?:')}(?: ?,? ?(?:and )?)?){{1,40}})")
#: "since dot 0 touches ...": a known dot named as the subject of what it does
_DOT_SUBJECT = re.compile(r"\bdot (\d{1,3}) (?=touches|covers|sits|lies|has|needs|owns)")


class GalaxiesReader(PhraseReader):
    """Cell pairs and dot positions by pattern, then the pack's phrases ("X and Y belong to dot 2",
    "dot 1's region includes X"); remembers each dot's position once the trace gives it ("dot 0 is
    at [1, 7]"), so that "since dot 0 touches ..." names that dot."""

    def __init__(self, pack: Any, offset: int):
        super().__init__(pack, offset)
        self.where: dict = {}

    def read(self, norm: Norm) -> list[Found]:
        out, masked = [], norm.text

        def mask(a: int, b: int) -> None:
            nonlocal masked
            masked = masked[:a] + " " * (b - a) + masked[b:]

        for m in _DOT_AT.finditer(masked):
            self.where[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
            out.append(Found("Dot", {"r2": int(m.group(2)), "c2": int(m.group(3))}, m.start(), True, m.end(), m.start()))
            mask(m.start(), m.end())
        for m in _DOT_LIST.finditer(masked):
            for p in re.finditer(_BRACKET, m.group(1)):
                out.append(Found("Dot", {"r2": int(p.group(1)), "c2": int(p.group(2))}, m.start(1) + p.start(), True,
                                 m.start(1) + p.end(), m.start()))
            mask(m.start(), m.end())
        for m in _DOT_POS.finditer(masked):
            out.append(Found("Dot", {"r2": int(m.group(1)), "c2": int(m.group(2))}, m.start(), True, m.end(), m.start()))
            mask(m.start(), m.end())
        for m in _DOT_SUBJECT.finditer(masked):
            if int(m.group(1)) in self.where:
                r2, c2 = self.where[int(m.group(1))]
                out.append(Found("Dot", {"r2": r2, "c2": c2}, m.start(), True, m.end(), m.start()))
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
                mask(m.start(), m.end())
        return out + super().read(Norm(masked, norm.coords))


def dot_claim(dot) -> tuple:
    return ("Dot", {"r2": int(dot[0]), "c2": int(dot[1])})


class GalaxiesPack(Pack):
    reader_class = GalaxiesReader

    def grid_claims(self, instance: Any, grid: list) -> list:
        return [("InRegion", {"r": r, "c": c, "dot": v}) for r, row in enumerate(grid) for c, v in enumerate(row)
                if isinstance(v, int) and v >= 0]

    def clue_claims(self, instance: Any) -> list:
        return [dot_claim(d) for d in instance.data["state"]["dots"]]

    def referents(self, kind: str, payload: dict) -> frozenset:
        """A dot is about the cells it touches (its centre cell, the two cells of its edge or the
        four of its corner)."""
        if kind == "Dot":
            return frozenset(("cell", r, c) for r, c in dot_cells((payload["r2"], payload["c2"])))
        return super().referents(kind, payload)

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
    **claim_schema(
        {"InRegion": cell_fields(dot="count"),
         "SameRegion": {"a": "cell", "b": "cell"},
         "DiffRegion": {"a": "cell", "b": "cell"}},
        {"Dot": {"r2": "count", "c2": "count"}},
        opposite={"SameRegion": "DiffRegion"},
    ),
    claim_notes=("InRegion: cell (r, c) lies in the region of dot number `dot` (the index into the state's dots). "
                 "SameRegion / DiffRegion: two cells a, b ([r, c], a before b) lie in one region or in two. "
                 "Dot: a dot of the puzzle at half-cell position (r2, c2), where cell (r, c) has centre (2r, 2c)."),
    phrases=(
        *Phrase.group("InRegion", r"{subj}{cells} (?:all |both |also )?(?:belongs?|must belong|belong) to dot {n:dot}\b",
                                  r"{subj}{cells} {be} (?:all |both |also )?(?:in|part of|inside) dot {n:dot}'s (?:region|galaxy)",
                                  r"{subj}{cells} {be} (?:all |both |also )?(?:in|part of|inside) the (?:region|galaxy) of dot {n:dot}\b",
                                  r"{subj}{cells} {be} (?:all |both |also )?in dot {n:dot}\b(?!')",
                                  r"{cell} ?,? which (?:is|lies) (?:also |already |now )?in dot {n:dot}(?:'s (?:region|galaxy)|\b(?!'))",
                                  r"\bdot {n:dot}'s (?:region|galaxy) (?:also )?(?:includes|contains|takes|gets|covers) {cells}",
                                  r"\b(?:assign|give|put) {cells} (?:to|in|into) dot {n:dot}\b"),
    ),
    templates={
        "InRegion": ("{cell} belongs to dot {dot}", "{cell} is in the region of dot {dot}"),
        "SameRegion": ("{a_cell} and {b_cell} are in the same region",),
        "DiffRegion": ("{a_cell} and {b_cell} are in different regions",),
        "Dot": ("there is a dot at half-cell position {r2}/{c2}", "a dot sits at half-cell {r2}/{c2}"),
    },
)
