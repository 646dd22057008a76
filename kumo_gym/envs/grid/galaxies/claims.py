"""Galaxies' claims (docs/specs/grid_puzzles.md §7).

``InRegion {r, c, dot}`` (cell (r, c) lies in the region of dot index ``dot``), ``SameRegion`` /
``DiffRegion {a: [r, c], b: [r, c]}`` solution; ``Dot {r2, c2}`` clue (a dot at that half-cell
position). A ``cell`` claim names the dot index as its value.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..answer import normalize_cell
from ..claims import INCORRECT, ClaimRules, inside, int_field, ints_field, verdict

KINDS = {"InRegion": "solution", "SameRegion": "solution", "DiffRegion": "solution", "Dot": "clue",
         "Contradiction": "state"}


def label_solution(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    """A cell's region named by its dot's index, or two cells in the same (or different) regions."""
    if kind in ("SameRegion", "DiffRegion"):
        a, b = (ints_field(p, k) for k in ("a", "b"))
        if len(a) != 2 or len(b) != 2 or not (inside(H, W, *a) and inside(H, W, *b)):
            return INCORRECT
        return verdict((sol[a[0]][a[1]] == sol[b[0]][b[1]]) == (kind == "SameRegion"))
    if kind == "cell":
        r, c = int_field(p, "row"), int_field(p, "col")
        if not inside(H, W, r, c):
            return INCORRECT
        return verdict((sol[r][c] == normalize_cell(p.get("value"))) != bool(p.get("negated", False)))
    r, c = int_field(p, "r"), int_field(p, "c")
    return verdict(inside(H, W, r, c) and sol[r][c] == int_field(p, "dot"))


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    return verdict([int_field(p, "r2"), int_field(p, "c2")] in [list(d) for d in instance.data["state"]["dots"]])


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    return [{"type": "InRegion", "r": r, "c": c, "dot": v} for r, row in enumerate(sol) for c, v in enumerate(row)]


RULES = ClaimRules(KINDS, label_solution, minimal, clue=label_clue, cells=True)
