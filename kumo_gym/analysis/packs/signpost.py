"""Signpost: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Cell{r,c,v}`` / ``NotCell{r,c,v}`` (solution; C* = every cell), ``Given{r,c,v}`` and
``Arrow{r,c,dir}`` (clues: ``dir`` one of N, NE, E, SE, S, SW, W, NW), ``Cand`` (state),
``Contradiction``.

Deduction model: one variable per cell (its number), the whole grid as one unit (every number
once), the arrowless cell holds W*H, a cell no arrow points at holds 1, and per arrow "this
cell's number plus one lies on its ray" (reading the cell's Arrow claim).
"""
from __future__ import annotations

from typing import Any

from ...envs.grid.geometry import ray
from ...envs.grid.signpost.codec import DIRS, STEP
from ..deduce import Constraint, Model
from ..reading import Phrase
from ..schema import Pack
from .common import CELL_VALUE, cell_fields, value_pack

WORDS = {"N": "north", "NE": "north-east", "E": "east", "SE": "south-east", "S": "south", "SW": "south-west",
         "W": "west", "NW": "north-west"}


def chain_support(step: int):
    """Supports of "the first cell's number plus ``step`` is held by one of the other cells"
    (step +1: the arrow's next number lies on the ray; -1: the previous number points in)."""
    def support(doms: list) -> list:
        head, rest = doms[0], doms[1:]
        ok_head = {x for x in head if any(x + step in d for d in rest)}
        if not ok_head:
            return [set() for _ in doms]
        out = [ok_head]
        for i, d in enumerate(rest):
            others = any(x + step in e for x in ok_head for j, e in enumerate(rest) if j != i)
            out.append(set(d) if others else {y for y in d if y - step in ok_head})
        return out

    return support


def arrow_claim(r: int, c: int, d: str) -> tuple:
    return ("Arrow", {"r": r, "c": c, "dir": d})


class SignpostPack(Pack):
    def clue_claims(self, instance: Any) -> list:
        st = instance.data["state"]
        out = [("Given", {"r": r, "c": c, "v": v}) for r, row in enumerate(st["givens"]) for c, v in enumerate(row) if v]
        return out + [arrow_claim(r, c, d) for r, row in enumerate(st["arrows"]) for c, d in enumerate(row) if d]

    def deduction_model(self, instance: Any) -> Model:
        st, sol = instance.data["state"], instance.data["solution"]
        arrows, givens = st["arrows"], st["givens"]
        H, W = len(arrows), len(arrows[0])
        n = H * W
        cells = [(r, c) for r in range(H) for c in range(W)]
        into: dict = {}
        cons = []
        for a in cells:
            d = arrows[a[0]][a[1]]
            if d is None:
                cons.append(Constraint((a,), lambda vals: vals[0] == n, reason="the cell without an arrow ends the chain",
                                       name="last cell"))
                continue
            seen = tuple(ray(a[0], a[1], STEP[d], H, W))
            for b in seen:
                into.setdefault(b, []).append(a)
            cons.append(Constraint((a, *seen), lambda vals: vals[0] < n and vals[0] + 1 in vals[1:],
                                   (arrow_claim(a[0], a[1], d),), name="arrow", support=chain_support(1)))
        for b in cells:
            if b not in into:
                cons.append(Constraint((b,), lambda vals: vals[0] == 1, reason="no arrow points at it", name="start"))
        return Model(domains={x: tuple(range(1, n + 1)) for x in cells}, constraints=cons, units=[tuple(cells)],
                     fact=lambda v, x: ("Cell", {"r": v[0], "c": v[1], "v": x}),
                     exclusion=lambda v, x: ("NotCell", {"r": v[0], "c": v[1], "v": x}),
                     givens={(r, c): givens[r][c] for r, c in cells if givens[r][c]},
                     given_fact=lambda v, x: ("Given", {"r": v[0], "c": v[1], "v": x}),
                     solution={(r, c): sol[r][c] for r, c in cells})


#: screen directions models use beside the compass ("points down-right")
SCREEN = {"N": "up", "NE": "up-right", "E": "right", "SE": "down-right", "S": "down", "SW": "down-left", "W": "left",
          "NW": "up-left"}


def _arrow_phrases() -> tuple:
    # compound directions first: "points ne" must not be read as "points n"
    order = sorted(DIRS, key=len, reverse=True)
    out = []
    for d in order:
        words = {d.lower(), WORDS[d], WORDS[d].replace("-", " "), WORDS[d].replace("-", ""), SCREEN[d],
                 SCREEN[d].replace("-", " "), SCREEN[d].replace("-", " and ")}
        # longest first (a longer phrase must win), ties in a fixed order (a set iterates by hash)
        way = "(?:" + "|".join(sorted(words, key=lambda w: (-len(w), w))) + r")(?![\w-])"
        out += [Phrase("Arrow", rf"\barrow (?:at|in|on|of) {{cell}} (?:points|goes|leads|is) (?:to the )?{way}", {"dir": d}),
                *Phrase.group("Arrow", rf"{{subj}}{{cell}}(?:'s arrow)? (?:points|goes|leads) (?:to the )?{way}",
                                       rf"{{subj}}{{cell}} (?:has|holds) (?:an? )?{way} arrow",
                                       rf"\b(?:the |an? )?{way} arrow (?:at|in|on) {{cell}}",
                                       fixed={"dir": d})]
    return tuple(out)


PACK = SIGNPOST = SignpostPack(
    puzzle="signpost",
    **value_pack(
        {"Given": CELL_VALUE, "Arrow": cell_fields(dir="sym")}, _arrow_phrases(),
        # NotCell clauses never end in the number: the synthetic trace joins clauses with commas, and
        # "(2, 2) is not 6, 5 cannot go in (1, 1)" or "a given 1 and 7 cannot go in" read as lists
        templates={"NotCell": ("{cell} cannot be {v} here", "{cell} cannot hold {v} here"),
                   "Arrow": ("the arrow at {cell} points {dir}", "the arrow in {cell} leads {dir}")},
    ),
    claim_notes=("Cell states a cell's number, NotCell rules one out. Arrow is the arrow of a cell: dir one of N, NE, "
                 "E, SE, S, SW, W, NW (N is up). Given is a number shown in the puzzle."),
)
