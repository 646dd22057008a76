"""Towers' claims (docs/specs/grid_puzzles.md §7).

``Cell {r, c, v}``, ``NotCell {r, c, v}`` solution; ``Given {r, c, v}``,
``EdgeClue {side TOP|BOTTOM|LEFT|RIGHT, index, n}`` clue; ``Cand``, ``Contradiction`` state.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimRules, choice_field, inside, int_field, label_number, number_claims, verdict

KINDS = {"Cell": "solution", "NotCell": "solution", "Given": "clue", "EdgeClue": "clue", "Cand": "state",
         "Contradiction": "state"}


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    if kind == "Given":
        r, c = int_field(p, "r"), int_field(p, "c")
        return verdict(inside(H, W, r, c) and st["grid"][r][c] == int_field(p, "v"))
    side, i = choice_field(p, "side", ("TOP", "BOTTOM", "LEFT", "RIGHT")), int_field(p, "index")
    clues = st[side.lower()]
    return verdict(0 <= i < len(clues) and clues[i] == int_field(p, "n") and clues[i] != 0)


RULES = ClaimRules(KINDS, label_number, number_claims, clue=label_clue)
