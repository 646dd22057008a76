"""Sixteen boards (docs/games.md, Sixteen): a uniformly random solvable board (Tatham's default), or
``movetarget=K`` shifts from the goal under Tatham's rule against the obvious waste: within a run of
parallel moves, no line is shifted back, nor past half its length."""
from __future__ import annotations

import numpy as np

from .search import apply_move, solvable


def uniform_board(w: int, h: int, rng: np.random.Generator) -> list[int]:
    goal = list(range(1, w * h + 1))
    while True:
        tiles = (rng.permutation(w * h) + 1).tolist()
        if solvable(tiles, w, h) and tiles != goal:
            return tiles


def scrambled_board(w: int, h: int, k: int, rng: np.random.Generator) -> list[int]:
    goal = tuple(range(1, w * h + 1))
    while True:
        board, axis, shifts = goal, None, {}
        for _ in range(k):
            while True:
                j = int(rng.integers(w + h))
                a, i, length = ("C", j, h) if j < w else ("R", j - w, w)
                d = 1 if rng.integers(2) else -1
                before = shifts.get(i, 0) if a == axis else 0
                after = before + d
                if a == axis and (abs(2 * after) > length or abs(after) < abs(before)):
                    continue
                break
            if a != axis:
                axis, shifts = a, {}
            shifts[i] = after
            board = apply_move(board, w, h, (a, i, d))
        if board != goal:
            return list(board)
