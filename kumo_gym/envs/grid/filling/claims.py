"""Filling's claims (docs/specs/grid_puzzles.md §7).

``Cell {r, c, v}``, ``NotCell {r, c, v}`` solution (C* = every cell); ``Given {r, c, v}``
clue; ``Cand`` state.
"""
from __future__ import annotations

from ..claims import ClaimRules, label_number, number_claims, printed_number

KINDS = {"Cell": "solution", "NotCell": "solution", "Given": "clue", "Cand": "state", "Contradiction": "state"}


RULES = ClaimRules(KINDS, label_number, number_claims, clue=printed_number("v"))
