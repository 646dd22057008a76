"""Solo's claims (docs/specs/grid_puzzles.md §7; docs/specs/reasoning_graphs.md §6 "Sudoku").

``Assign {r, c, d}`` solution; ``Given {r, c, d}`` clue; ``UnitHas {unit, index, digit}``
(correct when the digit is a given in that unit, else unverifiable); state:
``Cand {r, c, d[], polarity IN|OUT}``, ``UnitMissing {unit, index, d[]}``,
``UnitPlaces {unit, index, digit, cell_r[], cell_c[]}``, ``Contradiction {branch, note}``.
``unit`` is ROW, COL or BOX; BOX index = (r // box_h) * (n // box_w) + c // box_w.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import (
    CORRECT,
    INCORRECT,
    OUTSIDE,
    UNVERIFIABLE,
    ClaimRules,
    cell_claims,
    choice_field,
    inside,
    int_field,
    ints_field,
    solution_at,
    verdict,
    zipped_cells,
)

KINDS = {"Assign": "solution", "Given": "clue", "UnitHas": "clue", "Cand": "state", "UnitMissing": "state",
         "UnitPlaces": "state", "Contradiction": "state"}


def _unit_cells(instance: Instance, unit: str, index: int) -> list[tuple[int, int]]:
    st = instance.data["state"]
    n, bw, bh = st["n"], st["box_w"], st["box_h"]
    if not 0 <= index < n:
        return []
    if unit == "ROW":
        return [(index, c) for c in range(n)]
    if unit == "COL":
        return [(r, index) for r in range(n)]
    per_row = n // bw
    r0, c0 = (index // per_row) * bh, (index % per_row) * bw
    return [(r0 + i, c0 + j) for i in range(bh) for j in range(bw)]


def label_solution(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    v = solution_at(p, sol, H, W)
    return INCORRECT if v is OUTSIDE else verdict(v == int_field(p, "d"))


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    if kind == "Given":
        r, c = int_field(p, "r"), int_field(p, "c")
        return verdict(inside(H, W, r, c) and st["grid"][r][c] == int_field(p, "d"))
    cells = _unit_cells(instance, choice_field(p, "unit", ("ROW", "COL", "BOX")), int_field(p, "index"))
    if not cells:
        return INCORRECT
    digit = int_field(p, "digit")
    return CORRECT if any(st["grid"][r][c] == digit for r, c in cells) else UNVERIFIABLE


def label_consistency(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    if kind not in ("UnitMissing", "UnitPlaces"):
        return UNVERIFIABLE
    st = instance.data["state"]
    cells = _unit_cells(instance, choice_field(p, "unit", ("ROW", "COL", "BOX")), int_field(p, "index"))
    if not cells:
        return INCORRECT
    if kind == "UnitMissing":
        givens = {st["grid"][r][c] for r, c in cells}
        return INCORRECT if any(d in givens for d in ints_field(p, "d")) else UNVERIFIABLE
    digit = int_field(p, "digit")
    home = next(((r, c) for r, c in cells if sol[r][c] == digit), None)
    return INCORRECT if home is not None and home not in zipped_cells(p) else UNVERIFIABLE


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    return cell_claims("Assign", sol, key="d")


RULES = ClaimRules(KINDS, label_solution, minimal, clue=label_clue, consistency=label_consistency)
