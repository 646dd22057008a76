"""Signpost's claims (docs/specs/grid_puzzles.md §7).

``Cell``/``NotCell {r, c, v}`` solution (C* = every cell); ``Given {r, c, v}``,
``Arrow {r, c, dir}`` (N, NE, ..., NW) clue.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import INCORRECT, ClaimRules, inside, int_field, label_number, number_claims, verdict

KINDS = {"Cell": "solution", "NotCell": "solution", "Given": "clue", "Arrow": "clue", "Cand": "state",
         "Contradiction": "state"}


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    r, c = int_field(p, "r"), int_field(p, "c")
    if not inside(H, W, r, c):
        return INCORRECT
    if kind == "Given":
        return verdict(st["givens"][r][c] == int_field(p, "v") and int_field(p, "v") > 0)
    return verdict(st["arrows"][r][c] is not None and st["arrows"][r][c] == str(p.get("dir", "")).upper())


RULES = ClaimRules(KINDS, label_number, number_claims, clue=label_clue)
