"""Flood boards (docs/games.md, Flood): Tatham's draw and his move limit.

Every cell takes a colour uniformly at random (a board of one colour is drawn again); the limit
is the number of moves Tatham's three-move lookahead player (:func:`.search.tatham_moves`) needs
to flood the board, plus the leniency.
"""
from __future__ import annotations

import numpy as np

from .search import Regions, tatham_moves


def random_grid(w: int, h: int, colours: int, rng: np.random.Generator) -> list[int]:
    while True:
        grid = [int(c) for c in rng.integers(0, colours, size=w * h)]
        if len(set(grid)) > 1:
            return grid


def move_limit(grid: list[int], w: int, h: int, colours: int, leniency: int) -> int:
    """Tatham's limit: his player's number of moves plus ``leniency``."""
    return len(tatham_moves(Regions(grid, w, h), colours)) + leniency
