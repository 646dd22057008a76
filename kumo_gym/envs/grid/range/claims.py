"""Range's claims (docs/specs/grid_puzzles.md §7).

``Black``/``White {r, c}`` solution (the answer writes -1 for black); clue ``Clue {r, c, n}``.
"""
from __future__ import annotations

from ..claims import ClaimRules, black_claims, minus_black, printed_number

KINDS = {"Black": "solution", "White": "solution", "Clue": "clue", "Contradiction": "state"}


RULES = ClaimRules(KINDS, minus_black, black_claims(-1), clue=printed_number("n"))
