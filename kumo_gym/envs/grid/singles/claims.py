"""Singles' claims (docs/specs/grid_puzzles.md §7).

``Black``/``White {r, c}`` solution (the answer writes -1 for black); clue ``Number {r, c, n}``
(the number printed in a cell).
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimRules, black_claims, inside, int_field, minus_black, verdict

KINDS = {"Black": "solution", "White": "solution", "Number": "clue", "Contradiction": "state"}


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    r, c = int_field(p, "r"), int_field(p, "c")
    n = int_field(p, "n")
    return verdict(inside(H, W, r, c) and instance.data["state"]["grid"][r][c] == n and n > 0)


RULES = ClaimRules(KINDS, minus_black, black_claims(-1), clue=label_clue)
