"""Filling: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Cell{r,c,v}`` / ``NotCell{r,c,v}`` (solution; C* = every cell), ``Given{r,c,v}`` (clue:
a given digit), ``Cand`` (state), ``Contradiction``.

Deduction model: one variable per cell (digits 1-9), the givens fixed; two 1s never touch; a
digit above 1 needs a neighbour with the same digit; a digit d needs room: the cells reachable
from it through cells that may still hold d number at least d (each checked by its own support
function rather than by enumeration).
"""
from __future__ import annotations

import re
from typing import Any

from ..deduce import Constraint, Model
from ..reading import Found, Phrase, PhraseReader
from ..schema import Pack
from ..text import Norm
from .common import CELL_VALUE, neighbours4, state_grid, value_pack

DIGITS = tuple(range(1, 10))
#: how far the "room" check looks (cells within this distance; digits above ROOM + 1 always fit)
ROOM = 3


def _company(doms: list) -> list:
    """Support of "the first cell holds 1, or one of the others (its neighbours) holds its digit"."""
    centre, others = doms[0], doms[1:]
    ok = {v for v in centre if v == 1 or any(v in d for d in others)}
    out = [ok]
    for j, d in enumerate(others):
        rest = [o for k, o in enumerate(others) if k != j]
        out.append({u for u in d if any(v == 1 or v == u or any(v in o for o in rest) for v in ok)} if ok else set())
    return out


def _room(order: list, H: int, W: int):
    """Support for "the first cell's digit d has d cells reachable through cells that may hold d"
    over ``order`` (the cells within distance ROOM, the first one the centre)."""
    where = {cell: i for i, cell in enumerate(order)}
    adj = [[where[n] for n in neighbours4(*cell, H, W) if n in where] for cell in order]  # by index in order

    def support(doms: list) -> list:
        keep = set()
        for d in doms[0]:
            seen, stack = {0}, [0]
            while stack and len(seen) < d:
                for n in adj[stack.pop()]:
                    if n not in seen and d in doms[n]:
                        seen.add(n)
                        stack.append(n)
            if len(seen) >= d or d > ROOM + 1:
                keep.add(d)
        return [keep] + [set(d) if keep else set() for d in doms[1:]]

    return support


#: a sentence listing the puzzle's givens ("The givens are a 4 at (0, 0), a 3 at (1, 2) ...")
_LISTS_GIVENS = re.compile(r"^(?:the )?(?:givens?|given (?:digits|numbers|cells|clues)|clues)(?: are|:| :| include)")


class FillingReader(PhraseReader):
    """The phrase reader, remembering the givens the trace has named: a digit stated later at a
    given's cell ("because r1c3 is a 1", "the 1 at (2, 0)") is that given, not a placed digit."""

    def __init__(self, pack: Any, offset: int):
        super().__init__(pack, offset)
        self.givens: set = set()

    def read(self, norm: Norm) -> list[Found]:
        out = super().read(norm)
        listing = _LISTS_GIVENS.match(norm.text) is not None
        for f in sorted(out, key=lambda f: f.kind != "Given"):
            key = (f.payload["r"], f.payload["c"], f.payload.get("v")) if "r" in f.payload else None
            if f.kind == "Cell" and (listing or key in self.givens):
                f.kind = "Given"
            if f.kind == "Given":
                self.givens.add(key)
        return out


class FillingPack(Pack):
    reader_class = FillingReader

    def clue_claims(self, instance: Any) -> list:
        grid = instance.data["state"]["grid"]
        return [("Given", {"r": r, "c": c, "v": v}) for r, row in enumerate(grid) for c, v in enumerate(row) if v]

    def deduction_model(self, instance: Any) -> Model:
        grid, H, W = state_grid(instance)
        sol = instance.data["solution"]
        cells = [(r, c) for r in range(H) for c in range(W)]
        cons = []
        for r, c in cells:
            around = tuple(neighbours4(r, c, H, W))
            for n in around:
                if n > (r, c):
                    cons.append(Constraint(((r, c), n), lambda vals: not (vals[0] == 1 == vals[1]),
                                           reason="two 1s never touch", name="lonely 1"))
            cons.append(Constraint(((r, c),) + around, lambda vals: vals[0] == 1 or vals[0] in vals[1:],
                                   reason="a block of two or more has a neighbour with its digit", name="company",
                                   support=_company))
            near = [(a, b) for a, b in cells if 0 < abs(a - r) + abs(b - c) <= ROOM]
            order = [(r, c)] + near
            cons.append(Constraint(tuple(order), lambda vals: True, reason="a digit needs room for its block",
                                   name="room", support=_room(order, H, W)))
        return Model(domains={x: DIGITS for x in cells}, constraints=cons,
                     fact=lambda v, x: ("Cell", {"r": v[0], "c": v[1], "v": x}),
                     exclusion=lambda v, x: ("NotCell", {"r": v[0], "c": v[1], "v": x}),
                     givens={(r, c): v for r, row in enumerate(grid) for c, v in enumerate(row) if v},
                     given_fact=lambda v, x: ("Given", {"r": v[0], "c": v[1], "v": x}),
                     solution={(r, c): sol[r][c] for r, c in cells})


PACK = FILLING = FillingPack(
    puzzle="filling",
    **value_pack(
        {"Given": CELL_VALUE},
        # "a 4 at (0, 0)", "the 1 at (2, 0)": a digit named by its cell (a given, when the trace named it so)
        fallback=(Phrase("Cell", r"\b(?:a|an|the|another) {n:v} (?:at|in) {cell}"),),
        # a Given ending in its digit ("... is a given 6, 4 cannot go in ...") would read as a list
        templates={"Given": ("the given {v} at {cell}",)},
    ),
    claim_notes=("Cell states a cell's digit, NotCell rules one out. Given is a digit printed in the puzzle. "
                 "Every block of equal connected digits has as many cells as its digit."),
)
