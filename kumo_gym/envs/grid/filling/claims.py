"""Filling's claims (docs/specs/grid_puzzles.md §7).

``Cell {r, c, v}``, ``NotCell {r, c, v}`` solution (C* = every cell); ``Given {r, c, v}``
clue; ``Cand`` state.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimRules, inside, int_field, label_number, number_claims, verdict

KINDS = {"Cell": "solution", "NotCell": "solution", "Given": "clue", "Cand": "state", "Contradiction": "state"}


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    r, c = int_field(p, "r"), int_field(p, "c")
    n = int_field(p, "v")
    return verdict(inside(H, W, r, c) and instance.data["state"]["grid"][r][c] == n and n > 0)


RULES = ClaimRules(KINDS, label_number, number_claims, clue=label_clue)
