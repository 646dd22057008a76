"""Twiddle boards (docs/games.md, Twiddle), shuffled the way Tatham's generator does: K random
quarter turns (``movetarget``; by default W*H*n*n*2 plus 0 or 1, which makes the board
effectively uniform), never undoing a block's earlier turns nor turning it past a half turn
while no overlapping block has moved since; drawn again if the result is the goal."""
from __future__ import annotations

import numpy as np

from .search import apply_move, goal_of


def start_board(w: int, h: int, rowsonly: bool) -> tuple:
    return tuple(4 * ((p // w if rowsonly else p) + 1) for p in range(w * h))


def scrambled_board(w: int, h: int, n: int, rowsonly: bool, orientable: bool, k: int | None,
                    rng: np.random.Generator) -> list[int]:
    goal = start_board(w, h, rowsonly)
    total = k if k else w * h * n * n * 2 + int(rng.integers(2))
    rw, rh = w - n + 1, h - n + 1
    while True:
        board = goal
        turned = [0] * (rw * rh)  # net quarter turns of each block since an overlapping block moved
        for _ in range(total):
            while True:
                x, y = int(rng.integers(rw)), int(rng.integers(rh))
                d = 1 if rng.integers(2) else -1
                before = turned[y * rw + x]
                after = before + d
                if (w == n and h == n) or not (abs(after) < abs(before) or abs(after) > 2):
                    break
            board = apply_move(board, w, h, n, orientable, (y, x, d))
            turned[y * rw + x] = after
            for dy in range(-n + 1, n):
                for dx in range(-n + 1, n):
                    if (dx or dy) and 0 <= y + dy < rh and 0 <= x + dx < rw:
                        turned[(y + dy) * rw + x + dx] = 0
        if board != goal_of(board):
            return list(board)
