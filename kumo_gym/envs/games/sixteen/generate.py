"""Sixteen boards (docs/games.md, Sixteen): a uniformly random solvable board (Tatham's default), or
``movetarget=K`` shifts from the goal under Tatham's rule against the obvious waste: within a run of
parallel moves, no line is shifted back, nor past half its length."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .search import Move, apply_move, solvable


def uniform_board(w: int, h: int, rng: np.random.Generator) -> list[int]:
    goal = list(range(1, w * h + 1))
    while True:
        tiles = (rng.permutation(w * h) + 1).tolist()
        if solvable(tiles, w, h) and tiles != goal:
            return tiles


def scramble_moves(w: int, h: int, k: int, rng: np.random.Generator, rows: Sequence[int] | None = None,
                   cols: Sequence[int] | None = None) -> list[Move]:
    """``k`` random shifts of the lines that may move (``rows`` and ``cols``, default all), under
    Tatham's rule against the obvious waste."""
    lines = [("C", j, h) for j in (range(w) if cols is None else cols)] + [
        ("R", i, w) for i in (range(h) if rows is None else rows)]
    out: list[Move] = []
    axis, shifts = None, {}
    for _ in range(k):
        while True:
            a, i, length = lines[int(rng.integers(len(lines)))]
            d = 1 if rng.integers(2) else -1
            before = shifts.get(i, 0) if a == axis else 0
            after = before + d
            if a == axis and (abs(2 * after) > length or abs(after) < abs(before)):
                continue
            break
        if a != axis:
            axis, shifts = a, {}
        shifts[i] = after
        out.append((a, i, d))
    return out


def scrambled_board(w: int, h: int, k: int, rng: np.random.Generator) -> list[int]:
    goal = tuple(range(1, w * h + 1))
    while True:
        board = goal
        for m in scramble_moves(w, h, k, rng):
            board = apply_move(board, w, h, m)
        if board != goal:
            return list(board)
