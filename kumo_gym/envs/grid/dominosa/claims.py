"""Dominosa's claims (docs/specs/grid_puzzles.md §7).

``Domino {cells: [[r1, c1], [r2, c2]]}`` / ``NotDomino {cells}`` solution (the two cells form one
domino of the solution, or not; C* = one ``Domino`` per domino); clue ``Number {r, c, n}``.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import INCORRECT, ClaimRules, inside, int_field, pair_field, verdict

KINDS = {"Domino": "solution", "NotDomino": "solution", "Number": "clue", "Contradiction": "state"}


def label_solution(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    (r1, c1), (r2, c2) = sorted(pair_field(p))
    if not (inside(H, W, r1, c1) and inside(H, W, r2, c2)) or abs(r1 - r2) + abs(c1 - c2) != 1:
        return INCORRECT
    placed = (sol[r1][c1], sol[r2][c2]) == (("L", "R") if r1 == r2 else ("T", "B"))
    return verdict(placed == (kind == "Domino"))


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    r, c = int_field(p, "r"), int_field(p, "c")
    return verdict(inside(H, W, r, c) and instance.data["state"]["grid"][r][c] == int_field(p, "n"))


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    return [{"type": "Domino", "cells": [[r, c], [r, c + 1] if v == "L" else [r + 1, c]]}
            for r, row in enumerate(sol) for c, v in enumerate(row) if v in ("L", "T")]


RULES = ClaimRules(KINDS, label_solution, minimal, clue=label_clue)
