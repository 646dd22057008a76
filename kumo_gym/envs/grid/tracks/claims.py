"""Tracks' claims (docs/specs/grid_puzzles.md §7).

``Edge {a: [r, c], b: [r, c], on}`` (the line joins the two adjacent cells, or not; the track's
two border ends are edges to the off-grid cells (entry_row, -1) and (H, exit_col)),
``OnPath``/``OffPath {r, c}`` solution; C* is every edge of the line with on=true. Clues
``Count {axis, index, n}``, ``Endpoint {side LEFT|BOTTOM, index}``, ``GivenPiece {r, c, dirs}``.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimRules, choice_field, int_field, label_line, line_claims, verdict

KINDS = {"Edge": "solution", "OnPath": "solution", "OffPath": "solution", "Count": "clue", "Endpoint": "clue",
         "GivenPiece": "clue", "Contradiction": "state"}


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    if kind == "GivenPiece":
        r, c = int_field(p, "r"), int_field(p, "c")
        got = "".join(d for d in "URDL" if d in str(p.get("dirs", "")).upper())
        return verdict(st["given_pieces"].get(f"{r},{c}") == got)
    if kind == "Endpoint":
        side, i = choice_field(p, "side", ("LEFT", "BOTTOM")), int_field(p, "index")
        return verdict(i == (st["entry_row"] if side == "LEFT" else st["exit_col"]))
    axis, i = choice_field(p, "axis", ("ROW", "COL")), int_field(p, "index")
    counts = st["row_counts"] if axis == "ROW" else st["col_counts"]
    return verdict(0 <= i < len(counts) and counts[i] == int_field(p, "n"))


RULES = ClaimRules(KINDS, label_line, line_claims, clue=label_clue)
