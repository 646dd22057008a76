"""Keen's claims (docs/specs/grid_puzzles.md §7).

``Cell``/``NotCell {r, c, v}`` solution; ``Cage {cells, op, target}`` clue (``cells`` a list of
[r, c] in any order, ``op`` one of + x - /); ``Cand``, ``Contradiction`` state.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import ClaimRules, cells_field, int_field, label_number, number_claims, verdict

KINDS = {"Cell": "solution", "NotCell": "solution", "Cage": "clue", "Cand": "state", "Contradiction": "state"}


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    cells = sorted(map(tuple, cells_field(p, "cells")))
    op = str(p.get("op", "")).lower()
    op = {"*": "x", "\u00d7": "x", "\u00f7": "/"}.get(op, op)
    return verdict(any(sorted(map(tuple, cage["cells"])) == cells and cage["op"] == op
                       and cage["target"] == int_field(p, "target") for cage in st["cages"]))


RULES = ClaimRules(KINDS, label_number, number_claims, clue=label_clue)
