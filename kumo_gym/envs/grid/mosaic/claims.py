"""Mosaic's claims (docs/specs/grid_puzzles.md §7).

``Black``/``White {r, c}`` solution (the answer writes 1 for black, 2 for white); clue
``Clue {r, c, n}``.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimRules, black_claims, inside, int_field, two_colours, verdict

KINDS = {"Black": "solution", "White": "solution", "Clue": "clue", "Contradiction": "state"}


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    r, c = int_field(p, "r"), int_field(p, "c")
    return verdict(inside(H, W, r, c) and instance.data["state"]["grid"][r][c] == int_field(p, "n")
                   and int_field(p, "n") >= 0)


RULES = ClaimRules(KINDS, two_colours(1, 2), black_claims(1), clue=label_clue)
