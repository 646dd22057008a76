"""Pearl: docs/specs/grid_puzzles.md §5, §7; docs/specs/reasoning_graphs.md §6 "Other puzzles".

Claims: ``Edge{a,b,on}`` (solution: the loop joins the two neighbouring cells, or not; C* = every
edge of the loop with on=true), ``OnPath{r,c}`` / ``OffPath{r,c}`` (solution: the cell is on the
loop, or not), ``Pearl{r,c,color}`` (clue), ``Contradiction``. Edge claims are read by the line
reader shared with Train Tracks ("the loop joins (1, 2) and (1, 3)").

Deduction model: every edge is a true/false variable; each cell has 0 or 2 of its edges; each
pearl's rule reads the edges of its cell and of the cells beyond. The one-loop rule is global and
is left to probing (and the stated fallback).
"""
from __future__ import annotations

from typing import Any

from ..reading import Phrase
from .common import cell_fields, state_grid
from .tracks import EDGE_TEMPLATES, PATH_PHRASES, LinePack, line_schema


class PearlPack(LinePack):
    def template_variant(self, kind: str, payload: dict) -> str:
        if kind == "Pearl":
            return str(payload.get("color", "")).upper()
        return super().template_variant(kind, payload)

    def deduction_model(self, instance: Any):
        return _pearl_model(instance)

    def clue_claims(self, instance: Any) -> list:
        grid = instance.data["state"]["grid"]
        return [("Pearl", {"r": r, "c": c, "color": "BLACK" if v == "B" else "WHITE"})
                for r, row in enumerate(grid) for c, v in enumerate(row) if v in ("B", "W")]


PACK = PEARL = PearlPack(
    puzzle="pearl",
    **line_schema({"Pearl": cell_fields(color="color")}),
    claim_notes=("Edge: the loop joins neighbouring cells a and b ([r, c] each; on=false: it does not). OnPath / "
                 "OffPath: cell (r, c) is on / off the loop. Pearl: a BLACK or WHITE pearl at (r, c)."),
    phrases=tuple(
        p for colour in ("black", "white") for p in (
            *Phrase.group("Pearl", rf"{{subj}}{{cells}} (?:is|are|holds|has) (?:a |the )?{colour} pearls?\b",
                                   rf"\b(?:there is |there's )?(?:a |the )?{colour} pearls? (?:at|in|on) {{cells}}",
                                   fixed={"color": colour.upper()}),
        )) + PATH_PHRASES,
    templates={
        **EDGE_TEMPLATES,
        "Pearl:BLACK": ("{cell} is a black pearl", "there is a black pearl at {cell}"),
        "Pearl:WHITE": ("{cell} is a white pearl", "the white pearl at {cell}"),
    },
)


def _edge(a, b) -> tuple:
    return tuple(sorted((a, b)))


def _pearl_model(instance: Any):
    """Edges as true/false variables; per cell "the loop enters and leaves once or not at all";
    per pearl its rule over the edges of the cell and of the cells beyond (a 3x3 neighbourhood).
    The one-loop rule is global and not modelled (probing and the stated fallback cover it)."""
    from ..deduce import Constraint, Model

    grid, H, W = state_grid(instance)
    sol = instance.data["solution"]
    steps = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}
    edges = [_edge((r, c), (r, c + 1)) for r in range(H) for c in range(W - 1)] + \
            [_edge((r, c), (r + 1, c)) for r in range(H - 1) for c in range(W)]
    on = {e: False for e in edges}
    where = {v: (r, c) for r, row in enumerate(sol) for c, v in enumerate(row) if v > 0}
    for k, a in where.items():
        on[_edge(a, where[k % len(where) + 1])] = True

    def e(x, d, k=1):
        a = (x[0] + steps[d][0] * (k - 1), x[1] + steps[d][1] * (k - 1))
        b = (a[0] + steps[d][0], a[1] + steps[d][1])
        return _edge(a, b) if 0 <= b[0] < H and 0 <= b[1] < W and 0 <= a[0] < H and 0 <= a[1] < W else None

    cons = []
    for r in range(H):
        for c in range(W):
            x = (r, c)
            inc = tuple(e(x, d) for d in "URDL" if e(x, d))
            cons.append(Constraint(inc, lambda vals: sum(vals) in (0, 2), reason="the loop enters and leaves a cell once",
                                   name="degree"))
            colour = grid[r][c]
            if colour not in ("B", "W"):
                continue
            near = {(d, k): e(x, d, k) for d in "URDL" for k in (1, 2)}
            vars_ = tuple(sorted({v for v in near.values() if v}))

            def ok(vals, near=near, vars_=vars_, black=colour == "B"):
                val = dict(zip(vars_, vals))
                has = {key: bool(edge and val[edge]) for key, edge in near.items()}
                if sum(has[d, 1] for d in "URDL") != 2:
                    return False
                straight = (has["L", 1] and has["R", 1]) or (has["U", 1] and has["D", 1])
                beyond = [has[d, 2] for d in "URDL" if has[d, 1]]
                return (not straight and all(beyond)) if black else (straight and not all(beyond))

            cons.append(Constraint(vars_, ok, (("Pearl", {"r": r, "c": c, "color": "BLACK" if colour == "B" else "WHITE"}),),
                                   name="pearl"))
    return Model(domains={v: (True, False) for v in edges}, constraints=cons,
                 fact=lambda v, x: ("Edge", {"a": list(v[0]), "b": list(v[1]), "on": bool(x)}), solution=on)

