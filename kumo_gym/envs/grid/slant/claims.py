"""Slant's claims (docs/specs/grid_puzzles.md §7).

``Slash {r, c}`` / ``Backslash {r, c}`` solution (the cell's diagonal; C* = every cell);
``Clue {r, c, n}`` clue, (r, c) a grid point (0..H, 0..W); state ``Contradiction``.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimRules, cell_claims, int_field, marked, verdict
from .codec import BACK, NO_CLUE

KINDS = {"Slash": "solution", "Backslash": "solution", "Clue": "clue", "Contradiction": "state"}



def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    r, c, n = int_field(p, "r"), int_field(p, "c"), int_field(p, "n")
    return verdict(0 <= r <= H and 0 <= c <= W and n != NO_CLUE and instance.data["state"]["clues"][r][c] == n)


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    return [{"type": "Backslash" if claim["v"] == BACK else "Slash", "r": claim["r"], "c": claim["c"]}
            for claim in cell_claims("", sol)]


RULES = ClaimRules(KINDS, marked(BACK, "Backslash"), minimal, clue=label_clue)
