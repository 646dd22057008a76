"""Loopy: docs/grid.md "Loopy"; docs/specs/grid_puzzles.md §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims (on the grid of dots, face (r, c) having the dots (r, c) and (r + 1, c + 1) at two of its
corners): ``Edge{a,b,on}`` (solution: the loop uses the grid line between two neighbouring dots, or
not; C* = every line of the loop with on=true), ``OnPath{r,c}`` / ``OffPath{r,c}`` (solution: the
dot is on the loop, or not), ``Clue{r,c,n}`` (clue: face (r, c) shows n), ``Contradiction``. Edge
claims are read by the line reader of Train Tracks and Pearl ("the loop joins (1, 2) and (1, 3)").

Deduction model: every grid line is a true/false variable; each dot has two of its lines or none;
each number counts the lines round its face. The one-loop rule is global and is left to probing
(and the stated fallback), as in Pearl.
"""
from __future__ import annotations

from typing import Any

from ...envs.grid.loopy import board
from ...envs.grid.loopy.geometry import face_sides
from ...envs.grid.loopy.tiling import tiling
from ..deduce import Constraint, Model
from ..reading import Phrase
from .common import CLUE_PHRASES, CLUE_TEMPLATES, cell_claims, cell_fields
from .tracks import EDGE_TEMPLATES, PATH_PHRASES, LinePack, line_schema


class LoopyPack(LinePack):
    def deduction_model(self, instance: Any) -> Model:
        return _loopy_model(instance)

    def clue_claims(self, instance: Any) -> list:
        if instance.data["state"].get("tiling"):
            return [("Clue", {"face": f, "n": n}) for f, n in enumerate(instance.data["state"]["clues"]) if n >= 0]
        return cell_claims("Clue", instance.data["state"]["clues"], "n", lambda v: v >= 0)


PACK = LOOPY = LoopyPack(
    puzzle="loopy",
    **line_schema({"Clue": cell_fields(n="count")}),
    claim_notes=("Edge: the loop uses the grid line between neighbouring dots a and b ([r, c] each; on=false: it "
                 "does not). OnPath / OffPath: dot (r, c) is on / off the loop. Clue: face (r, c), whose corners "
                 "are the dots (r, c) to (r + 1, c + 1), shows the number n of its sides on the loop."),
    phrases=(Phrase("Clue", r"\bthe (?:clue|number) (?:at|in|on) {cell} ?,? (?:which is|is|=|says|:) {n}\b"),)
            + CLUE_PHRASES + PATH_PHRASES,
    templates={**EDGE_TEMPLATES, **CLUE_TEMPLATES},
)


def _loopy_model(instance: Any) -> Model:
    """Grid lines as true/false variables; per dot "two lines or none"; per number its face's count."""
    if instance.data["state"].get("tiling"):
        return _tiled_model(instance)
    clues = instance.data["state"]["clues"]
    H, W = len(clues), len(clues[0])
    sol = instance.data["solution"]
    lines = [((r, c), (r, c + 1)) for r in range(H + 1) for c in range(W)] + \
            [((r, c), (r + 1, c)) for r in range(H) for c in range(W + 1)]
    where = {v: (r, c) for r, row in enumerate(sol) for c, v in enumerate(row) if v > 0}
    on = {e: False for e in lines}
    for k, a in where.items():
        on[tuple(sorted((a, where[k % len(where) + 1])))] = True
    cons = []
    for r in range(H + 1):
        for c in range(W + 1):
            inc = tuple(e for e in lines if (r, c) in e)
            cons.append(Constraint(inc, lambda vals: sum(vals) in (0, 2), reason="the loop enters and leaves a dot once",
                                   name="degree"))
    for r, row in enumerate(clues):
        for c, n in enumerate(row):
            if n >= 0:
                cons.append(Constraint(tuple(face_sides(r, c)), lambda vals, n=n: sum(vals) == n,
                                       (("Clue", {"r": r, "c": c, "n": n}),), name="face count"))
    return Model(domains={v: (True, False) for v in lines}, constraints=cons,
                 fact=lambda v, x: ("Edge", {"a": list(v[0]), "b": list(v[1]), "on": bool(x)}), solution=on)


def _tiled_model(instance: Any) -> Model:
    """The same on the other tilings: an edge is the pair of answer cells ((0, a), (0, b)) of its
    dots."""
    st = instance.data["state"]
    t = tiling(st["tiling"], *st["size"], st["grid_desc"])
    name = [((0, min(a, b)), (0, max(a, b))) for a, b in t.edges]
    loop = board.loop_edges(t, instance.data["solution"][0])
    cons = [Constraint(tuple(name[e] for e in es), lambda vals: sum(vals) in (0, 2),
                       reason="the loop enters and leaves a dot once", name="degree") for es in t.dot_edges]
    cons += [Constraint(tuple(name[e] for e in t.face_edges[f]), lambda vals, n=n: sum(vals) == n,
                        (("Clue", {"face": f, "n": n}),), name="face count")
             for f, n in enumerate(st["clues"]) if n >= 0]
    return Model(domains={v: (True, False) for v in name}, constraints=cons,
                 fact=lambda v, x: ("Edge", {"a": list(v[0]), "b": list(v[1]), "on": bool(x)}),
                 solution={name[e]: e in loop for e in range(len(name))})
