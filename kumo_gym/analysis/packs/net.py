"""Net: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

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

import json
import re
from typing import Any

from ...envs.grid.geometry import OPPOSITE, step
from ...envs.grid.net.codec import CANONICAL, rotate
from ..deduce import Constraint, Model
from ..reading import Found, PhraseReader
from ..schema import Pack
from ..text import Norm
from .common import cell_fields, claim_schema

_C = r"@(\d+)@"
_WORD = r"(?:up|right|down|left|[urdl])"
#: directions as letters ("rdl") or listed ("r, d and l", "right and down", "up, down and left")
_DIRS = rf"((?:[urdl]{{2,4}}|{_WORD}(?:(?: ?,| and|, and) {_WORD}){{0,3}}))\b"
_TYPE = r"(end|straight|corner|tee|cross|t|e|i|c|x)"
_PATTERNS = (
    (re.compile(rf"\bno pipe (?:between|from) {_C} (?:and|to) {_C}"), "Link", {"on": False}),
    (re.compile(rf"{_C} and {_C} are not (?:joined|connected|linked)\b"), "Link", {"on": False}),
    (re.compile(rf"{_C} (?:is not|isn't|cannot be|can't be|must not be) (?:joined|connected|linked) (?:to|with) {_C}"),
     "Link", {"on": False}),
    (re.compile(rf"{_C} (?:does not|doesn't|cannot|can't|must not) (?:connect|join|link) (?:to|with) {_C}"), "Link", {"on": False}),
    (re.compile(rf"{_C} and {_C} are (?:also |then |both )?(?:joined|connected|linked)\b"), "Link", {"on": True}),
    (re.compile(rf"{_C} (?:is|must be|has to be) (?:also |then )?(?:joined|connected|linked) (?:to|with) {_C}"), "Link", {"on": True}),
    (re.compile(rf"{_C} (?:must |has to |then |also )?(?:connects?|joins?|links?) (?:to|with|up with) {_C}"), "Link", {"on": True}),
    (re.compile(rf"\b(?:a|the) pipe (?:between|from) {_C} (?:and|to) {_C}"), "Link", {"on": True}),
    (re.compile(rf"\bthe tile at {_C} has ([1-4]) (?:pipe )?ends?\b"), "Ends", {}),
    (re.compile(rf"{_C} (?:holds|is|has) (?:an? |the )?{_TYPE}(?: tile| piece| pipe)?\b(?! or)"), "Tile", {}),
    (re.compile(rf"\b(?:the|an?) {_TYPE} (?:tile |piece |pipe )?(?:at|in) {_C}"), "Tile", {}),
    (re.compile(rf"{_C} (?:cannot|can't|does not|doesn't|must not|should not|will not|won't) (?:also )?(?:point|face|open|connect)"
                rf"(?: to the| to)? {_DIRS}"), "NoDirs", {}),
    (re.compile(rf"{_C} (?:must |has to |should |will |can only |then |now |therefore |also |already )?(?:connects?|points?|"
                rf"opens?|faces?|runs?|pointing|facing)(?: to the| to)? {_DIRS}"), "TileDirs", {}),
    (re.compile(rf"\bthe pipes of {_C} (?:go|point) {_DIRS}"), "TileDirs", {}),
    (re.compile(rf"{_C} ?(?:=|:) ([urdl]{{1,4}})\b"), "TileDirs", {}),
)
_TYPES = {"end": "E", "straight": "I", "corner": "C", "tee": "T", "cross": "X"}


def _dirs(text: str) -> str:
    """"r, d and l", "right and down", "rdl" -> "RDL" (URDL order)."""
    got = set()
    for w in re.findall(r"\b(?:up|right|down|left|[urdl]{1,4})\b", text):
        got.update(w[0] if w in ("up", "right", "down", "left") else w)
    return "".join(d for d in "URDL" if d.lower() in got)


def _blank(text: str, a: int, b: int) -> str:
    """``text`` with ``[a, b)`` blanked except its cell tokens (a cell may still be read by another pattern)."""
    span = re.sub(r"@\d+@|.", lambda m: m.group(0) if len(m.group(0)) > 1 else " ", text[a:b])
    return text[:a] + span + text[b:]


_ENDS = {"E": 1, "I": 2, "C": 2, "T": 3, "X": 4}
_STEP = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}


def _links(r: int, c: int, dirs: str, on: bool) -> list[dict]:
    """The Link payloads of tile (r, c)'s pipes (or missing pipes) in ``dirs``."""
    return [dict(zip("ab", sorted([[r, c], [r + _STEP[d][0], c + _STEP[d][1]]])), on=on) for d in dirs]


