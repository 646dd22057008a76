"""Loopy's claims (docs/specs/grid_puzzles.md §7), on the dots.

Square grid: ``Edge {a: [r, c], b: [r, c], on}`` (the loop uses the grid line between two neighbouring
dots, or not), ``OnPath``/``OffPath {r, c}`` (a dot is on the loop or not) solution; C* is every line of
the loop with on=true. Clue ``Clue {r, c, n}``: face (r, c) shows the number n.

The other tilings (triangular, honeycomb ...): dot d is written [0, d] (the answer cell it numbers), so ``Edge {a: [0, d],
b: [0, e], on}`` names the edge between dots d and e and ``OnPath``/``OffPath {r: 0, c: d}`` dot d; a clue is
``Clue {face, n}``: face number ``face`` shows n. C* is every edge of the loop with on=true.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimError, ClaimRules, cell_field, inside, int_field, label_line, line_claims, verdict
from . import board
from .tiling import tiling

KINDS = {"Edge": "solution", "OnPath": "solution", "OffPath": "solution", "Clue": "clue",
         "Contradiction": "state"}


def _tiled(instance: Instance):
    st = instance.data["state"]
    return tiling(st["tiling"], *st["size"], st["grid_desc"]) if st.get("tiling") else None


def label_solution(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    t = _tiled(instance)
    if t is None:
        return label_line(instance, kind, p, sol, H, W)
    on_loop = board.loop_edges(t, sol[0])
    if kind == "Edge":
        a, b = cell_field(p, "a"), cell_field(p, "b")
        on = p.get("on", True)
        if not isinstance(on, bool):
            raise ClaimError(f"claim field 'on' must be true or false, got {on!r}")
        e = t.edge_index.get((a[1], b[1])) if a[0] == b[0] == 0 else None
        return verdict(e is not None and (e in on_loop) == on)
    r, c = int_field(p, "r"), int_field(p, "c")
    if r != 0 or not 0 <= c < len(t.dots):
        return verdict(False)
    return verdict((sol[0][c] > 0) == (kind == "OnPath"))


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    t = _tiled(instance)
    if t is None:
        return line_claims(instance, sol)
    return [{"type": "Edge", "a": [0, min(t.edges[e])], "b": [0, max(t.edges[e])], "on": True}
            for e in sorted(board.loop_edges(t, sol[0]))]


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    clues = instance.data["state"]["clues"]
    if _tiled(instance) is not None:
        f, n = int_field(p, "face"), int_field(p, "n")
        return verdict(0 <= f < len(clues) and clues[f] == n >= 0)
    r, c, n = int_field(p, "r"), int_field(p, "c"), int_field(p, "n")
    return verdict(inside(H - 1, W - 1, r, c) and clues[r][c] == n >= 0)


RULES = ClaimRules(KINDS, label_solution, minimal, clue=label_clue)
