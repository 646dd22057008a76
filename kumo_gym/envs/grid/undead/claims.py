"""Undead's claims (docs/specs/grid_puzzles.md §7).

``Monster {r, c, t}`` / ``NotMonster {r, c, t}`` solution (t G, V or Z; C* = a Monster for every
cell without a mirror); clues ``Mirror {r, c, kind}`` (kind ``\\`` or ``/``, or BACKSLASH /
SLASH), ``Total {t, n}``, ``Sight {side TOP|BOTTOM|LEFT|RIGHT, index, n}``.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimRules, choice_field, inside, int_field, verdict

KINDS = {"Monster": "solution", "NotMonster": "solution", "Mirror": "clue", "Total": "clue", "Sight": "clue",
         "Contradiction": "state"}


def label_solution(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    r, c = int_field(p, "r"), int_field(p, "c")
    return verdict(inside(H, W, r, c) and (sol[r][c] == str(p.get("t", "")).upper()) == (kind == "Monster"))


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    if kind == "Mirror":
        r, c = int_field(p, "r"), int_field(p, "c")
        kind_ = {"BACKSLASH": "\\", "SLASH": "/", "L": "\\", "R": "/"}.get(str(p.get("kind", "")).upper(), p.get("kind"))
        return verdict(inside(H, W, r, c) and st["grid"][r][c] == kind_)
    if kind == "Total":
        return verdict(st["totals"].get(str(p.get("t", "")).upper()) == int_field(p, "n"))
    side, i = choice_field(p, "side", ("TOP", "BOTTOM", "LEFT", "RIGHT")), int_field(p, "index")
    return verdict(0 <= i < len(st[side.lower()]) and st[side.lower()][i] == int_field(p, "n"))


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    return [{"type": "Monster", "r": r, "c": c, "t": v} for r, row in enumerate(sol) for c, v in enumerate(row)
            if v in ("G", "V", "Z")]


RULES = ClaimRules(KINDS, label_solution, minimal, clue=label_clue)
