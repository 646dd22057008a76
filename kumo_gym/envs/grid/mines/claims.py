"""Mines' claims (docs/specs/grid_puzzles.md §7).

``Mine``/``Safe {r, c}`` solution (C* = one ``Mine`` per mine); clue ``Number {r, c, n}`` (an
opened cell's number, 0 included) and ``Total {n}`` (the mine count); state ``Needs {r, c, n}``
(the number at (r, c) still needs n more mines), ``Contradiction``.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimRules, inside, int_field, marked, verdict

KINDS = {"Mine": "solution", "Safe": "solution", "Number": "clue", "Total": "clue", "Needs": "state",
         "Contradiction": "state"}



def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    if kind == "Total":
        return verdict(int_field(p, "n") == st["mines"])
    r, c, n = int_field(p, "r"), int_field(p, "c"), int_field(p, "n")
    return verdict(inside(H, W, r, c) and n >= 0 and st["grid"][r][c] == n)


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    return [{"type": "Mine", "r": r, "c": c} for r, row in enumerate(sol) for c, v in enumerate(row) if v == "*"]


RULES = ClaimRules(KINDS, marked("*", "Mine"), minimal, clue=label_clue)
