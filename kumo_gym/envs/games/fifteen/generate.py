"""Fifteen boards (docs/games.md, Fifteen): Tatham's draw (a uniformly random board of the
solvable half) or, with ``scramble=k``, k random moves of the gap from the goal, never undoing
the previous one, which caps the optimum at k."""
from __future__ import annotations

import numpy as np

from .search import DC, DR, solvable


def uniform_board(w: int, h: int, rng: np.random.Generator) -> list[int]:
    goal = list(range(1, w * h)) + [0]
    while True:
        tiles = rng.permutation(w * h).tolist()
        if solvable(tiles, w, h) and tiles != goal:
            return tiles


def scrambled_board(w: int, h: int, k: int, rng: np.random.Generator) -> list[int]:
    goal = list(range(1, w * h)) + [0]
    while True:
        tiles = list(goal)
        gap, last = w * h - 1, -1
        for _ in range(k):
            options = []
            for d in range(4):
                r, c = gap // w + int(DR[d]), gap % w + int(DC[d])
                if 0 <= r < h and 0 <= c < w and d != (last ^ 1 if last >= 0 else -1):
                    options.append((d, r * w + c))
            d, nb = options[int(rng.integers(len(options)))]
            tiles[gap], tiles[nb] = tiles[nb], 0
            gap, last = nb, d
        if tiles != goal:
            return tiles
