"""Rectangles' claims (docs/specs/grid_puzzles.md §7).

``Rect {r0, c0, r1, c1}`` (corners inclusive; C* = one per rectangle), ``NotRect`` (that
rectangle is not one of the solution's), ``SameRegion`` / ``DiffRegion {a, b}`` (cells
``[r, c]``) solution; ``Clue {r, c, n}`` clue.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import INCORRECT, ClaimRules, cell_field, inside, int_field, verdict
from ..regions import label_classes, rect_of

KINDS = {"Rect": "solution", "NotRect": "solution", "SameRegion": "solution", "DiffRegion": "solution",
         "Clue": "clue", "Contradiction": "state"}


def label_solution(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    """Regions are compared, never label values."""
    if kind in ("Rect", "NotRect"):
        r0, c0, r1, c1 = (int_field(p, k) for k in ("r0", "c0", "r1", "c1"))
        if not (inside(H, W, r0, c0) and inside(H, W, r1, c1) and r0 <= r1 and c0 <= c1):
            return INCORRECT
        label = sol[r0][c0]
        cells = {(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)}
        region = cells == {(r, c) for r in range(H) for c in range(W) if sol[r][c] == label}
        return verdict(region == (kind == "Rect"))
    (ra, ca), (rb, cb) = cell_field(p, "a"), cell_field(p, "b")
    if not (inside(H, W, ra, ca) and inside(H, W, rb, cb)):
        return INCORRECT
    return verdict((sol[ra][ca] == sol[rb][cb]) == (kind == "SameRegion"))


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    r, c = int_field(p, "r"), int_field(p, "c")
    return verdict(inside(H, W, r, c) and instance.data["state"]["grid"][r][c] == int_field(p, "n")
                   and int_field(p, "n") > 0)


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    return [dict(zip(("type", "r0", "c0", "r1", "c1"), ("Rect", *rect_of(cells))))
            for cells in label_classes(sol).values()]


RULES = ClaimRules(KINDS, label_solution, minimal, clue=label_clue)
