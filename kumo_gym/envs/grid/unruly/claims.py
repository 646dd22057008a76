"""Unruly's claims (docs/specs/grid_puzzles.md §7).

``Black``/``White {r, c}`` solution (the answer writes 1 for black, 0 for white); clue
``Given {r, c, v}`` (v 1 black, 0 white).
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimRules, black_claims, inside, int_field, two_colours, verdict

KINDS = {"Black": "solution", "White": "solution", "Given": "clue", "Contradiction": "state"}


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    r, c = int_field(p, "r"), int_field(p, "c")
    return verdict(inside(H, W, r, c) and st["grid"][r][c] == int_field(p, "v") and st["grid"][r][c] >= 0)


RULES = ClaimRules(KINDS, two_colours(1, 0), black_claims(1), clue=label_clue)
