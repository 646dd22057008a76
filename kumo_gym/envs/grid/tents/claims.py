"""Tents' claims (docs/specs/grid_puzzles.md §7; docs/specs/reasoning_graphs.md §6 "Tents").

``Tent {r, c}``, ``NotTent {r, c}`` solution; ``Tree {r, c}``, ``Quota {axis, index, tents}``
clue (axis ROW or COL); state: ``Remaining {axis, index, remaining}``,
``TreeCandidate {tree_r, tree_c, cell_r[], cell_c[]}``, ``LineCandidates {axis, index, cell_r[],
cell_c[]}``, ``Contradiction {branch, note}``.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import (
    INCORRECT,
    UNVERIFIABLE,
    ClaimRules,
    choice_field,
    inside,
    int_field,
    marked,
    verdict,
    zipped_cells,
)

KINDS = {"Tent": "solution", "NotTent": "solution", "Tree": "clue", "Quota": "clue", "Remaining": "state",
         "TreeCandidate": "state", "LineCandidates": "state", "Contradiction": "state"}



def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    if kind == "Tree":
        r, c = int_field(p, "r"), int_field(p, "c")
        return verdict(inside(H, W, r, c) and st["grid"][r][c] == "T")
    axis, i = choice_field(p, "axis", ("ROW", "COL")), int_field(p, "index")
    counts = st["row_counts"] if axis == "ROW" else st["col_counts"]
    return verdict(0 <= i < len(counts) and counts[i] == int_field(p, "tents"))


def label_consistency(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    st = instance.data["state"]
    if kind == "TreeCandidate":
        tr, tc = int_field(p, "tree_r"), int_field(p, "tree_c")
        listed = zipped_cells(p)
        ok = any(inside(H, W, r, c) and sol[r][c] == "A" and abs(r - tr) + abs(c - tc) == 1 for r, c in listed)
        return UNVERIFIABLE if ok else INCORRECT
    if kind == "Remaining":
        axis, i = choice_field(p, "axis", ("ROW", "COL")), int_field(p, "index")
        counts = st["row_counts"] if axis == "ROW" else st["col_counts"]
        if not 0 <= i < len(counts):
            return INCORRECT
        return UNVERIFIABLE if 0 <= int_field(p, "remaining") <= counts[i] else INCORRECT
    return UNVERIFIABLE


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    return [{"type": "Tent", "r": r, "c": c} for r, row in enumerate(sol) for c, v in enumerate(row) if v == "A"]


RULES = ClaimRules(KINDS, marked("A", "Tent"), minimal, clue=label_clue, consistency=label_consistency)
