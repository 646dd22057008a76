"""Light Up's claims (docs/specs/grid_puzzles.md §7).

``Light``/``NoLight {r, c}`` solution; clue ``Black {r, c, n}`` (n null for an unnumbered block).
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import INCORRECT, ClaimRules, inside, int_field, marked, verdict

KINDS = {"Light": "solution", "NoLight": "solution", "Black": "clue", "Contradiction": "state"}



def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    r, c = int_field(p, "r"), int_field(p, "c")
    if not inside(H, W, r, c):
        return INCORRECT
    cell = instance.data["state"]["grid"][r][c]
    n = p.get("n")
    if cell == ".":
        return INCORRECT
    return verdict(cell == "#" if n is None else str(cell) == str(n))


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    return [{"type": "Light", "r": r, "c": c} for r, row in enumerate(sol) for c, v in enumerate(row) if v == "L"]


RULES = ClaimRules(KINDS, marked("L", "Light"), minimal, clue=label_clue)