class NetReader(PhraseReader):
    """Net's patterns; remembers each tile's type once the trace names it, so that "(0, 2) points
    right" about a tee (one of its three pipes) reads as the pipe joining (0, 2) to its right-hand
    neighbour, and "points right, down and left" as the tee's whole orientation."""

    def __init__(self, pack: Any, offset: int):
        super().__init__(pack, offset)
        self.types: dict = {}

    def read(self, norm: Norm) -> list[Found]:
        out, masked = [], norm.text
        for rx, kind, fixed in _PATTERNS:
            for m in rx.finditer(masked):
                if kind == "Link":
                    a, b = sorted([x - self.offset for x in norm.coords[int(m.group(g))]] for g in (1, 2))
                    payload = {"a": a, "b": b, **fixed}
                else:
                    k, arg = (m.group(2), m.group(1)) if kind == "Tile" and not m.group(1).isdigit() else (m.group(1), m.group(2))
                    r, c = (x - self.offset for x in norm.coords[int(k)])
                    payload = {"r": r, "c": c}
                    payload.update({"n": int(arg)} if kind == "Ends" else {"type": _TYPES.get(arg, arg.upper())}
                                   if kind == "Tile" else {"dirs": _dirs(arg)})
                if kind == "Tile":
                    self.types[(payload["r"], payload["c"])] = payload["type"]
                ends = _ENDS.get(self.types.get((payload.get("r"), payload.get("c"))), 0)
                if kind == "NoDirs" or (kind == "TileDirs" and len(payload["dirs"]) < ends):
                    out += [Found("Link", p, m.start(), True, m.end(), m.start())
                            for p in _links(payload["r"], payload["c"], payload["dirs"], kind == "TileDirs")]
                else:
                    out.append(Found(kind, payload, m.start(), True, m.end(), m.start()))
                # a tile's type or end count leaves its cell readable ("the corner at X must point down")
                masked = _blank(masked, m.start(), m.end()) if kind in ("Tile", "Ends") else \
                    masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
        return out


class NetPack(Pack):
    reader_class = NetReader

    def negates(self, a: tuple, b: tuple) -> bool:
        """A tile's orientation is negated by "it does not point that way" (a Link off from it) and
        by another orientation of the same tile; a Link by the same Link with the other ``on``."""
        pa, pb = json.loads(a[1]), json.loads(b[1])
        if a[0] == b[0] == "Link":
            return (pa["a"], pa["b"]) == (pb["a"], pb["b"]) and pa["on"] != pb["on"]
        if a[0] == b[0] == "TileDirs":
            return (pa["r"], pa["c"]) == (pb["r"], pb["c"]) and pa["dirs"] != pb["dirs"]
        if {a[0], b[0]} == {"TileDirs", "Link"}:
            t, link = (pa, pb) if a[0] == "TileDirs" else (pb, pa)
            on = {tuple(x["a"]) + tuple(x["b"]) for x in _links(t["r"], t["c"], t["dirs"], True)}
            key = tuple(link["a"]) + tuple(link["b"])
            return key in on and not link["on"]
        return super().negates(a, b)

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
    **claim_schema(
        {"TileDirs": cell_fields(dirs="dirs"), "Link": {"a": "cell", "b": "cell", "on": "bool"}},
        {"Tile": cell_fields(type="sym"), "Ends": cell_fields(n="count")},
    ),
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
