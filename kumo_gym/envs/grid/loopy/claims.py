"""Loopy's claims (docs/specs/grid_puzzles.md §7), on the grid of dots.

``Edge {a: [r, c], b: [r, c], on}`` (the loop uses the grid line between two neighbouring dots, or
not), ``OnPath``/``OffPath {r, c}`` (a dot is on the loop or not) solution; C* is every line of the
loop with on=true. Clue ``Clue {r, c, n}``: face (r, c) shows the number n.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimRules, inside, int_field, label_line, line_claims, verdict

KINDS = {"Edge": "solution", "OnPath": "solution", "OffPath": "solution", "Clue": "clue",
         "Contradiction": "state"}


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    r, c, n = int_field(p, "r"), int_field(p, "c"), int_field(p, "n")
    return verdict(inside(H - 1, W - 1, r, c) and instance.data["state"]["clues"][r][c] == n >= 0)


RULES = ClaimRules(KINDS, label_line, line_claims, clue=label_clue)
