"""Pearl's claims (docs/specs/grid_puzzles.md §7).

``Edge {a: [r, c], b: [r, c], on}`` (the loop joins the two adjacent cells, or not),
``OnPath``/``OffPath {r, c}`` solution; C* is every edge of the loop with on=true. Clue
``Pearl {r, c, color B|W}`` (BLACK/WHITE accepted too).
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimError, ClaimRules, inside, int_field, label_line, line_claims, verdict

KINDS = {"Edge": "solution", "OnPath": "solution", "OffPath": "solution", "Pearl": "clue",
         "Contradiction": "state"}


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    r, c = int_field(p, "r"), int_field(p, "c")
    colour = {"BLACK": "B", "WHITE": "W"}.get(str(p.get("color", "")).upper(), str(p.get("color", "")).upper())
    if colour not in ("B", "W"):
        raise ClaimError(f"claim field 'color' {p.get('color')!r} is not one of: B, W, BLACK, WHITE")
    return verdict(inside(H, W, r, c) and instance.data["state"]["grid"][r][c] == colour)


RULES = ClaimRules(KINDS, label_line, line_claims, clue=label_clue)
