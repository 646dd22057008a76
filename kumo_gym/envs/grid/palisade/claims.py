"""Palisade's claims (docs/specs/grid_puzzles.md §7).

``SameRegion`` / ``DiffRegion {a: [r, c], b: [r, c]}`` solution (two cells in one region or in
two; C* = every pair of neighbouring cells); ``Clue {r, c, n}`` clue (cell (r, c) shows the number
n); state ``Contradiction``.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import INCORRECT, ClaimRules, cell_field, inside, int_field, verdict
from .codec import NO_CLUE

KINDS = {"SameRegion": "solution", "DiffRegion": "solution", "Clue": "clue", "Contradiction": "state"}


def label_solution(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    """Regions are compared, never label values."""
    (ra, ca), (rb, cb) = cell_field(p, "a"), cell_field(p, "b")
    if not (inside(H, W, ra, ca) and inside(H, W, rb, cb)) or (ra, ca) == (rb, cb):
        return INCORRECT
    return verdict((sol[ra][ca] == sol[rb][cb]) == (kind == "SameRegion"))


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    r, c, n = int_field(p, "r"), int_field(p, "c"), int_field(p, "n")
    return verdict(inside(H, W, r, c) and n != NO_CLUE and instance.data["state"]["clues"][r][c] == n)


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    H, W = len(sol), len(sol[0])
    out = []
    for r in range(H):
        for c in range(W):
            for rr, cc in ((r, c + 1), (r + 1, c)):
                if rr < H and cc < W:
                    kind = "SameRegion" if sol[r][c] == sol[rr][cc] else "DiffRegion"
                    out.append({"type": kind, "a": [r, c], "b": [rr, cc]})
    return out


RULES = ClaimRules(KINDS, label_solution, minimal, clue=label_clue)
