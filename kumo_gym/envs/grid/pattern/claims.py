"""Pattern's claims (docs/specs/grid_puzzles.md §7).

``Black``/``White {r, c}`` solution (the answer writes 1 for black, 0 for white); clue
``LineClue {axis, index, runs[]}``.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimRules, black_claims, choice_field, int_field, ints_field, two_colours, verdict

KINDS = {"Black": "solution", "White": "solution", "LineClue": "clue", "Contradiction": "state"}


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    axis, i = choice_field(p, "axis", ("ROW", "COL")), int_field(p, "index")
    clues = st["rows"] if axis == "ROW" else st["cols"]
    return verdict(0 <= i < len(clues) and list(clues[i]) == ints_field(p, "runs"))


RULES = ClaimRules(KINDS, two_colours(1, 0), black_claims(1), clue=label_clue)
