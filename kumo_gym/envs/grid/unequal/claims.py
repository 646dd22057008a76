"""Unequal's claims (docs/specs/grid_puzzles.md §7).

``Cell``/``NotCell {r, c, v}`` solution; ``Given {r, c, v}``, ``Greater {a, b}`` (the cell
``a`` = [r, c] holds more than its neighbour ``b``: a sign of the puzzle) and ``Adj {a, b}``
(Adjacent mode: the pair is marked, so it differs by one) clue; ``Cand``, ``Contradiction`` state.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimRules, cells_field, inside, int_field, label_number, number_claims, verdict

KINDS = {"Cell": "solution", "NotCell": "solution", "Given": "clue", "Greater": "clue", "Adj": "clue",
         "Cand": "state", "Contradiction": "state"}


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    if kind == "Given":
        r, c = int_field(p, "r"), int_field(p, "c")
        return verdict(inside(H, W, r, c) and st["grid"][r][c] == int_field(p, "v") and st["grid"][r][c] != 0)
    a, b = (cells_field(p, k, one=True)[0] for k in ("a", "b"))
    if kind == "Greater":
        return verdict([list(a), list(b)] in st.get("gt", []))
    return verdict(sorted([list(a), list(b)]) in st.get("adj", []))


RULES = ClaimRules(KINDS, label_number, number_claims, clue=label_clue)
