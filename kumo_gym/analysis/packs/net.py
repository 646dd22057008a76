"""Net: grid_puzzles.md §5, §7; reasoning_graphs.md §6 "Other puzzles".

Claims: ``TileDirs{r,c,dirs}`` (the solved tile's pipe directions in URDL order; C* = one per
cell), ``Link{a,b,on}`` (two neighbouring cells ``[r, c]``, ``a < b``, joined by a pipe or not)
as solution claims; ``Tile{r,c,type}`` (the tile's type E, I, C, T or X) and ``Ends{r,c,n}`` (how
many pipe ends it has) as clue claims; ``Contradiction``. Orientations never appear in claims:
symmetric tiles have several, and claims speak of the connections they give.

Deduction model: one variable per tile, its domain the distinct connection sets of its type that
point nowhere off the grid (or through a barrier); neighbouring tiles agree on the pipe between
them. The global rule (one tree) is left to probing.
"""
from __future__ import annotations

import re
from typing import Any

from ...envs.grid.geometry import OPPOSITE, step
from ...envs.grid.tatham.net import CANONICAL, rotate
from ..deduce import Constraint, Model
from ..reading import Found, PhraseReader
from ..schema import Pack
from ..text import Norm
from .common import ALIASES, CONTRADICTION, generic_rules

_C = r"@(\d+)@"
_PATTERNS = (
    (re.compile(rf"{_C} and {_C} are not (?:joined|connected)\b"), "Link", {"on": False}),
    (re.compile(rf"{_C} and {_C} are (?:joined|connected)\b"), "Link", {"on": True}),
    (re.compile(rf"\bthe tile at {_C} has ([1-4]) (?:pipe )?ends?\b"), "Ends", {}),
    (re.compile(rf"{_C} (?:holds|is) an? ([eictx]) tile\b"), "Tile", {}),
    (re.compile(rf"{_C} (?:connects|points|opens) ([urdl]{{1,4}})\b"), "TileDirs", {}),
    (re.compile(rf"\bthe pipes of {_C} go ([urdl]{{1,4}})\b"), "TileDirs", {}),
)


def _dirs(text: str) -> str:
    return "".join(d for d in "URDL" if d in text.upper())


class NetReader(PhraseReader):
    def read(self, norm: Norm) -> list[Found]:
        out, masked = [], norm.text
        for rx, kind, fixed in _PATTERNS:
            for m in rx.finditer(masked):
                cell = lambda g, m=m: [x - self.offset for x in norm.coords[int(m.group(g))]]
                if kind == "Link":
                    a, b = sorted([cell(1), cell(2)])
                    payload = {"a": a, "b": b, **fixed}
                else:
                    (r, c), arg = cell(1), m.group(2)
                    payload = {"r": r, "c": c}
                    payload.update({"n": int(arg)} if kind == "Ends" else {"type": arg.upper()} if kind == "Tile"
                                   else {"dirs": _dirs(arg)})
                out.append(Found(kind, payload, m.start(), True, m.end(), m.start()))
                masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
        return out


class NetPack(Pack):
    def reader(self, offset: int):
        return NetReader(self, offset)

    def env_claim(self, kind: str, payload: dict) -> dict:
        return {"type": kind, "payload": payload}  # Tile's own "type" field would hide the claim kind

    def template_variant(self, kind: str, payload: dict) -> str:
        return ("on" if payload.get("on") else "off") if kind == "Link" else ""

    def grid_claims(self, instance: Any, grid: list) -> list:
        tiles = instance.data["state"]["tiles"]
        return [("TileDirs", {"r": r, "c": c, "dirs": rotate(CANONICAL[tiles[r][c]["type"]], v)})
                for r, row in enumerate(grid) for c, v in enumerate(row) if v in (0, 90, 180, 270)]

    def clue_claims(self, instance: Any) -> list:
        tiles = instance.data["state"]["tiles"]
        out = [("Tile", {"r": r, "c": c, "type": t["type"]}) for r, row in enumerate(tiles) for c, t in enumerate(row)]
        return out + [("Ends", {"r": r, "c": c, "n": len(t["dirs"])}) for r, row in enumerate(tiles) for c, t in enumerate(row)]

    def deduction_model(self, instance: Any) -> Model:
        st, sol = instance.data["state"], instance.data["solution"]
        H, W = len(st["tiles"]), len(st["tiles"][0])
        wrap, bars = bool(st["wrap"]), frozenset(map(tuple, st["barriers"]))
        cells = [(r, c) for r in range(H) for c in range(W)]
        kind = {x: st["tiles"][x[0]][x[1]]["type"] for x in cells}
        shapes = {x: {rotate(CANONICAL[kind[x]], o) for o in (0, 90, 180, 270)} for x in cells}
        doms = {x: tuple(sorted(d for d in shapes[x] if all(step(*x, e, H, W, wrap, bars) for e in d))) for x in cells}
        cons = []
        for x in cells:
            for d in "RD":
                y = step(*x, d, H, W, wrap, bars)
                if y is not None and y != x:
                    clues = (("Tile", {"r": x[0], "c": x[1], "type": kind[x]}), ("Tile", {"r": y[0], "c": y[1], "type": kind[y]}))
                    cons.append(Constraint((x, y), lambda vals, d=d: (d in vals[0]) == (OPPOSITE[d] in vals[1]), clues,
                                           name="pipe"))
        return Model(domains=doms, constraints=cons, fact=lambda x, v: ("TileDirs", {"r": x[0], "c": x[1], "dirs": v}),
                     solution={x: rotate(CANONICAL[kind[x]], sol[x[0]][x[1]]) for x in cells})


PACK = NET = NetPack(
    puzzle="net",
    family="net",
    kinds={
        "TileDirs": {"r": "r", "c": "c", "dirs": "dirs"},
        "Link": {"a": "cell", "b": "cell", "on": "bool"},
        "Tile": {"r": "r", "c": "c", "type": "sym"},
        "Ends": {"r": "r", "c": "c", "n": "count"},
        **CONTRADICTION,
    },
    solution_kinds=frozenset({"TileDirs", "Link"}),
    clue_kinds=frozenset({"Tile", "Ends"}),
    rules=generic_rules({"TileDirs", "Link"}, clues={"Tile", "Ends"}),
    aliases=ALIASES,
    claim_notes=("TileDirs: the directions (letters of URDL, in that order) the pipes of the tile at (r, c) point in "
                 "once solved. Link: whether neighbouring cells a and b ([r, c], a before b) are joined by a pipe (on). "
                 "Tile: the tile's type, E end, I straight, C corner, T tee, X cross; Ends: how many pipe ends it has."),
    phrases=(),
    templates={
        "TileDirs": ("{cell} connects {dirs}", "the pipes of {cell} go {dirs}"),
        "Link:on": ("{a_cell} and {b_cell} are joined",),
        "Link:off": ("{a_cell} and {b_cell} are not joined",),
        "Tile": ("{cell} holds a {type} tile",),
        "Ends": ("the tile at {cell} has {n} ends",),
    },
)
