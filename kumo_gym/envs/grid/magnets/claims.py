"""Magnets' claims (docs/specs/grid_puzzles.md §7).

``Pole {r, c, v}`` / ``NotPole {r, c, v}`` solution (v 1 for +, -1 for -, 0 blank; C* = a Pole
for every cell with v != 0); clues ``Count {axis ROW|COL, index, sign + or -, n}`` (a hidden count
is checked against the solution) and ``Slot {cells: [[r1, c1], [r2, c2]]}`` (the two cells form
one slot of the layout).
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import INCORRECT, ClaimError, ClaimRules, choice_field, inside, int_field, pair_field, solved, verdict

KINDS = {"Pole": "solution", "NotPole": "solution", "Count": "clue", "Slot": "clue", "Contradiction": "state"}


def label_solution(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    r, c = int_field(p, "r"), int_field(p, "c")
    return verdict(inside(H, W, r, c) and (sol[r][c] == int_field(p, "v")) == (kind == "Pole"))


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    if kind == "Slot":
        (r1, c1), (r2, c2) = sorted(pair_field(p))
        if not (inside(H, W, r1, c1) and inside(H, W, r2, c2)):
            return INCORRECT
        return verdict((r2 - r1, c2 - c1, st["slots"][r1][c1], st["slots"][r2][c2]) in ((0, 1, "L", "R"), (1, 0, "T", "B")))
    axis, i = choice_field(p, "axis", ("ROW", "COL")), int_field(p, "index")
    sign = {"+": 1, "PLUS": 1, "1": 1, "-": -1, "MINUS": -1, "-1": -1}.get(str(p.get("sign", "")).upper())
    if sign is None:
        raise ClaimError(f"claim field sign {p.get('sign')!r} is not one of: +, -")
    counts = st[("plus_" if sign == 1 else "minus_") + ("rows" if axis == "ROW" else "cols")]
    if not 0 <= i < len(counts):
        return INCORRECT
    clue = counts[i]
    if clue is None:  # not shown: the count is still a fact of the unique solution
        sol = solved(instance)
        line = sol[i] if axis == "ROW" else [row[i] for row in sol]
        clue = sum(v == sign for v in line)
    return verdict(clue == int_field(p, "n"))


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    return [{"type": "Pole", "r": r, "c": c, "v": v} for r, row in enumerate(sol) for c, v in enumerate(row) if v != 0]


RULES = ClaimRules(KINDS, label_solution, minimal, clue=label_clue)
